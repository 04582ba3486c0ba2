// The blocking calls' path without a request (Engine::send_now, recv_wait):
// an eager message that can leave at once, or a small one that is already
// here or that the receive waits for in the unexpected queue. Both refuse
// whenever the general path would do more than write or take one EAGER: a
// send that would queue or go to this process, a receive whose message is
// an RTS or stale, whose source is dead or this process, or that would wait
// for a large one; a failure notice during the wait ends it there too.
// With a module on, the seam sees these messages as it sees the general
// path's (on_send, on_matched, on_delivered, with no request), as long as
// the module says the send goes at once (sends_go) and the receive names
// its source (a wildcard's match is the module's to force or record).
#include <cstdlib>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/frames.hpp"

namespace ftmpi::p2p {

bool Engine::send_now(const comm::Communicator& c, uint64_t ctx, int peer_rank, int tag, const void* buf,
                      size_t count, const dtype::TypeRef& type) {
  const dtype::Type& t = *type;
  if (!t.contiguous() || peer_rank < 0 || peer_rank >= c.peer_group().size()) return false;
  const ProcId dst = c.peer_group().at(peer_rank);
  if (!dst.valid()) return false;
  Peer& p = peer(dst.slot);
  const uint64_t len = static_cast<uint64_t>(count) * static_cast<uint64_t>(t.size());
  // A dead or replaced destination fails on the general path.
  if (!p.alive || p.inc != dst.incarnation || p.self || !p.link || !p.pending.empty() || len > p.link->eager)
    return false;
  MatchHdr h = match_envelope(MsgType::kEager, tag, ctx, self_, epoch_, p.inc, len);
  h.seq = p.send_seq + 1;
  transport::Payload pl;
  pl.len = len;
  pl.bytes = len ? static_cast<const uint8_t*>(buf) + t.true_lb() : nullptr;
  if (!module_) {
    // No request (sreq 0), no flags, no module checksum: the short form
    // says all of it (spec/wire-p2p.md).
    const ShortHdr s = shorten(h);
    if (!p.link->tx->send(p.addr, &s, sizeof s, pl)) return false;
  } else {
    // The module's checksum travels in the full header, unless the receiver
    // can compute it from a payload that fits the short header's line.
    bool sum_of_bytes = false;
    if (!announce_now(p, dst.slot, h, buf, count, type, &sum_of_bytes)) return false;
    bool sent;
    if (short_with_module(sum_of_bytes, len)) {
      const ShortHdr s = shorten(h);
      sent = p.link->tx->send(p.addr, &s, sizeof s, pl);
    } else {
      sent = p.link->tx->send(p.addr, &h, sizeof h, pl);
    }
    if (!sent) {
      // announce_now saw the room, and only this process writes to it: the
      // module's log and the peer's channel would disagree from here on.
      FTMPI_LOG(kError, "p2p", "a logged send to slot %d found no room after all", dst.slot);
      std::abort();
    }
  }
  p.send_seq = h.seq;
  if (module_) module_->on_delivered(nullptr);
  return true;
}

bool Engine::announce_now(Peer& p, int32_t slot, MatchHdr& h, const void* buf, size_t count,
                          const dtype::TypeRef& type, bool* sum_of_bytes) {
  // Once the module has the send it must leave now: refused for room
  // later, it would be logged twice by the general path.
  if (!module_->sends_go() || p.link->tx->room(p.addr, sizeof h, h.len) < h.len || !module_->may_number())
    return false;
  Envelope e = outgoing(p, slot, h.ctx, h.tag, h.len, h.seq, false);
  direct_send_.reset(const_cast<void*>(buf), count, type);
  const SendVerdict v = module_->on_send(e, direct_send_);
  direct_send_.clear();
  if (v != SendVerdict::kGo) {
    FTMPI_LOG(kError, "p2p", "the module held a send to slot %d it had let go (sends_go)", slot);
    std::abort();
  }
  h.sum = e.sum;
  *sum_of_bytes = e.sum_of_bytes;
  return true;
}

Engine::Take Engine::take_eager(const comm::Communicator& c, uint64_t ctx, int32_t slot, int tag, void* data,
                               uint64_t cap, MessageStatus* out) {
  MatchTable::Queues& q = match_.queues(ctx);
  Unexpected* u = match_.find_unexpected(q, slot, tag, false);
  if (!u) return Take::kAbsent;
  if (u->stale || u->hdr.type != MsgType::kEager) return Take::kRefused;
  match_.remove_unexpected(q, u);
  const MatchHdr& h = u->hdr;
  if (module_) module_->on_matched(envelope_of(h), nullptr, false);
  out->source = c.peer_group().rank_of_slot(h.src_slot);
  out->tag = h.tag;
  out->err = h.len > cap ? Err::kTruncate : Err::kOk;  // never write past the user's buffer
  out->bytes = h.len > cap ? cap : h.len;
  if (out->bytes) std::memcpy(data, u->payload.data(), out->bytes);
  ack_sync(h);
  match_.free_unexpected(u);
  return Take::kTaken;
}

bool Engine::taken(Take t) {
  if (t != Take::kTaken) return false;
  if (module_) module_->on_delivered(nullptr);
  return true;
}

bool Engine::source_slot(const comm::Communicator& c, int peer_rank, int32_t* slot) const {
  if (peer_rank == kAnySource) {
    *slot = kAnySlot;
    return true;
  }
  if (peer_rank < 0 || peer_rank >= c.peer_group().size()) return false;
  const ProcId src = c.peer_group().at(peer_rank);
  if (!src.valid()) return false;
  *slot = src.slot;
  return true;
}

bool Engine::recv_wait(const comm::Communicator& c, uint64_t ctx, int peer_rank, int tag, void* data, uint64_t cap,
                       MessageStatus* out) {
  int32_t slot = kAnySlot;
  if (!source_slot(c, peer_rank, &slot) || (module_ && slot == kAnySlot)) return false;
  // The message already here? (An empty queue is the cheap answer.)
  Take t = match_.queues(ctx).unexp_head ? take_eager(c, ctx, slot, tag, data, cap, out) : Take::kAbsent;
  if (t != Take::kAbsent) return taken(t);
  // Waiting without a posted receive: an arrival goes to the unexpected
  // queue and is taken from there. Worth it only while that queue holds
  // the payload in place (a larger one would be copied twice), and only
  // when a sender is there whose failure the general path would report.
  if (cap > MsgBytes::kInline || interrupted_) return false;
  if (slot == kAnySlot) {
    if (nobody_left_to_send(c)) return false;
  } else {
    if (!alive(c.peer_group().at(peer_rank)) || peer(slot).self) return false;
  }
  const uint64_t seen = failures_;
  wait_until([&] {
    if (match_.queues(ctx).unexp_head && (t = take_eager(c, ctx, slot, tag, data, cap, out)) != Take::kAbsent)
      return true;
    return interrupted_ || failures_ != seen;
  });
  if (t != Take::kAbsent) return taken(t);
  if (!interrupted_) return false;  // a failure notice: the general path decides
  // What interrupt_blocking() makes of a posted blocking receive.
  *out = MessageStatus{};
  out->err = Err::kOther;
  if (module_) module_->on_delivered(nullptr);
  return true;
}

}  // namespace ftmpi::p2p
