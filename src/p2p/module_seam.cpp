// The engine's side of the module seam (module_seam.hpp, spec/module-seam.md):
// announcing sends, holding them for the module, forcing wildcard matches,
// screening arrivals for duplicates, and hiding a failure until the slot's
// next incarnation runs (re-sending what the engine itself had not finished,
// and letting the module inject what it logged).
#include <algorithm>
#include <iterator>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {

Envelope Engine::envelope_of(const MatchHdr& h) const {
  Envelope e;
  e.src_slot = h.src_slot;
  e.src_inc = h.src_inc;
  e.dst_slot = self_.slot;
  e.dst_inc = self_.incarnation;
  e.ctx = h.ctx;
  e.tag = h.tag;
  e.epoch = h.epoch;
  e.len = h.len;
  e.seq = h.seq;
  e.sum = h.sum;
  e.sync = (h.flags & kFlagSync) != 0;
  return e;
}

Envelope Engine::outgoing(const Peer& p, int32_t slot, uint64_t ctx, int tag, uint64_t len, uint64_t seq,
                          bool sync) const {
  Envelope e;
  e.src_slot = self_.slot;
  e.src_inc = self_.incarnation;
  e.dst_slot = slot;
  e.dst_inc = p.inc;
  e.ctx = ctx;
  e.tag = tag;
  e.epoch = epoch_;
  e.len = len;
  e.seq = seq;
  e.sync = sync;
  return e;
}

bool Engine::announce_send(Peer& p, int32_t slot, Request* r) {
  Envelope e = outgoing(p, slot, r->ctx, r->tag, r->data.bytes(), r->seq, r->mode == SendMode::kSync);
  const SendVerdict v = module_->on_send(e, r->data);
  r->sum = e.sum;
  r->sum_of_bytes = e.sum_of_bytes;
  if (v == SendVerdict::kGo || p.self) return false;
  if (v == SendVerdict::kWithhold) {
    r->proto = Proto::kQueued;  // as a send that never left: cancel() unqueues it
    withheld_.push_back(r);
    return true;
  }
  queue_send(p, slot, r, true);
  holding_ = true;
  return true;
}

void Engine::release_held() {
  holding_ = false;
  for (int32_t slot : pending_peers_)
    for (Pending& f : peer(slot).pending) f.held = false;
}

void Engine::force_wildcard(Request* r) {
  int32_t slot = kAnySlot;
  uint64_t seq = 0;
  if (module_->force_source(r->ctx, r->tag, false, &slot, &seq)) aim_wildcard(r, slot, seq);
}

bool Engine::aim_wildcard(Request* r, int32_t slot, uint64_t seq) {
  if (slot < 0 || static_cast<size_t>(slot) >= peers_.size()) {
    FTMPI_LOG(kWarn, "p2p", "module forced a wildcard receive to unknown slot %d; ignored", slot);
    return false;
  }
  // Still reported as a wildcard receive (peer_rank stays MPI_ANY_SOURCE).
  r->peer_slot = slot;
  r->peer_inc = peer(slot).inc;
  r->want_seq = seq;
  return true;
}

bool Engine::screen_arrival(const MatchHdr& h, const RtsInfo& info, const uint8_t* iovs) {
  if (h.type == MsgType::kRts && peer(h.src_slot).awaiting_resend > 0 && resume_from(h, info, iovs)) return true;
  if (module_->on_arrival(envelope_of(h)) == ArrivalVerdict::kAccept) return false;
  // A duplicate: this process has the message already. A re-executed sender
  // that waits for the match gets the answer it would have had (its cancel
  // too: withdrawn_seqs_).
  // A synchronous send still unmatched here completes at its match, not now.
  if (h.type == MsgType::kEager && (h.flags & kFlagSync) && rebind_duplicate(h)) return true;
  CtlHdr c{};
  c.sreq = h.sreq;
  if (h.type == MsgType::kRts) c.type = MsgType::kFin;
  else if (h.flags & kFlagSync) c.type = MsgType::kAck;
  else return true;
  send_ctl(h.src_slot, c);
  return true;
}

bool Engine::rebind_duplicate(const MatchHdr& h) {
  MatchTable::Queues& q = match_.queues(h.ctx);
  for (Unexpected* u = q.unexp_head; u; u = u->next) {
    if (u->hdr.src_slot != h.src_slot || u->hdr.seq != h.seq) continue;
    // Its match acknowledges the re-executed send, by its new request id.
    u->hdr.sreq = h.sreq;
    u->hdr.src_inc = h.src_inc;
    return true;
  }
  return false;
}

