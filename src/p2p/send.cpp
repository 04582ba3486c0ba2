// Send side of the protocols: EAGER / RTS construction, the per-peer queue
// of frames waiting for ring space, and DATA streaming after a CTS.
#include <unistd.h>

#include <algorithm>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/frames.hpp"

namespace ftmpi::p2p {
namespace {
MatchHdr make_match(const Request& r, MsgType t, ProcId self, uint32_t epoch, uint32_t dst_inc, uint64_t len) {
  MatchHdr h = match_envelope(t, r.tag, r.ctx, self, epoch, dst_inc, len);
  h.flags = r.mode == SendMode::kSync ? kFlagSync : 0;
  h.sreq = r.id;
  h.seq = r.seq;
  h.sum = r.sum;
  return h;
}
}  // namespace

void Engine::start_send(Request* r) {
  r->kind = ReqKind::kSend;
  if (r->persistent) pool_.renew(r);
  r->reset_outcome();
  r->active = true;
  r->started = true;
  ++active_sends_;
  r->hold_comm();
  if (r->peer_gone || r->peer_rank >= r->comm->peer_group().size()) {
    r->st_err = Err::kRequest;  // a persistent request whose peer a SHRINK recovery removed
    complete(r);
    return;
  }
  if (r->peer_rank == kProcNull) {
    r->st_source = kProcNull;
    r->st_tag = kAnyTag;
    complete(r);
    return;
  }
  const ProcId dst = r->comm->peer_group().at(r->peer_rank);
  if (!dst.valid()) {  // a BLANK rank behaves like MPI_PROC_NULL
    r->st_source = kProcNull;
    r->st_tag = kAnyTag;
    complete(r);
    return;
  }
  r->peer_slot = dst.slot;
  r->peer_inc = dst.incarnation;
  r->xfer_slot = dst.slot;
  Peer& p = peer(dst.slot);
  if (!p.alive || p.inc != dst.incarnation) {
    // A module that hides failures keeps the communicators' old incarnations:
    // they name the slot's current one (module_seam.hpp, kHide).
    if (!module_ || !p.alive || dst.incarnation > p.inc) {
      r->st_err = Err::kOther;
      r->failed_by_death = true;
      complete(r);
      return;
    }
    r->peer_inc = p.inc;
  }
  if (module_ && !module_->may_number()) {
    r->proto = Proto::kQueued;  // never left: cancel() unqueues it
    unnumbered_.push_back(r);
    return;
  }
  number_and_send(p, r);
}

void Engine::number_and_send(Peer& p, Request* r) {
  r->seq = ++p.send_seq;
  if (module_ && announce_send(p, r->peer_slot, r)) return;
  if (p.self) {
    send_self(r);
    return;
  }
  if (p.pending.empty() && try_send_match(p, r)) return;
  queue_send(p, r->peer_slot, r, false);
}

void Engine::number_kept() {
  while (!unnumbered_.empty() && module_->may_number()) {
    Request* r = unnumbered_.front();
    unnumbered_.pop_front();
    Peer& p = peer(r->peer_slot);
    r->peer_inc = p.inc;  // the slot may have run a new incarnation since
    number_and_send(p, r);
  }
}

void Engine::queue_send(Peer& p, int32_t slot, Request* r, bool held) {
  r->proto = Proto::kQueued;
  if (p.pending.empty()) pending_peers_.push_back(slot);
  Pending f;
  f.req = r;
  f.held = held;
  p.pending.push_back(std::move(f));
}

bool Engine::try_send_match(Peer& p, Request* r) {
  const Link& l = *p.link;
  const uint64_t len = r->data.bytes();
  if (len <= l.eager) {
    const MatchHdr h = make_match(*r, MsgType::kEager, self_, epoch_, p.inc, len);
    // A collective's standard send completes as its EAGER is written, and
    // nothing cancels it after that (the user never sees the request, and
    // abandon() leaves a complete send alone), so its request id need not
    // travel: the short header makes an 8-byte message one cache line of
    // the shm ring instead of two (64 bytes: two lines instead of three).
    // With a module on, its checksum must be one the receiver computes from
    // a payload that fits the line.
    const bool summed_short = module_ ? short_with_module(r->sum_of_bytes, len) : h.sum == 0;
    const bool short_form = h.flags == 0 && summed_short && comm::is_coll_context(h.ctx);
    if (!(short_form ? write_eager_short(*l.tx, p.addr, h, r->data) : write_eager(*l.tx, p.addr, h, r->data)))
      return false;
    if (r->mode == SendMode::kSync) r->proto = Proto::kWaitAck;
    else complete(r);
    return true;
  }
  // Rendezvous: offer our memory for a single copy when it is a few blocks.
  iovec iov[kMaxRtsIov];
  size_t niov = 0;
  if (l.cma && cma_ok_ && !r->through_rings && r->data.block_count(kMaxRtsIov + 1) <= kMaxRtsIov) {
    size_t got = 0;
    niov = r->data.iovecs(0, iov, kMaxRtsIov, len, &got);
    if (got != len) niov = 0;
  }
  if (!write_rts(*l.tx, p.addr, make_match(*r, MsgType::kRts, self_, epoch_, p.inc, len), static_cast<int32_t>(getpid()),
                iov, niov))
    return false;
  r->proto = Proto::kWaitCts;
  rndv_at_ns_ = now_ns();
  return true;
}

bool Engine::try_send_ctl(Peer& p, const CtlHdr& ctl) {
  CtlHdr c = ctl;
  c.dst_inc = p.inc;
  return write_ctl(*p.link->tx, p.addr, c);
}

void Engine::send_ctl(int32_t slot, const CtlHdr& c) {
  Peer& p = peer(slot);
  if (!p.alive) return;
  if (p.self) {
    // Stamped as try_send_ctl stamps it: the frame guard drops replies meant
    // for another incarnation, and a restarted process is not incarnation 0.
    CtlHdr own = c;
    own.dst_inc = p.inc;
    on_frame(slot, reinterpret_cast<const uint8_t*>(&own), sizeof own, nullptr, 0);
    return;
  }
  if (p.pending.empty() && try_send_ctl(p, c)) return;
  if (p.pending.empty()) pending_peers_.push_back(slot);
  Pending f;
  f.ctl = c;
  p.pending.push_back(std::move(f));
}

void Engine::send_self(Request* r) {
  const uint64_t len = r->data.bytes();
  MatchTable::Queues& q = match_.queues(r->ctx);
  MatchHdr h = make_match(*r, MsgType::kRts, self_, epoch_, self_.incarnation, len);
  if (Request* rr = match_.take_posted(q, self_.slot, r->tag, r->seq)) {
    matched(rr, h);
    RtsInfo none{};
    deliver_rts(rr, h, none, nullptr);  // copies from r and completes both
    return;
  }
  Unexpected* u = match_.new_unexpected();
  u->hdr = h;
  if (len <= self_eager_) {
    // Small self-messages are buffered so that a send to oneself before the
    // matching receive does not block, as users of other MPIs expect.
    u->hdr.type = MsgType::kEager;
    u->payload.resize(len);
    if (len) r->data.pack(0, u->payload.data(), len);
    if (r->mode == SendMode::kSync) r->proto = Proto::kWaitAck;
    else complete(r);
  } else {
    r->proto = Proto::kWaitCts;  // the receive copies straight from r
  }
  match_.add_unexpected(q, u);
}

int Engine::flush_pending() {
  int n = 0;
  for (size_t i = 0; i < pending_peers_.size();) {
    int32_t slot = pending_peers_[i];
    Peer& p = peer(slot);
    while (!p.pending.empty()) {
      Pending& f = p.pending.front();
      if (f.held || f.gate) break;
      bool sent = f.req            ? try_send_match(p, f.req)
                  : !f.raw.empty() ? try_send_raw(p, f.raw.data(), f.raw.size())
                                   : try_send_ctl(p, f.ctl);
      if (!sent) break;
      p.pending.pop_front();
      ++n;
    }
    if (p.pending.empty()) {
      pending_peers_[i] = pending_peers_.back();
      pending_peers_.pop_back();
    } else {
      ++i;
    }
  }
  return n;
}

void Engine::on_cts(const CtlHdr& c) {
  Request* r = pool_.find(c.sreq);
  if (!r || r->proto != Proto::kWaitCts) return;  // stale (cancelled or failed meanwhile)
  if (r->abandoned) {
    // Its caller returned and may have freed the buffer: send nothing (the
    // receiver's collective stopped too; the cancel reply releases r).
    r->st_err = Err::kOther;
    complete(r);
    return;
  }
  r->remote_req = c.rreq;
  r->msg_len = std::min<uint64_t>(c.offset, r->data.bytes());  // bytes the receiver can take
  r->done_bytes = 0;
  if (r->msg_len == 0) {
    complete(r);
    return;
  }
  r->proto = Proto::kPushing;
  pushing_.push_back(r);
}

void Engine::on_fin_or_ack(const CtlHdr& c) {
  Request* r = pool_.find(c.sreq);
  if (!r) return;
  if (r->proto == Proto::kWaitAck || r->proto == Proto::kWaitCts || r->proto == Proto::kWaitFin) complete(r);
}

bool Engine::push_one(Request* r) {
  Peer& p = peer(r->xfer_slot);
  CtlHdr c{};
  c.type = MsgType::kData;
  c.dst_inc = p.inc;
  c.sreq = r->id;
  c.rreq = r->remote_req;
  return write_data(*p.link->tx, p.addr, c, r->data, &r->done_bytes, r->msg_len, p.link->chunk);
}

int Engine::push_data() {
  int n = 0;
  for (size_t i = 0; i < pushing_.size();) {
    Request* r = pushing_[i];
    if (push_one(r)) {
      pushing_[i] = pushing_.back();
      pushing_.pop_back();
      complete(r);
      ++n;
    } else {
      ++i;
    }
  }
  return n;
}

}  // namespace ftmpi::p2p
