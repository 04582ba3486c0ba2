#include "p2p/engine.hpp"

#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>

#include "base/log.hpp"
#include "base/params.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {
namespace {
int online_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}
}  // namespace

// Transports exist from the start (inactive until open_links), so that
// progress() and block() never need to ask.
Engine::Engine() : links_(std::make_unique<Links>(*this)) {}

Engine::~Engine() {
  if (epfd_ >= 0) ::close(epfd_);
}

int Engine::local_ranks() const {
  if (links_->shm.active()) return links_->shm.ranks_in_use();
  return static_cast<int>(std::count_if(boot_.local_slots.begin(), boot_.local_slots.end(),
                                        [](int32_t s) { return s >= 0; }));
}

uint64_t Engine::shm_ring_bytes() const { return links_->shm.ring_bytes(); }

bool Engine::alive(ProcId p) const {
  if (p.slot < 0 || static_cast<size_t>(p.slot) >= peers_.size()) return false;
  const Peer& q = peers_[static_cast<size_t>(p.slot)];
  return q.alive && (q.inc == p.incarnation || (module_ && p.incarnation < q.inc));
}

Err Engine::init(rte::Client& client, const rte::BootInfo& boot) {
  client_ = &client;
  boot_ = boot;
  self_ = boot.self;
  epoch_ = boot.epoch;
  ncpus_ = online_cpus();
  spin_ns_ = static_cast<uint64_t>(params::get_int("FTMPI_SPIN_US", 100)) * 1000u;
  yield_when_crowded_ = params::get_int("FTMPI_P2P_YIELD", 1) != 0;
  cma_ok_ = params::get_bool("FTMPI_CMA", true);
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) return Err::kIntern;
  if (Err e = open_links(boot); !ok(e)) return e;

  rte::Card mine;
  mine.id = self_;
  mine.host = boot.host;
  mine.pid = static_cast<int32_t>(getpid());
  mine.tcp_addr = links_->tcp.addr();
  mine.tcp_port = links_->tcp.port();
  if (boot.singleton) {
    cards_.assign(1, mine);
  } else if (Err e = client.exchange_cards(mine, cards_); !ok(e)) {
    return e;
  }
  if (static_cast<int>(cards_.size()) != boot.world_size) return Err::kIntern;
  // A respawned process joins in the epoch of the round that started it.
  if (boot.restarted && !boot.singleton) epoch_ = client.restart_result().epoch;

  peers_.assign(cards_.size(), Peer{});
  for (size_t s = 0; s < cards_.size(); ++s) {
    const rte::Card& c = cards_[s];
    Peer& p = peers_[s];
    p.inc = c.id.incarnation;
    p.pid = c.pid;
    // Transparent mode: a slot still restarting when this process starts is
    // a hidden failure like any other (module_seam.hpp): sends to it wait
    // behind a gate until peer_restarted() installs its card.
    const bool restarting = c.host < 0 && boot.modes.transparent_mode() && static_cast<int32_t>(s) != self_.slot;
    p.alive = c.host >= 0 || restarting;
    if (static_cast<int32_t>(s) == self_.slot) {
      p.self = true;
    } else if (restarting) {
      p.down = true;
      Pending gate;
      gate.gate = true;
      p.pending.push_back(std::move(gate));
      pending_peers_.push_back(static_cast<int32_t>(s));
    } else if (c.host >= 0) {  // else dead when this (respawned) process started
      connect_peer(static_cast<int32_t>(s), c);
    }
  }

  FTMPI_LOG(kDebug, "p2p", "engine up: slot %d, %zu local ranks (shm %s), %d cpus, spin %lu ns, remote peers %s",
            self_.slot, boot.local_slots.size(), links_->shm.active() ? "on" : "off", ncpus_,
            static_cast<unsigned long>(spin_ns_), have_remote_ ? "yes" : "no");
  watch_fd(client.fd(), kWaitCtrl);
  scratch_.resize(64u << 10);
  return Err::kOk;
}