bool Engine::resume_from(const MatchHdr& h, const RtsInfo& info, const uint8_t* iovs) {
  Peer& p = peer(h.src_slot);
  MatchTable::Queues& q = match_.queues(h.ctx);
  for (Unexpected* u = q.unexp_head; u; u = u->next) {
    if (!u->stale || u->hdr.src_slot != h.src_slot || u->hdr.seq != h.seq) continue;
    u->hdr = h;  // not matched yet: the new RTS takes the stale one's place
    u->rts = info;
    u->payload.assign(iovs, iovs + sizeof(RtsIov) * info.niov);
    u->stale = false;
    --p.awaiting_resend;
    return true;
  }
  Request* waiting = nullptr;
  pool_.for_each_live([&](Request* r) {
    if (!waiting && r->proto == Proto::kAwaitResend && r->xfer_slot == h.src_slot && r->seq == h.seq) waiting = r;
  });
  if (!waiting) return false;
  --p.awaiting_resend;
  deliver_rts(waiting, h, info, iovs);
  return true;
}

void Engine::hide_failure(int32_t slot) {
  Peer& p = peer(slot);
  if (p.down || !p.alive) return;
  p.down = true;
  disconnect_peer(p);
  // A cancel answer from the dead incarnation will never come: the cancel
  // stays pending and asks the next incarnation (resend_cancels). Ending
  // it "not cancelled" here would make a survivor see a send that nobody
  // matched fail to cancel, which a failure-free run never shows.
  std::vector<Request*> again;
  // Own sends the dead incarnation had not finished go again, whole, to the
  // next one with their sequence numbers: it drops those it has.
  pool_.for_each_live([&](Request* r) {
    if (r->kind != ReqKind::kSend || !r->active || r->peer_slot != slot) return;
    if (r->proto == Proto::kWaitAck || r->proto == Proto::kWaitCts || r->proto == Proto::kWaitFin ||
        r->proto == Proto::kPushing)
      again.push_back(r);
  });
  std::erase_if(pushing_, [&](Request* r) { return r->xfer_slot == slot; });
  std::sort(again.begin(), again.end(), [](const Request* a, const Request* b) { return a->seq < b->seq; });
  std::deque<Pending> q;
  Pending gate;
  gate.gate = true;
  q.push_back(std::move(gate));
  for (Request* r : again) {
    r->proto = Proto::kQueued;
    r->done_bytes = 0;
    Pending f;
    f.req = r;
    q.push_back(std::move(f));
  }
  // Protocol replies name the dead incarnation's requests: they go.
  for (Pending& f : p.pending)
    if (f.req || !f.raw.empty()) q.push_back(std::move(f));
  if (p.pending.empty()) pending_peers_.push_back(slot);
  p.pending = std::move(q);
  // Receives whose data died with the sender wait for the next incarnation's RTS.
  pool_.for_each_live([&](Request* r) {
    if (r->kind == ReqKind::kRecv && r->proto == Proto::kReceiving && r->xfer_slot == slot) {
      r->proto = Proto::kAwaitResend;
      ++p.awaiting_resend;
    }
  });
  match_.for_each([&](uint64_t, MatchTable::Queues& mq) {
    for (Unexpected* u = mq.unexp_head; u; u = u->next) {
      if (u->hdr.src_slot == slot && u->hdr.type == MsgType::kRts && !u->stale) {
        u->stale = true;
        ++p.awaiting_resend;
      }
    }
  });
  FTMPI_LOG(kDebug, "p2p", "failure of slot %d hidden: %zu sends will go again, %d receives wait", slot,
            again.size(), p.awaiting_resend);
}

void Engine::peer_restarted(const rte::Card& card) {
  const int32_t slot = card.id.slot;
  if (slot < 0 || static_cast<size_t>(slot) >= peers_.size() || slot == self_.slot) return;
  Peer& p = peer(slot);
  // A slot that was restarting when this process started has its new
  // incarnation's id already, but no card yet (Engine::init).
  const bool first_card = !p.link && card.id.incarnation == p.inc;
  if (!p.down || (card.id.incarnation <= p.inc && !first_card)) return;
  install_peer(slot, card);
  std::erase_if(p.pending, [](const Pending& f) { return !f.req && f.raw.empty() && !f.gate; });
  for (Pending& f : p.pending)
    if (f.req) f.req->peer_inc = p.inc;
  if (module_) module_->on_peer_back(card.id);
  std::erase_if(p.pending, [](const Pending& f) { return f.gate; });
  p.down = false;
  resend_cancels(slot);
  if (p.pending.empty()) std::erase(pending_peers_, slot);
  replay_held();
}

