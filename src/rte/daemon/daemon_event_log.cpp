// ftmpid in transparent mode (DESIGN §8; spec/wire-control.md "Transparent
// mode"): restarted ranks join without a round, and the daemon is its ranks'
// event logger.
//
// Event logger. A rank's DET_LOG is stored in the primary log; with another
// live host it goes to the buddy (the tree parent, or for the root its first
// child) and is acknowledged to the rank (DET_ACK) only when the buddy said
// it stored it; alone, it is acknowledged at once. When the buddy changes
// (a view, a broken link) the new one gets the whole primary log again and
// acknowledges what was waiting. A restarted rank fetches its slot's log
// (DET_FETCH -> DET_DATA). A slot that moved here from a lost host has no
// log here: the daemon asks every live daemon (DET_WANT through the leader)
// and merges what they hold (DET_HANDOVER: the lost host's buddy has a
// replica) before it answers the fetch; it asks again after every view.
//
// Staging: alone, a rank writes its batches into a memfd this daemon maps
// (rte/proto/det_stage.hpp) instead of sending DET_LOG; they are taken into
// the primary log whenever the log is read or extended for that slot.
#include <algorithm>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/daemon/daemon.hpp"
#include "rte/daemon/topology.hpp"

namespace ftmpi::rte {
namespace {

using proto::MsgType;

// Data per DET_REPL / DET_HANDOVER frame: well below kMaxFrame with the
// UP/DOWN wrapping around it.
constexpr size_t kPieceBytes = 4u << 20;
// An unanswered hand-over is asked again after this long (an unlogged
// broadcast can die with a relaying daemon without a view change).
constexpr uint32_t kHandoverRetryMs = 2000;

}  // namespace

bool Daemon::alone() const {
  int live = 0;
  for (bool l : lost_) live += l ? 0 : 1;
  return live <= 1;
}

Connection* Daemon::buddy_link(int32_t& host) {
  host = -1;
  if (!job_) return nullptr;
  if (parent_ && parent_ready_ && !parent_->closed()) {
    host = parent_host_;
    return parent_.get();
  }
  if (leader_host_ != args_.host) return nullptr;  // a parent we are not attached to yet
  Tree tree(lost_, leader_host_, job_->tree_fanout);
  std::vector<int32_t> children = tree.children(args_.host);
  if (children.empty()) return nullptr;
  for (auto& [c, h] : child_host_) {
    if (h == children.front() && !c->closed()) {
      host = h;
      return c;
    }
  }
  return nullptr;
}

bool Daemon::take_staged(int32_t slot) {
  LocalRank* r = ranks_.find(slot);
  if (!r) return true;
  proto::StageReader stage = ranks_.stage(*r);
  if (!stage.valid()) return true;
  const bool ok = stage.take([&](uint32_t incarnation, uint64_t batch, const uint8_t* data, size_t len) {
    primary_.add(slot, proto::DetBatch{incarnation, batch, std::string(reinterpret_cast<const char*>(data), len)});
    // The rank counted it acknowledged when it wrote it.
    if (incarnation == r->id.incarnation) r->det_acked = std::max(r->det_acked, batch);
  });
  if (!ok) {
    FTMPI_LOG(kError, "ftmpid", "rank %d: corrupt determinant staging area; closing its channel", slot);
    if (r->ctrl) r->ctrl->close("protocol error");
  }
  return ok;
}

void Daemon::take_all_staged() {
  for (const LocalRank& r : ranks_.ranks()) take_staged(r.id.slot);
}

void Daemon::offer_stable_stage(const LocalRank& r) {
  if (!alone()) return;
  proto::StageReader stage = ranks_.stage(r);
  if (stage.valid()) stage.set_stable();
}

void Daemon::check_buddy() {
  if (!job_ || !state_.transparent() || tree_links_quiet()) return;
  int32_t host;
  Connection* c = buddy_link(host);
  if (!c) {
    synced_buddy_ = -1;
    if (alone()) {
      // Nobody to replicate to: what is stored here is all the job can have.
      for (const LocalRank& r : ranks_.ranks()) {
        ack_local(r.id.slot, r.id.incarnation, primary_.last_batch(r.id.slot, r.id.incarnation));
        offer_stable_stage(r);
      }
    }
    return;
  }
  if (host == synced_buddy_) return;
  synced_buddy_ = host;
  take_all_staged();
  FTMPI_LOG(kDebug, "ftmpid", "event log: buddy is host %d; sending it %zu bytes", host, primary_.bytes());
  for (int32_t slot : primary_.slots()) replicate(c, slot, primary_.batches(slot));
}

void Daemon::buddy_link_closed(int32_t host) {
  if (host >= 0 && host == synced_buddy_) synced_buddy_ = -1;
  loop_.defer([this] { check_buddy(); });
}

void Daemon::replicate(Connection* to, int32_t slot, const std::vector<proto::DetBatch>& batches) {
  for (std::vector<proto::DetBatch>& piece : cut_batches(batches, kPieceBytes))
    to->send(proto::DetRepl{slot, std::move(piece)});
}

void Daemon::ack_local(int32_t slot, uint32_t incarnation, uint64_t batch) {
  LocalRank* r = ranks_.find(slot);
  if (!r || r->id.incarnation != incarnation || !r->running() || !r->ctrl || batch <= r->det_acked) return;
  r->det_acked = batch;
  r->ctrl->send(proto::DetAck{batch});
}

void Daemon::on_det_log(LocalRank& r, const proto::DetLog& m) {
  if (!take_staged(r.id.slot)) return;  // its batches staged before this one
  if (m.batch != primary_.last_batch(r.id.slot, r.id.incarnation) + 1) {
    FTMPI_LOG(kError, "ftmpid", "rank %d: determinant batch %llu out of order; closing its channel", r.id.slot,
              static_cast<unsigned long long>(m.batch));
    r.ctrl->close("protocol error");
    return;
  }
  proto::DetBatch b{r.id.incarnation, m.batch, m.data};
  primary_.add(r.id.slot, b);
  int32_t host;
  Connection* c = buddy_link(host);
  if (c && host == synced_buddy_)
    replicate(c, r.id.slot, {b});
  else if (c || alone())
    check_buddy();  // a new buddy gets everything, this batch too; alone: acknowledged
  // else: the next buddy gets it with everything else (check_buddy).
}

void Daemon::on_det_repl(Connection* from, const proto::DetRepl& m) {
  for (const proto::DetBatch& b : m.batches) replicas_.add(m.slot, b);
  const proto::DetBatch& last = m.batches.back();
  from->send(proto::DetReplAck{m.slot, last.incarnation, last.batch});
}

void Daemon::on_det_repl_ack(int32_t from_host, const proto::DetReplAck& m) {
  if (from_host != synced_buddy_) return;  // an old buddy's late answer
  ack_local(m.slot, m.incarnation, m.batch);
}

bool Daemon::on_event_log_frame(Connection* c, int32_t host, const proto::Frame& f, bool& ok) {
  using proto::with_parsed;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kDetRepl:
      ok = with_parsed<proto::DetRepl>(f, [&](auto& m) { on_det_repl(c, m); });
      return true;
    case MsgType::kDetReplAck:
      ok = with_parsed<proto::DetReplAck>(f, [&](auto& m) { on_det_repl_ack(host, m); });
      return true;
    default: return false;
  }
}