Err Engine::finalize() {
  finalize_handlers();
  // Everything we were asked to send must have left before the fence: a peer
  // may still be waiting for it, and after the fence nobody progresses.
  // Abandoned sends (a collective that stopped) are nobody's business any
  // more: their receiver gave up too, and may already sit in its own fence.
  wait_until([this] {
    if (active_sends_ > abandoned_sends_ || !pending_peers_.empty() || !pushing_.empty()) return false;
    for (const Peer& p : peers_)
      if (p.link && !p.link->tx->drained(p.addr)) return false;
    return true;
  });
  Err e = Err::kOk;
  if (!boot_.singleton) {
    // Transparent mode: a peer restarted while this process waits in the
    // fence replays from this process's sender log, and the fence waits for
    // that peer. The engine runs until the fence is done, so that the
    // restart notice re-sends the log (spec/transparent-mode.md §5).
    if (boot_.modes.transparent_mode()) {
      e = client_->finalize_begin();
      if (ok(e)) wait_until([this] { return client_->fence_done(); });
    }
    if (ok(e)) e = client_->finalize();
  }
  close_links();
  return e;
}

bool Engine::oversubscribed() const { return links_->shm.active() && links_->shm.awake_count() > ncpus_; }

int Engine::progress() {
  int n = 0;
  transport::ShmTransport& shm = links_->shm;
  if (shm.active()) n += shm.poll(*links_);
  if (!pending_peers_.empty()) n += flush_pending();
  if (!pushing_.empty()) n += push_data();
  if (!to_self_.empty()) n += deliver_self_control();
  if (have_remote_) n += links_->tcp.poll(*links_);
  if ((++tick_ & 63) == 0 || !shm.active()) {
    n += poll_fds(0);
    // Notices the client read while blocked (card exchange, fence) do not
    // make its socket readable again; a busy engine must see them too.
    if (client_ && client_->has_pending_events()) {
      client_->poll(*this);
      ++n;
    }
  }
  if (hook_) n += hook_->poll();
  if (module_) module_->on_progress();
  return n;
}

int Engine::poll_fds(int timeout_ms) {
  epoll_event evs[4];
  int n = epoll_wait(epfd_, evs, 4, timeout_ms);
  int handled = 0;
  for (int i = 0; i < n; ++i) {
    switch (evs[i].data.u64) {
      case kWaitCtrl:
        client_->poll(*this);
        ++handled;
        break;
      case kWaitTcp:
        handled += links_->tcp.poll(*links_);
        break;
      case kWaitDoorbell:
        break;  // end_sleep() or the next shm poll takes care of it
    }
  }
  return handled;
}

void Engine::block() {
  // Notices read while the client was blocked (card exchange, fence) sit in
  // its buffer and will not make the socket readable again: deliver first.
  if (client_ && client_->has_pending_events()) {
    client_->poll(*this);
    return;
  }
  if (module_ && module_->on_idle()) return;
  if (!links_->shm.prepare_sleep()) return;
  poll_fds(-1);
  links_->shm.end_sleep();
}

Request* Engine::isend(const void* buf, size_t count, const dtype::TypeRef& type, comm::Communicator& c,
                       uint64_t ctx, int peer_rank, int tag, SendMode mode, bool through_rings) {
  Request* r = pool_.alloc();
  r->data.reset(const_cast<void*>(buf), count, type);
  r->comm = &c;
  r->ctx = ctx;
  r->peer_rank = peer_rank;
  r->tag = tag;
  r->mode = mode;
  r->through_rings = through_rings;
  start_send(r);
  return r;
}

Request* Engine::irecv(void* buf, size_t count, const dtype::TypeRef& type, comm::Communicator& c, uint64_t ctx,
                       int peer_rank, int tag) {
  Request* r = pool_.alloc();
  r->data.reset(buf, count, type);
  r->comm = &c;
  r->ctx = ctx;
  r->peer_rank = peer_rank;
  r->tag = tag;
  start_recv(r);
  return r;
}