void Engine::resend_cancels(int32_t slot) {
  Peer& p = peer(slot);
  pool_.for_each_live([&](Request* w) {
    if (!w->cancel_pending || w->peer_slot != slot) return;
    // The message goes again, re-queued by the engine (same id) or injected
    // from the log (a new id): the CANCEL's reply must find that copy, and
    // the CANCEL follows it on the link, so the new incarnation has it when
    // the CANCEL comes. Not sent again, the receiver's checkpoint holds it
    // (garbage collection took it from the log) or the receiver has it:
    // the CANCEL names the message itself, as the first one did. Either way
    // the receiver finds it by its sequence number, and one that withdrew
    // it already answers "withdrawn" again.
    uint64_t copy = w->mode == SendMode::kBuffered ? w->remote_req : w->id;
    for (const Pending& f : p.pending)
      if (f.req && f.req->seq == w->seq) copy = f.req->id;
    FTMPI_LOG(kDebug, "p2p", "cancel of send seq %llu to slot %d asked again (message %llu)",
              static_cast<unsigned long long>(w->seq), slot, static_cast<unsigned long long>(copy));
    CtlHdr c{};
    c.type = MsgType::kCancel;
    c.sreq = copy;
    c.rreq = w->id;
    c.offset = w->seq;
    send_ctl(slot, c);
  });
}

uint64_t Engine::last_send_seq(int32_t slot) const {
  return slot >= 0 && static_cast<size_t>(slot) < peers_.size() ? peers_[static_cast<size_t>(slot)].send_seq : 0;
}

bool Engine::inject(int32_t slot, const Envelope& e, const void* data, uint64_t len) {
  if (slot < 0 || static_cast<size_t>(slot) >= peers_.size() || slot == self_.slot) return false;
  Peer& p = peer(slot);
  if (!p.alive) return false;
  // The queue's sends are in sequence order (numbered as queued, injected
  // ones put in their place) and a log is injected in order: the search
  // starts where the previous entry went (inject_hint), walks back past
  // sends numbered at or after this one, then forward past lower ones and
  // control frames, to the first send numbered at or after it. Any start
  // finds that place; this one makes a resend linear. A resend behind an
  // earlier one still queued (the slot died again before taking it) met
  // that one's 67k entries at every step, from the front or from the end:
  // 10-20 s in ckpt.gc.kill_in_replay.np4.
  size_t i = std::min(p.inject_hint, p.pending.size());
  for (size_t k = i; k > 0;) {
    --k;
    const Pending& f = p.pending[k];
    if (!f.req) continue;
    if (f.req->seq < e.seq) break;
    i = k;
  }
  while (i < p.pending.size() && (!p.pending[i].req || p.pending[i].req->seq < e.seq)) ++i;
  p.inject_hint = i + 1;
  if (i < p.pending.size() && p.pending[i].req->seq == e.seq) return false;  // the engine sends it again itself
  Request* r = pool_.alloc();
  r->kind = ReqKind::kSend;
  r->bounce = std::make_unique<uint8_t[]>(len ? len : 1);
  if (len) std::memcpy(r->bounce.get(), data, len);
  r->data = TypedBuffer(r->bounce.get(), len, dtype::builtin_ref(dtype::Builtin::kByte));
  r->ctx = e.ctx;
  r->tag = e.tag;
  r->seq = e.seq;
  r->sum = e.sum;
  r->peer_rank = -1;
  r->peer_slot = slot;
  r->peer_inc = p.inc;
  r->xfer_slot = slot;
  r->active = true;
  r->started = true;
  r->user_freed = true;  // nobody waits for it: released when it completes
  r->proto = Proto::kQueued;
  ++active_sends_;
  const bool was_empty = p.pending.empty();
  Pending f;
  f.req = r;
  p.pending.insert(p.pending.begin() + static_cast<std::ptrdiff_t>(i), std::move(f));
  if (was_empty) pending_peers_.push_back(slot);
  return true;
}

}  // namespace ftmpi::p2p
