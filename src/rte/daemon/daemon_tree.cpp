// The daemons' control tree: attaching to the parent the view gives us,
// accepting children, relaying UP frames towards the leader and the leader's
// numbered broadcasts (DOWN) away from it, and keeping the broadcast log
// consistent across view changes (log fills both ways at PEER_HELLO /
// PEER_WELCOME). Protocol: spec/wire-control.md, "Tree, views and succession".
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "base/fd.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "rte/daemon/daemon.hpp"

namespace ftmpi::rte {

using proto::MsgType;

namespace {
constexpr int kAttachTimeoutMs = 5000;
}  // namespace

void Daemon::apply_view(const proto::View& v) {
  const size_t n = job_->hosts.size();
  if (v.term <= term_) return;  // stale or repeated
  if (v.leader < 0 || static_cast<size_t>(v.leader) >= n) return;
  term_ = v.term;
  for (int32_t h : v.lost)
    if (h >= 0 && static_cast<size_t>(h) < n) lost_[static_cast<size_t>(h)] = true;
  if (lost_[static_cast<size_t>(args_.host)]) {
    // The launcher gave up on us (we were silent to it): our ranks are
    // already counted as failed elsewhere; end them and leave.
    FTMPI_LOG(kError, "ftmpid", "the launcher declared this host lost; ending local ranks");
    exit_without_done_ = true;
    exit_status_ = 1;
    terminate(1, true);
    return;
  }
  const int32_t old_leader = leader_host_;
  leader_host_ = v.leader;
  FTMPI_LOG(kInfo, "ftmpid", "view %u: leader host %d, %zu host(s) lost", term_, leader_host_, v.lost.size());
  for (size_t h = 0; h < n; ++h)
    if (lost_[h]) close_tree_link_to(static_cast<int32_t>(h));
  if (leader_host_ == args_.host) {
    if (!leader_) {
      leader_ = std::make_unique<Leader>(state_, *this);
      if (terminating_) leader_->stop();
      leader_->begin_takeover(term_, lost_);
      FTMPI_LOG(kInfo, "ftmpid", "host %d was lost: this daemon leads now", old_leader);
      loop_.after_ms(takeover_timeout_ms(), [this] {
        if (!leader_ || !leader_->syncing()) return;
        const std::string why = "did not answer the new leader within " + std::to_string(takeover_timeout_ms()) + " ms";
        for (int32_t h : leader_->give_up_waiting()) {
          FTMPI_LOG(kError, "ftmpid", "host %d %s; going on without it", h, why.c_str());
          to_launcher(proto::make_frame(proto::HostSuspect{h, why}));
        }
      });
    } else {
      leader_->on_view(lost_);
    }
  }
  attach_to_parent();
  // Our local facts for the (possibly new) leader; behind any log fills.
  send_host_sync();
}

void Daemon::send_host_sync() {
  if (params::get_int("FTMPI_FAULT_SILENT_SYNC_HOST", -1) == args_.host) return;
  route_up(proto::Up{args_.host, proto::make_frame(host_sync())}, {});
  // Transparent mode: the buddy may have changed, and hand-overs wait for
  // answers from fewer hosts (or lost theirs with a relaying daemon).
  check_buddy();
  std::vector<int32_t> waiting;
  for (const auto& [slot, h] : handovers_) waiting.push_back(slot);
  for (int32_t slot : waiting) want_determinants(slot);
}

uint64_t Daemon::takeover_timeout_ms() const {
  const int64_t dflt = std::max<int64_t>(5000, 10 * static_cast<int64_t>(job_->heartbeat_timeout_ms));
  return static_cast<uint64_t>(std::max<int64_t>(1, params::get_int("FTMPI_TAKEOVER_TIMEOUT_MS", dflt)));
}

void Daemon::close_tree_link_to(int32_t host) {
  buddy_link_closed(host);
  if (host == parent_host_ && parent_) {
    parent_ready_ = false;
    parent_host_ = -1;
    Connection* c = parent_.release();
    c->close("host lost");
    loop_.defer([c] { delete c; });
  }
  // close() calls on_child_closed, which erases from child_host_: collect first.
  std::vector<Connection*> gone;
  for (auto& [c, h] : child_host_)
    if (h == host) gone.push_back(c);
  for (Connection* c : gone) c->close("host lost");
}

void Daemon::attach_to_parent() {
  if (!job_ || tree_links_quiet()) return;
  Tree tree(lost_, leader_host_, job_->tree_fanout);
  int32_t want = tree.parent(args_.host);
  if (want == parent_host_ && (want < 0 || (parent_ && !parent_->closed()))) return;
  if (parent_) {
    buddy_link_closed(parent_host_);
    Connection* c = parent_.release();
    parent_host_ = -1;  // its on_close must not count as a lost parent
    c->close("tree changed");
    loop_.defer([c] { delete c; });
  }
  parent_ready_ = false;
  parent_host_ = want;
  if (want < 0) {
    // We are the root (the leader): queued frames are ours now.
    std::vector<std::vector<uint8_t>> q;
    q.swap(up_queue_);
    for (const auto& enc : q) {
      proto::Frame f;
      proto::Up up;
      if (proto::split_frame(enc, f) && proto::parse(f, up)) deliver_to_leader(up.origin, up.frame);
    }
    return;
  }
  const proto::HostEntry& p = job_->hosts[static_cast<size_t>(want)];
  int fd = fd::tcp_connect(p.addr, p.peer_port, /*nonblocking=*/true);
  if (fd < 0) {
    on_parent_closed("cannot connect to " + p.addr + ":" + std::to_string(p.peer_port));
    return;
  }
  fd::tcp_tune(fd, tcp_user_timeout_ms());
  Connection::Handlers h;
  h.on_frame = [this](const proto::Frame& f) { on_parent_frame(f); };
  h.on_close = [this](const std::string& why) { on_parent_closed(why); };
  parent_ = Connection::connect_to(loop_, fd, "parent daemon on host " + std::to_string(want), secret_,
                                   std::move(h), kAttachTimeoutMs);
  if (parent_ && !parent_->closed())
    parent_->send(proto::PeerHello{proto::kProtocolVersion, args_.host, term_, log_.size()});
}

void Daemon::on_parent_closed(const std::string& why) {
  if (parent_host_ < 0) return;  // we closed it on purpose
  int32_t host = parent_host_;
  buddy_link_closed(host);
  parent_ready_ = false;
  if (parent_) {
    Connection* c = parent_.release();
    loop_.defer([c] { delete c; });
  }
  parent_host_ = -1;
  if (tree_links_quiet()) return;
  suspect_host(host, why);
  // If the launcher does not declare it lost (a broken link, not a dead
  // host), try again; a new view re-attaches us anyway.
  if (!sync_timer_) start_sync_timer();
}

void Daemon::start_sync_timer() {
  sync_timer_ = loop_.after_ms(job_->heartbeat_timeout_ms, [this] {
    sync_timer_ = 0;
    if (!parent_ && !tree_links_quiet()) {
      attach_to_parent();
      if (parent_) send_host_sync();
    }
  });
}

void Daemon::on_parent_frame(const proto::Frame& f) {
  using proto::with_parsed;
  bool ok = false;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kPeerWelcome:
      ok = !parent_ready_ && with_parsed<proto::PeerWelcome>(f, [&](auto& m) {
        parent_ready_ = true;
        // Broadcasts the parent lacks (its old leader died before they
        // reached it) go up first, so the leader sees them before our sync.
        for (uint64_t b = m.last_bseq + 1; b <= log_.size(); ++b) parent_->send(log_entry(b));
        std::vector<std::vector<uint8_t>> q;
        q.swap(up_queue_);
        for (const auto& enc : q) parent_->send_frame(enc);
        check_buddy();
      });
      break;
    case MsgType::kDown:
      ok = parent_ready_ && with_parsed<proto::Down>(f, [&](auto& m) { on_down(m, nullptr); });
      break;
    default:
      if (parent_ready_) on_event_log_frame(parent_.get(), parent_host_, f, ok);
      break;
  }
  if (!ok && parent_) {
    FTMPI_LOG(kError, "ftmpid", "bad or unexpected %s from the parent daemon; closing", proto::msg_name(f.type));
    parent_->close("protocol error");
  }
}

