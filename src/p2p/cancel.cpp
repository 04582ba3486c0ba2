// MPI_Cancel: receives are withdrawn from the posted queue; sends with a
// CANCEL / CANCEL_REPLY exchange with the receiver.
//
//   CANCEL        CtlHdr{sreq = id the message carried, rreq = id of the
//                 request waiting for the answer, offset = the message's
//                 channel sequence number}
//   CANCEL_REPLY  the same ids; flags bit0 = withdrawn
//
// Frames between two processes arrive in order, so when the receiver handles
// a CANCEL it has already handled the message's EAGER or RTS: the message is
// either still in its unexpected queue (dropped: it will never be delivered)
// or matched (too late: the send completes normally, and any ACK, CTS or FIN
// the receiver sent precedes the reply). The two ids differ only for a
// buffered send, whose message travels in an internal request. The
// receiver finds the message by its sequence number, which names one
// message of the channel for ever (request ids are reused), also when a
// restarted sender sends it again under another id.
#include <algorithm>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {

void Engine::cancel(Request* w) {
  if (w->kind == ReqKind::kRecv) {
    cancel_recv(w);
    return;
  }
  // Nothing was sent (MPI_PROC_NULL, BLANK rank), the send failed, or a
  // cancel is already under way: nothing to do.
  if (w->peer_slot < 0 || w->cancel_pending || w->cancelled || !ok(w->st_err)) return;
  const bool buffered = w->mode == SendMode::kBuffered;
  const uint64_t msg_id = buffered ? w->remote_req : w->id;
  Request* m = buffered ? pool_.find(msg_id) : w;
  // A buffered send's user request carries its message's number too, once
  // the message is numbered (its internal request may be gone).
  const uint64_t msg_seq = m && m->seq ? m->seq : w->seq;
  if (m && m->proto == Proto::kQueued && unqueue(m)) {  // never left this process
    mark_withdrawn(m);
    complete(m);
    mark_withdrawn(w);
    return;
  }
  Peer& p = peer(w->peer_slot);
  if (!p.alive) return;
  if (p.self) {
    if (!withdraw_unexpected(self_.slot, msg_seq)) return;  // already received
    if (m && m->proto != Proto::kDone) {
      mark_withdrawn(m);
      complete(m);
    }
    mark_withdrawn(w);
    return;
  }
  w->cancel_pending = true;
  w->complete = false;
  CtlHdr c{};
  c.type = MsgType::kCancel;
  c.sreq = msg_id;
  c.rreq = w->id;
  c.offset = msg_seq;
  send_ctl(w->peer_slot, c);
}

void Engine::mark_withdrawn(Request* r) {
  // A send withdrawn because a failure interrupted its blocking call did not
  // deliver and reports the failure; one the user cancelled is "cancelled".
  if (r->ft_interrupted) {
    r->st_err = Err::kOther;
    return;
  }
  r->cancelled = true;
  if (module_ && r->kind == ReqKind::kSend && r->seq != 0 && r->peer_slot != self_.slot)
    module_->on_withdrawn(r->peer_slot, r->seq);
}

bool Engine::unqueue(Request* m) {
  if (auto w = std::find(withheld_.begin(), withheld_.end(), m); w != withheld_.end()) {
    withheld_.erase(w);
    return true;
  }
  if (auto u = std::find(unnumbered_.begin(), unnumbered_.end(), m); u != unnumbered_.end()) {
    unnumbered_.erase(u);
    return true;
  }
  Peer& p = peer(m->peer_slot);
  for (auto it = p.pending.begin(); it != p.pending.end(); ++it) {
    if (it->req == m) {
      p.pending.erase(it);
      return true;
    }
  }
  return false;
}

bool Engine::withdraw_unexpected(int32_t src_slot, uint64_t seq) {
  bool found = false;
  match_.for_each([&](uint64_t, MatchTable::Queues& q) {
    for (Unexpected* u = q.unexp_head; u && !found; u = u->next) {
      if (u->hdr.src_slot == src_slot && u->hdr.seq == seq) {
        match_.remove_unexpected(q, u);
        match_.free_unexpected(u);
        found = true;
      }
    }
  });
  return found;
}