Err Engine::wait_all(Request* const* reqs, size_t n, const comm::Communicator* watch) {
  Err first = Err::kOk;
  uint64_t seen_failures = ~uint64_t{0};
  bool gave_up = false;
  auto member_dead = [&] {
    if (!watch || failures_ == seen_failures) return false;
    seen_failures = failures_;
    for (const ProcId& p : watch->group().members())
      if (p.valid() && !alive(p)) return true;
    return false;
  };
  wait_until([&] {
    bool all = true;
    for (size_t i = 0; i < n; ++i) {
      if (!reqs[i]->complete) {
        all = false;
      } else if (!ok(reqs[i]->st_err) && reqs[i]->st_err != Err::kTruncate) {
        gave_up = true;
        return true;
      }
    }
    if (all) return true;
    gave_up = interrupted_ || member_dead();
    return gave_up;
  });
  for (size_t i = 0; i < n; ++i) {
    if (ok(first) && reqs[i]->complete && !ok(reqs[i]->st_err)) first = reqs[i]->st_err;
    if (gave_up) abandon(reqs[i]);  // releases it now or once it ends
    else pool_.release(reqs[i]);
  }
  return gave_up && ok(first) ? Err::kOther : first;
}

void Engine::complete(Request* r) {
  // While a cancel answer is outstanding the user must not see completion:
  // the answer decides whether the send was cancelled (end_cancel_wait).
  r->complete = !r->cancel_pending;
  r->active = false;
  r->proto = Proto::kDone;
  if (r->kind == ReqKind::kSend) {
    --active_sends_;
    if (r->abandoned) --abandoned_sends_;
  }
  if (r->on_complete) r->on_complete(*r, r->cb_arg);
  if (r->user_freed && r->complete) pool_.release(r);
}

void Engine::on_frame(int32_t peer_slot, const uint8_t* hdr, size_t hlen, const uint8_t* payload,
                      size_t plen) {
  if (hlen == 0) return;
  MsgType t = static_cast<MsgType>(hdr[0]);
  switch (t) {
    case MsgType::kEager:
    case MsgType::kRts:
    case MsgType::kEagerShort: {
      MatchHdr h;
      size_t used = sizeof h;
      const bool short_form = t == MsgType::kEagerShort;
      if (short_form) {
        if (hlen < sizeof(ShortHdr)) break;
        ShortHdr s;
        std::memcpy(&s, hdr, sizeof s);
        h = expand_short(s, plen);
        used = sizeof s;
      } else {
        if (hlen < sizeof(MatchHdr)) break;
        std::memcpy(&h, hdr, sizeof h);
      }
      // The sender's slot in the header must be the one the frame came from.
      if (h.src_slot != peer_slot) break;
      switch (guard(peer_slot, FrameStamp{FrameClass::kMatch, h.dst_inc, h.src_inc, h.epoch,
                                          comm::is_coll_context(h.ctx)})) {
        case Verdict::kAccept:
          if (h.type == MsgType::kRts) rndv_at_ns_ = now_ns();
          // With a module on, a short frame carries no sum: it is of its bytes.
          if (short_form && module_) h.sum = module_->checksum(envelope_of(h), payload);
          on_match_frame(h, hdr + used, hlen - used, payload, plen);
          break;
        case Verdict::kHold:
          hold(peer_slot, h.src_inc > peer(peer_slot).inc, hdr, hlen, payload, plen);
          break;
        case Verdict::kDrop:
          break;
      }
      return;
    }
    case MsgType::kControl:
      if (hlen < sizeof(ControlHdr)) break;
      on_control(peer_slot, hdr, hlen, payload, plen);
      return;
    case MsgType::kCts:
    case MsgType::kData:
    case MsgType::kFin:
    case MsgType::kAck:
    case MsgType::kCancel:
    case MsgType::kCancelReply: {
      if (hlen < sizeof(CtlHdr)) break;
      CtlHdr c;
      std::memcpy(&c, hdr, sizeof c);
      switch (guard(peer_slot, FrameStamp{FrameClass::kReply, c.dst_inc, 0, 0, false})) {
        case Verdict::kAccept:
          break;
        case Verdict::kHold:
          hold(peer_slot, true, hdr, hlen, payload, plen);
          return;
        case Verdict::kDrop:
          return;
      }
      if (t == MsgType::kCts) on_cts(c);
      else if (t == MsgType::kData) on_data(c, payload, plen);
      else if (t == MsgType::kCancel) on_cancel(peer_slot, c);
      else if (t == MsgType::kCancelReply) on_cancel_reply(c);
      else on_fin_or_ack(c);
      return;
    }
    default:
      break;
  }
  FTMPI_LOG(kWarn, "p2p", "dropping malformed frame (type %u, %zu header bytes) from slot %d", hdr[0], hlen,
            peer_slot);
}

