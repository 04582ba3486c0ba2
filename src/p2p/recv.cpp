// Receive side: matching arrivals against posted receives, the unexpected
// queue, eager delivery, rendezvous by single copy (process_vm_readv) or by
// pipelined DATA frames, and probes.
#include <errno.h>
#include <sys/uio.h>

#include <algorithm>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {
namespace {
constexpr size_t kCmaBatch = 1024;  // IOV_MAX
constexpr size_t kMaxRemoteBatch = 1024;
}

void Engine::start_recv(Request* r) {
  r->kind = ReqKind::kRecv;
  if (r->persistent) pool_.renew(r);
  r->reset_outcome();
  r->active = true;
  r->started = true;
  r->hold_comm();
  if (r->peer_gone || (r->peer_rank >= 0 && r->peer_rank >= r->comm->peer_group().size())) {
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
  if (r->peer_rank == kAnySource) {
    r->peer_slot = kAnySlot;
    if (module_) force_wildcard(r);  // replay: the logged source only
  } else {
    const ProcId src = r->comm->peer_group().at(r->peer_rank);
    if (!src.valid()) {  // BLANK: a null status, buffer untouched
      r->st_source = kProcNull;
      r->st_tag = kAnyTag;
      complete(r);
      return;
    }
    r->peer_slot = src.slot;
    r->peer_inc = src.incarnation;
  }
  MatchTable::Queues& q = match_.queues(r->ctx);
  if (Unexpected* u = match_.find_unexpected(q, r->peer_slot, r->tag, true, r->want_seq)) {
    match_unexpected(r, u);
    return;
  }
  if (r->peer_slot == kAnySlot && r->blocking && nobody_left_to_send(*r->comm)) {
    r->st_err = Err::kOther;  // nobody is left to send it (IGNORE)
    complete(r);
    return;
  }
  if (r->peer_slot != kAnySlot) {
    const Peer& p = peer(r->peer_slot);
    // (A module hiding failures: an older incarnation names the current one.)
    if (!p.alive || (p.inc != r->peer_inc && (!module_ || r->peer_inc > p.inc))) {
      r->st_err = Err::kOther;
      r->failed_by_death = true;
      complete(r);
      return;
    }
  }
  r->proto = Proto::kPosted;
  match_.post(q, r);
}

bool Engine::cancel_recv(Request* r) {
  if (r->kind != ReqKind::kRecv || r->proto != Proto::kPosted) return false;
  match_.unpost(r);
  r->cancelled = true;
  complete(r);
  return true;
}

void Engine::set_recv_status(Request* r, const MatchHdr& h) {
  r->st_slot = h.src_slot;
  r->st_source = r->comm ? r->comm->peer_group().rank_of_slot(h.src_slot) : h.src_slot;
  r->st_tag = h.tag;
  r->msg_len = h.len;
  r->seq = h.seq;
  uint64_t cap = r->data.bytes();
  if (h.len > cap) {
    r->st_err = Err::kTruncate;  // never write past the user's buffer
    r->st_bytes = cap;
  } else {
    r->st_bytes = h.len;
  }
}

void Engine::on_match_frame(const MatchHdr& h, const uint8_t* rest, size_t rest_len, const uint8_t* payload,
                            size_t plen) {
  // classify() has accepted the frame: a known, live sender, meant for me.
  RtsInfo info{};
  if (h.type == MsgType::kRts) {
    if (rest_len < sizeof info) return;
    std::memcpy(&info, rest, sizeof info);
    if (rest_len < sizeof info + sizeof(RtsIov) * info.niov) return;
  } else if (plen != h.len) {
    return;
  }
  if (module_ && screen_arrival(h, info, rest + sizeof info)) return;
  MatchTable::Queues& q = match_.queues(h.ctx);
  if (Request* r = match_.take_posted(q, h.src_slot, h.tag, h.seq)) {
    matched(r, h);
    if (h.type == MsgType::kEager) deliver_eager(r, h, payload, plen);
    else deliver_rts(r, h, info, rest + sizeof info);
    return;
  }
  Unexpected* u = match_.new_unexpected();
  u->hdr = h;
  if (h.type == MsgType::kEager) {
    u->payload.assign(payload, payload + plen);
  } else {
    u->rts = info;
    u->payload.assign(rest + sizeof info, rest + sizeof info + sizeof(RtsIov) * info.niov);
  }
  match_.add_unexpected(q, u);
}

void Engine::match_unexpected(Request* r, Unexpected* u) {
  matched(r, u->hdr);
  if (u->stale) {
    // Its data died with the sender; the next incarnation sends the RTS again.
    set_recv_status(r, u->hdr);
    r->xfer_slot = u->hdr.src_slot;
    r->proto = Proto::kAwaitResend;
    match_.free_unexpected(u);
    return;
  }
  if (u->hdr.type == MsgType::kEager) deliver_eager(r, u->hdr, u->payload.data(), u->payload.size());
  else deliver_rts(r, u->hdr, u->rts, u->payload.data());
  match_.free_unexpected(u);
}

void Engine::deliver_eager(Request* r, const MatchHdr& h, const uint8_t* payload, size_t plen) {
  set_recv_status(r, h);
  if (r->st_bytes) r->data.unpack(0, payload, r->st_bytes);
  ack_sync(h);
  complete(r);
}

void Engine::deliver_rts(Request* r, const MatchHdr& h, const RtsInfo& info, const uint8_t* iovs) {
  set_recv_status(r, h);
  r->xfer_slot = h.src_slot;
  r->remote_req = h.sreq;
  const uint64_t want = r->st_bytes;
  Peer& p = peer(h.src_slot);
  CtlHdr c{};
  c.sreq = h.sreq;
  c.rreq = r->id;
  if (p.self) {
    Request* s = pool_.find(h.sreq);
    if (s) {
      for (uint64_t off = 0; off < want;) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(want - off, scratch_.size()));
        if (s->data.contig()) {
          r->data.unpack(off, s->data.contig() + off, n);
        } else {
          s->data.pack(off, scratch_.data(), n);
          r->data.unpack(off, scratch_.data(), n);
        }
        off += n;
      }
      complete(s);
    }
    complete(r);
    return;
  }
  if (want == 0 || (p.link && p.link->cma && info.niov > 0 && cma_ok_ && cma_read(r, info, iovs, want))) {
    c.type = MsgType::kFin;
    send_ctl(h.src_slot, c);
    complete(r);
    return;
  }
  c.type = MsgType::kCts;
  c.offset = want;
  r->proto = Proto::kReceiving;
  r->done_bytes = 0;
  send_ctl(h.src_slot, c);
}