void Daemon::on_child_frame(Connection* c, const proto::Frame& f) {
  using proto::with_parsed;
  auto it = child_host_.find(c);
  bool ok = false;
  if (it == child_host_.end()) {
    ok = f.type == static_cast<uint16_t>(MsgType::kPeerHello) &&
         with_parsed<proto::PeerHello>(f, [&](auto& m) { on_child_hello(c, m); });
  } else {
    switch (static_cast<MsgType>(f.type)) {
      case MsgType::kUp:
        // Relayed as is: the origin was checked by the daemon that first sent it up.
        ok = with_parsed<proto::Up>(f, [&](auto& m) { route_up(m, {}); });
        break;
      case MsgType::kDown:  // a log fill from below
        ok = with_parsed<proto::Down>(f, [&](auto& m) { on_down(m, c); });
        break;
      default: on_event_log_frame(c, it->second, f, ok); break;
    }
  }
  if (!ok && !c->closed()) {
    FTMPI_LOG(kError, "ftmpid", "%s: bad or unexpected %s; closing", c->name().c_str(), proto::msg_name(f.type));
    c->close("protocol error");
  }
}

void Daemon::on_child_hello(Connection* c, const proto::PeerHello& m) {
  if (!job_) {
    early_hellos_.emplace_back(c, m);  // JOB_START is on its way to us too
    return;
  }
  const int32_t n = static_cast<int32_t>(job_->hosts.size());
  if ( m.version != proto::kProtocolVersion || m.host == args_.host || m.host >= n ||
      lost_[static_cast<size_t>(m.host)]) {
    c->close("unexpected PEER_HELLO");
    return;
  }
  // A host reattaching (a retry after a broken link) replaces its old link.
  std::vector<Connection*> replaced;
  for (auto& [old, h] : child_host_)
    if (h == m.host && old != c) replaced.push_back(old);
  for (Connection* old : replaced) old->close("replaced");
  child_host_[c] = m.host;
  c->set_name("child daemon on host " + std::to_string(m.host));
  c->send(proto::PeerWelcome{log_.size()});
  for (uint64_t b = m.last_bseq + 1; b <= log_.size(); ++b) c->send(log_entry(b));
  check_buddy();  // the root's buddy is its first child
}