void Daemon::on_det_fetch(LocalRank& r) {
  // What the dead incarnation staged (the area is the slot's on this host).
  if (!take_staged(r.id.slot)) return;
  fetch_waiting_.insert(r.id.slot);
  if (det_complete_.count(r.id.slot))
    answer_fetch(r.id.slot);
  else if (!handovers_.count(r.id.slot))
    want_determinants(r.id.slot);
}

void Daemon::answer_fetch(int32_t slot) {
  if (!fetch_waiting_.erase(slot)) return;
  LocalRank* r = ranks_.find(slot);
  if (!r || !r->running() || !r->ctrl) return;
  std::string all = primary_.concatenated(slot);
  size_t off = 0;
  do {
    size_t n = std::min<size_t>(proto::kMaxDetBatch, all.size() - off);
    r->ctrl->send(proto::DetData{off + n == all.size(), all.substr(off, n)});
    off += n;
  } while (off < all.size());
}

void Daemon::want_determinants(int32_t slot) {
  Handover& h = handovers_[slot];
  h.request = ++next_request_;
  h.answered.clear();
  FTMPI_LOG(kInfo, "ftmpid", "event log: asking every daemon for rank %d's determinants", slot);
  to_leader(proto::make_frame(proto::DetWant{slot, args_.host, h.request}));
  uint32_t request = h.request;
  loop_.after_ms(kHandoverRetryMs, [this, slot, request] {
    auto it = handovers_.find(slot);
    if (it != handovers_.end() && it->second.request == request && !terminating_) want_determinants(slot);
  });
}