void Engine::on_cancel(int32_t from_slot, const CtlHdr& c) {
  if (from_slot < 0 || static_cast<size_t>(from_slot) >= peers_.size()) return;
  if (module_ && module_->defer_cancels()) {
    FTMPI_LOG(kDebug, "p2p", "CANCEL from slot %d deferred until the replay caught up", from_slot);
    deferred_cancels_.push_back({from_slot, peer(from_slot).inc, c});
    return;
  }
  CtlHdr reply{};
  reply.type = MsgType::kCancelReply;
  const uint64_t seq = c.offset;
  bool withdrawn = withdraw_unexpected(from_slot, seq);
  // Asked again by a restarted sender (of its re-sent copy, or of the
  // message itself): the answer its dead incarnation got.
  if (module_ && withdrawn) withdrawn_seqs_.emplace(from_slot, seq);
  else if (module_) withdrawn = withdrawn_seqs_.count({from_slot, seq}) > 0;
  reply.flags = withdrawn ? 1 : 0;
  FTMPI_LOG(kDebug, "p2p", "CANCEL from slot %d for message %llu: %s", from_slot,
            static_cast<unsigned long long>(c.sreq), withdrawn ? "withdrawn" : "too late");
  reply.sreq = c.sreq;
  reply.rreq = c.rreq;
  send_ctl(from_slot, reply);
}

void Engine::answer_deferred_cancels() {
  std::vector<DeferredCancel> now;
  now.swap(deferred_cancels_);
  for (const DeferredCancel& d : now)
    if (peer(d.slot).inc == d.inc && !peer(d.slot).down) on_cancel(d.slot, d.c);
}

void Engine::on_cancel_reply(const CtlHdr& c) {
  const bool withdrawn = (c.flags & 1) != 0;
  Request* m = pool_.find(c.sreq);
  FTMPI_LOG(kDebug, "p2p", "CANCEL_REPLY for message %llu (request %llu): %s%s", static_cast<unsigned long long>(c.sreq),
            static_cast<unsigned long long>(c.rreq), withdrawn ? "withdrawn" : "too late",
            pool_.find(c.rreq) ? "" : ", nobody waits");
  if (withdrawn && m && m->proto != Proto::kDone) {
    // Never matched, so no CTS, FIN or ACK will come for it.
    mark_withdrawn(m);
    if (m->id == c.rreq) m->cancel_pending = false;
    complete(m);  // may release m (and so w, when they are the same)
  }
  if (Request* w = pool_.find(c.rreq)) end_cancel_wait(w, withdrawn);
}

void Engine::end_cancel_wait(Request* w, bool withdrawn) {
  if (!w->cancel_pending) return;
  w->cancel_pending = false;
  if (withdrawn) mark_withdrawn(w);
  if (w->proto == Proto::kDone) {
    w->complete = true;
    if (w->user_freed) pool_.release(w);
  }
}

}  // namespace ftmpi::p2p

namespace ftmpi::p2p {

void Engine::abandon(Request* r) {
  if (!r->complete && r->kind == ReqKind::kSend && r->proto == Proto::kPushing) {
    // Matched and streaming from the caller's buffer, which the caller may
    // free as soon as it returns: stop here. The receiver stopped too (a
    // failure is why we abandon), its receive never completes.
    std::erase(pushing_, r);
    r->st_err = Err::kOther;
    complete(r);
  } else if (!r->complete && r->kind == ReqKind::kSend && !r->abandoned) {
    r->abandoned = true;
    if (r->active) ++abandoned_sends_;
    r->ft_interrupted = true;  // withdrawn: ends with MPI_ERR_OTHER, never "cancelled"
    cancel(r);
  } else if (!r->complete && r->kind == ReqKind::kRecv && r->proto == Proto::kReceiving) {
    // Matched and taking DATA into the caller's buffer, which may be gone
    // once the caller returns: end it here; later DATA finds no request
    // and is dropped (on_data).
    r->st_err = Err::kOther;
    complete(r);
  } else if (!r->complete && r->kind == ReqKind::kRecv) {
    cancel_recv(r);
  }
  if (r->complete) release_request(r);
  else r->user_freed = true;  // complete() releases it
}

}  // namespace ftmpi::p2p