void Daemon::on_child_closed(Connection* c, const std::string& why) {
  std::erase_if(early_hellos_, [c](const auto& e) { return e.first == c; });
  auto it = child_host_.find(c);
  if (it != child_host_.end()) {
    int32_t host = it->second;
    child_host_.erase(it);
    buddy_link_closed(host);
    if (why != "replaced" && why != "host lost") suspect_host(host, why);
  } else {
    // Never a child: a stranger, a failed handshake, or garbage. The job goes on.
    FTMPI_LOG(kError, "ftmpid", "rejected %s: %s", c->name().c_str(), why.c_str());
  }
  loop_.defer([this, c] {
    for (auto p = peers_.begin(); p != peers_.end(); ++p) {
      if (p->get() == c) {
        peers_.erase(p);
        return;
      }
    }
  });
}

void Daemon::route_up(const proto::Up& m, const std::vector<uint8_t>& encoded) {
  if (leader_ && leader_host_ == args_.host) {
    deliver_to_leader(m.origin, m.frame);
    return;
  }
  std::vector<uint8_t> frame = encoded.empty() ? proto::make_frame(m) : encoded;
  if (parent_ && parent_ready_ && !parent_->closed())
    parent_->send_frame(frame);
  else
    up_queue_.push_back(std::move(frame));
}