bool Engine::cma_read(Request* r, const RtsInfo& info, const uint8_t* iovs, uint64_t n) {
  // Tiny scattered blocks cost the kernel more than a pipelined unpack.
  if (!r->data.contig() && r->data.block_count(kCmaBatch + 1) > kCmaBatch) return false;
  std::vector<iovec> remote(info.niov);
  for (uint32_t i = 0; i < info.niov; ++i) {
    const RtsIov v = rts_iov(iovs, i);
    remote[i] = iovec{reinterpret_cast<void*>(v.addr), static_cast<size_t>(v.len)};
  }
  iovec local[kCmaBatch];
  uint64_t off = 0;
  size_t ri = 0;
  uint64_t roff = 0;
  while (off < n) {
    size_t got = 0;
    size_t nl = r->data.iovecs(off, local, kCmaBatch, n - off, &got);
    // Remote blocks covering the same `got` bytes.
    iovec rv[kMaxRemoteBatch];
    size_t nr = 0;
    uint64_t need = got;
    size_t rj = ri;
    uint64_t rjoff = roff;
    while (need > 0 && rj < remote.size() && nr < kMaxRemoteBatch) {
      uint64_t avail = remote[rj].iov_len - rjoff;
      uint64_t take = std::min(avail, need);
      rv[nr++] = iovec{static_cast<uint8_t*>(remote[rj].iov_base) + rjoff, static_cast<size_t>(take)};
      need -= take;
      rjoff += take;
      if (rjoff == remote[rj].iov_len) {
        ++rj;
        rjoff = 0;
      }
    }
    ssize_t rc = process_vm_readv(info.pid, local, nl, rv, nr, 0);
    if (rc <= 0) {
      if (off == 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
        FTMPI_LOG(kInfo, "p2p", "process_vm_readv not permitted (%s); using pipelined copies", strerror(errno));
        cma_ok_ = false;
        return false;
      }
      if (off == 0) return false;
      FTMPI_LOG(kWarn, "p2p", "process_vm_readv from pid %d failed after %lu bytes: %s", info.pid,
                static_cast<unsigned long>(off), strerror(errno));
      r->st_err = Err::kOther;
      return true;
    }
    // Advance the remote position by what was actually read.
    uint64_t adv = static_cast<uint64_t>(rc);
    while (adv > 0) {
      uint64_t avail = remote[ri].iov_len - roff;
      uint64_t take = std::min(avail, adv);
      adv -= take;
      roff += take;
      if (roff == remote[ri].iov_len) {
        ++ri;
        roff = 0;
      }
    }
    off += static_cast<uint64_t>(rc);
  }
  return true;
}

void Engine::on_data(const CtlHdr& c, const uint8_t* payload, size_t plen) {
  Request* r = pool_.find(c.rreq);
  if (!r || r->proto != Proto::kReceiving) return;
  if (c.offset < r->st_bytes) {
    uint64_t n = std::min<uint64_t>(plen, r->st_bytes - c.offset);
    r->data.unpack(c.offset, payload, static_cast<size_t>(n));
  }
  r->done_bytes += plen;
  if (r->done_bytes >= r->st_bytes) complete(r);
}

bool Engine::iprobe(comm::Communicator& c, uint64_t ctx, int source, int tag, MessageStatus* out) {
  progress();
  int32_t slot = kAnySlot;
  if (source == kProcNull) {
    out->source = kProcNull;
    out->tag = kAnyTag;
    out->bytes = 0;
    return true;
  }
  if (source != kAnySource) {
    const ProcId id = c.peer_group().at(source);
    if (!id.valid()) {
      out->source = kProcNull;
      out->tag = kAnyTag;
      out->bytes = 0;
      return true;
    }
    slot = id.slot;
  }
  uint64_t seq = 0;
  const bool wildcard = slot == kAnySlot;
  if (wildcard && module_) {
    int32_t forced = kAnySlot;
    if (module_->force_source(ctx, tag, true, &forced, &seq)) slot = forced;
    else seq = 0;
  }
  Unexpected* u = match_.find_unexpected(match_.queues(ctx), slot, tag, false, seq);
  if (!u && ((slot != kAnySlot && !peer(slot).alive) ||
             (slot == kAnySlot && nobody_left_to_send(c)))) {
    // Nothing will ever come from a failed process: a blocking probe must
    // not wait for it (FT-MPI: no call hangs on a dead peer).
    out->source = source;
    out->tag = tag;
    out->bytes = 0;
    out->err = Err::kOther;
    return true;
  }
  if (!u) return false;
  if (wildcard && module_) module_->on_matched(envelope_of(u->hdr), nullptr, true);
  out->err = Err::kOk;
  out->source = c.peer_group().rank_of_slot(u->hdr.src_slot);
  out->tag = u->hdr.tag;
  out->bytes = u->hdr.len;
  return true;
}

}  // namespace ftmpi::p2p