void Daemon::on_det_want(const proto::DetWant& m) {
  // Everything this daemon holds of the slot, primary and replica merged.
  take_staged(m.slot);
  EventLog held;
  for (const proto::DetBatch& b : primary_.batches(m.slot)) held.add(m.slot, b);
  for (const proto::DetBatch& b : replicas_.batches(m.slot)) held.add(m.slot, b);
  std::vector<std::vector<proto::DetBatch>> pieces = cut_batches(held.batches(m.slot), kPieceBytes);
  if (pieces.empty()) pieces.emplace_back();
  for (size_t i = 0; i < pieces.size(); ++i) {
    proto::DetHandover a{m.slot, m.to_host, args_.host, m.request, i + 1 == pieces.size(), std::move(pieces[i])};
    to_leader(proto::make_frame(a));
  }
}

void Daemon::on_det_handover(const proto::DetHandover& m) {
  if (m.to_host != args_.host) return;
  auto it = handovers_.find(m.slot);
  if (it == handovers_.end() || it->second.request != m.request) return;
  for (const proto::DetBatch& b : m.batches) primary_.add(m.slot, b);
  if (m.last) it->second.answered.insert(m.from_host);
  for (size_t h = 0; h < lost_.size(); ++h)
    if (!lost_[h] && !it->second.answered.count(static_cast<int32_t>(h))) return;
  handovers_.erase(it);
  det_complete_.insert(m.slot);
  FTMPI_LOG(kInfo, "ftmpid", "event log: rank %d's determinants are here (%zu batches)", m.slot,
            primary_.batches(m.slot).size());
  // This daemon is the slot's event logger now: its buddy gets a copy.
  int32_t host;
  if (Connection* c = buddy_link(host); c && host == synced_buddy_) replicate(c, m.slot, primary_.batches(m.slot));
  answer_fetch(m.slot);
}

void Daemon::broadcast_unlogged(const std::vector<uint8_t>& frame) {
  forward_down(proto::make_frame(proto::Down{term_, 0, frame}), nullptr);
  loop_.defer([this, frame] {
    proto::Frame f;
    if (proto::split_frame(frame, f)) from_leader(f);
  });
}

void Daemon::on_replay_report(LocalRank& r, const proto::ReplayReport& m) {
  to_leader(proto::make_frame(
      proto::ReplayUp{r.id, m.phase, m.determinants, m.messages, m.suppressed, wall_clock_ns()}));
}

void Daemon::on_proc_restarted(const proto::ProcRestartedDown& m) {
  if (state_.current(m.card.id)) state_.proc(m.card.id.slot).pid = m.card.pid;
  for (LocalRank& r : ranks_.ranks()) {
    if (!r.running() || !r.ctrl || !r.booted || !r.carded) continue;
    if (r.id == m.card.id) {
      if (!r.restart_pending()) continue;
      // It joins now: the table answers its CARD, and it hears of the
      // failures after the table like everybody else. Not after
      // state_.last_seq(): on the leader's host the leader has applied
      // failures since it built the table (a rank killed meanwhile stayed
      // alive in the new one's eyes, and its sends waited for it forever).
      r.joined = true;
      r.notified_upto = m.last_event_seq;
      r.ctrl->send(proto::CardTable{m.table});
      notify_failures(r);
    } else if (!r.restart_pending()) {
      r.ctrl->send(proto::ProcRestarted{m.card});
    }
  }
}

}  // namespace ftmpi::rte