void Engine::on_peer_lost(int32_t peer_slot) {
  // Only a suspicion: the runtime decides who is dead and tells everybody.
  if (peer_slot >= 0 && static_cast<size_t>(peer_slot) < peers_.size() && peer(peer_slot).alive)
    client_->report_suspect(ProcId{peer_slot, peer(peer_slot).inc});
}

void Engine::on_proc_failed(ProcId who, uint64_t event_seq) {
  const bool current =
      who.slot >= 0 && static_cast<size_t>(who.slot) < peers_.size() && peer(who.slot).inc == who.incarnation;
  if (module_ && current && who.slot != self_.slot && module_->on_failure(who) == FailurePolicy::kHide) {
    hide_failure(who.slot);  // nobody above hears of it (module_seam.hpp)
    return;
  }
  if (current) mark_dead(who.slot);
  EventSink::on_proc_failed(who, event_seq);
}

void Engine::mark_dead(int32_t slot) {
  Peer& p = peer(slot);
  if (!p.alive) return;
  p.alive = false;
  ++failures_;
  p.pending.clear();
  disconnect_peer(p);
  // FT-MPI §5 rule 1: messages from and to dead processes are discarded.
  purge_unexpected_from(slot);
  fail_requests_of(slot, Err::kOther);
}

void Engine::on_job_abort(int exit_code) {
  EventSink::on_job_abort(exit_code);
  _exit(exit_code);
}

bool Engine::nobody_left_to_send(const comm::Communicator& c) const {
  if (!lonely_wildcards_fail_) return false;
  for (const ProcId& p : c.peer_group().members())
    if (p.valid() && p != self_ && alive(p)) return false;
  return true;
}

void Engine::fail_requests_of(int32_t slot, Err err) {
  // Receives posted for this source and transfers in progress with it end in
  // error; wildcard receives are left to the fault-tolerance layer's policy.
  // Victims are collected first: completion callbacks may start new requests.
  // A cancel answer from this peer will never come.
  std::vector<Request*> waiting;
  pool_.for_each_live([&](Request* r) {
    if (r->cancel_pending && r->peer_slot == slot) waiting.push_back(r);
  });
  for (Request* r : waiting) end_cancel_wait(r, false);
  std::vector<Request*> victims;
  match_.for_each([&](uint64_t, MatchTable::Queues& q) {
    for (Request* r = q.posted_head; r; r = r->qnext)
      if (r->peer_slot == slot ||
          (r->peer_slot == kAnySlot && r->blocking && r->comm && nobody_left_to_send(*r->comm)))
        victims.push_back(r);
  });
  for (Request* r : victims) match_.unpost(r);
  pushing_.erase(std::remove_if(pushing_.begin(), pushing_.end(), [&](Request* r) { return r->xfer_slot == slot; }),
                 pushing_.end());
  pool_.for_each_live([&](Request* r) {
    if (!r->active || r->complete || r->proto == Proto::kPosted) return;
    bool involved = (r->kind == ReqKind::kSend && r->peer_slot == slot) ||
                    (r->kind == ReqKind::kRecv && r->proto == Proto::kReceiving && r->xfer_slot == slot);
    if (involved) victims.push_back(r);
  });
  for (Request* r : victims) {
    r->st_err = err;
    r->failed_by_death = true;
    complete(r);
  }
}

}  // namespace ftmpi::p2p
