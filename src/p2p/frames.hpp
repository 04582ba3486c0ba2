// The protocol's frames written through a transport::Transport
// (spec/wire-p2p.md): one function per frame kind, whatever carries it.
// Each returns false when the transport had no room (nothing was written:
// the caller keeps the frame in the peer's pending queue).
#pragma once
#include <sys/uio.h>

#include <cstdint>

#include "base/proc_id.hpp"
#include "p2p/typed_buffer.hpp"
#include "p2p/wire.hpp"
#include "transport/transport.hpp"

namespace ftmpi::p2p {

// `len` packed bytes of `data` from `offset` as a frame payload: the user's
// memory when it is contiguous, else packed by the transport straight into
// place (the ring record on shm).
inline transport::Payload payload_of(TypedBuffer& data, uint64_t offset, uint64_t len) {
  transport::Payload p;
  p.len = len;
  if (const uint8_t* c = data.contig()) {
    p.bytes = c + offset;
    return p;
  }
  p.fill = [](void* src, uint64_t off, uint8_t* dst, uint64_t n) { static_cast<TypedBuffer*>(src)->pack(off, dst, n); };
  p.source = &data;
  p.offset = offset;
  return p;
}

// What every match header says of its message: kind, tag and context, the
// sender (and its epoch), the incarnation it is meant for, its length.
// Sequence number, request id, flags and checksum are the caller's.
inline MatchHdr match_envelope(MsgType t, int32_t tag, uint64_t ctx, ProcId self, uint32_t epoch, uint32_t dst_inc,
                               uint64_t len) {
  MatchHdr h{};
  h.type = t;
  h.tag = tag;
  h.ctx = ctx;
  h.src_slot = self.slot;
  h.src_inc = self.incarnation;
  h.epoch = epoch;
  h.dst_inc = dst_inc;
  h.len = len;
  return h;
}

// EAGER: the match header and the whole message (h.len bytes of data).
inline bool write_eager(transport::Transport& tx, int peer, const MatchHdr& h, TypedBuffer& data) {
  return tx.send(peer, &h, sizeof h, payload_of(data, 0, h.len));
}

// EAGER_SHORT: the same message with the 40-byte header, for an EAGER whose
// request id, flags and checksum nobody reads (spec/wire-p2p.md).
inline bool write_eager_short(transport::Transport& tx, int peer, const MatchHdr& h, TypedBuffer& data) {
  const ShortHdr s = shorten(h);
  return tx.send(peer, &s, sizeof s, payload_of(data, 0, h.len));
}

// RTS: the match header, RtsInfo and the first `niov` (<= kMaxRtsIov)
// blocks of the sender's memory; niov 0 asks the receiver for a CTS.
bool write_rts(transport::Transport& tx, int peer, const MatchHdr& h, int32_t pid, const iovec* iov, size_t niov);

// CTS, FIN, ACK, CANCEL, CANCEL_REPLY: a CtlHdr alone.
inline bool write_ctl(transport::Transport& tx, int peer, const CtlHdr& c) {
  return tx.send(peer, &c, sizeof c, transport::Payload{});
}

// CONTROL: `frame` holds the ControlHdr and then the handler's bytes.
bool write_control(transport::Transport& tx, int peer, const uint8_t* frame, size_t len);

// A DATA piece smaller than this (unless it is the last) waits for more room.
inline constexpr uint64_t kMinDataPiece = 4096;

// DATA: sends the packed bytes [*done, end) of `data` as frames of at most
// `chunk` payload bytes, `c` as their header with `offset` set per piece,
// for as long as the transport has room. Advances *done; true when it
// reached `end`.
bool write_data(transport::Transport& tx, int peer, CtlHdr c, TypedBuffer& data, uint64_t* done, uint64_t end,
                 uint64_t chunk);

}  // namespace ftmpi::p2p