void Daemon::deliver_to_leader(int32_t origin, const std::vector<uint8_t>& frame) {
  // Through the loop: the leader never runs inside the handler that produced the frame.
  loop_.defer([this, origin, frame] {
    if (!leader_) return;
    proto::Frame f;
    if (!proto::split_frame(frame, f)) return;
    if (origin < 0 || static_cast<size_t>(origin) >= lost_.size() || lost_[static_cast<size_t>(origin)]) return;
    // The event logger's hand-over only passes through the leader.
    if (f.type == static_cast<uint16_t>(MsgType::kDetWant) || f.type == static_cast<uint16_t>(MsgType::kDetHandover)) {
      broadcast_unlogged(frame);
      return;
    }
    bool ok;
    if (f.type == static_cast<uint16_t>(MsgType::kHostSync))
      ok = proto::with_parsed<proto::HostSync>(f, [&](auto& s) { leader_->on_host_sync(origin, s); });
    else
      ok = leader_->on_frame(origin, f);
    if (!ok) FTMPI_LOG(kError, "ftmpid", "leader: bad %s from host %d; ignored", proto::msg_name(f.type), origin);
  });
}

void Daemon::to_leader(const std::vector<uint8_t>& frame) { route_up(proto::Up{args_.host, frame}, {}); }

proto::Down Daemon::log_entry(uint64_t bseq) const {
  const LogEntry& e = log_[static_cast<size_t>(bseq - 1)];
  return proto::Down{e.term, bseq, e.frame};
}

std::vector<proto::Frame> Daemon::logged_broadcasts() const {
  std::vector<proto::Frame> out;
  for (const LogEntry& e : log_) {
    proto::Frame f;
    if (proto::split_frame(e.frame, f)) out.push_back(std::move(f));
  }
  return out;
}

void Daemon::on_down(const proto::Down& m, Connection* from_child) {
  if (m.bseq == 0) {
    // Not logged (CHECK_PROC): acted on by the host it concerns, passed down.
    if (from_child) return;
    forward_down(proto::make_frame(m), nullptr);
    proto::Frame f;
    if (proto::split_frame(m.frame, f)) from_leader(f);
    return;
  }
  if (m.bseq <= log_.size()) return;  // already have it
  if (m.bseq != log_.size() + 1) {
    FTMPI_LOG(kError, "ftmpid", "broadcast %llu arrived after %zu: a gap; ignored",
              static_cast<unsigned long long>(m.bseq), log_.size());
    return;
  }
  log_.push_back(LogEntry{m.term, m.frame});
  std::vector<uint8_t> enc = proto::make_frame(m);
  forward_down(enc, from_child);
  // A fill from below also travels up, towards the leader that lacks it.
  if (from_child && parent_ && parent_ready_) parent_->send_frame(enc);
  proto::Frame f;
  if (proto::split_frame(m.frame, f)) from_leader(f);
}

void Daemon::forward_down(const std::vector<uint8_t>& encoded, Connection* except) {
  for (auto& [c, h] : child_host_)
    if (c != except && !c->closed()) c->send_frame(encoded);
}

void Daemon::to_all_daemons(const std::vector<uint8_t>& frame) {
  proto::Down d{term_, log_.size() + 1, frame};
  log_.push_back(LogEntry{term_, frame});
  forward_down(proto::make_frame(d), nullptr);
  // Our own copy through the loop, like a frame from a remote leader.
  loop_.defer([this, frame] {
    proto::Frame f;
    if (proto::split_frame(frame, f)) from_leader(f);
  });
}

void Daemon::to_daemon(int32_t host, const std::vector<uint8_t>& frame) {
  if (host == args_.host) {
    loop_.defer([this, frame] {
      proto::Frame f;
      if (proto::split_frame(frame, f)) from_leader(f);
    });
    return;
  }
  forward_down(proto::make_frame(proto::Down{term_, 0, frame}), nullptr);
}

proto::HostSync Daemon::host_sync() const {
  proto::HostSync s;
  s.term = term_;
  s.epoch = state_.epoch();
  for (const LocalRank& r : ranks_.ranks()) {
    if (!state_.current(r.id)) continue;
    if (r.running()) {
      if (r.carded) s.cards.push_back(r.card);
      if (r.fence_entered) s.fenced.push_back(r.id);
      if (r.recover_asked) s.asked.push_back(r.id);
    } else {
      s.ended.push_back(proto::ProcExit{r.id, static_cast<int32_t>(r.pid), r.exit, r.end, r.booted,
                                                r.in_fence()});
    }
  }
  return s;
}

}  // namespace ftmpi::rte
