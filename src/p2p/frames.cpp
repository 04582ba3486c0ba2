#include "p2p/frames.hpp"

#include <algorithm>
#include <cstring>

namespace ftmpi::p2p {

bool write_rts(transport::Transport& tx, int peer, const MatchHdr& h, int32_t pid, const iovec* iov, size_t niov) {
  RtsHdr r;
  r.match = h;
  r.info = RtsInfo{pid, static_cast<uint32_t>(niov)};
  for (size_t i = 0; i < niov; ++i) r.iov[i] = RtsIov{reinterpret_cast<uint64_t>(iov[i].iov_base), iov[i].iov_len};
  return tx.send(peer, &r, rts_hdr_bytes(niov), transport::Payload{});
}

bool write_control(transport::Transport& tx, int peer, const uint8_t* frame, size_t len) {
  transport::Payload p;
  p.len = len - sizeof(ControlHdr);
  p.bytes = frame + sizeof(ControlHdr);
  return tx.send(peer, frame, sizeof(ControlHdr), p);
}

bool write_data(transport::Transport& tx, int peer, CtlHdr c, TypedBuffer& data, uint64_t* done, uint64_t end,
                 uint64_t chunk) {
  while (*done < end) {
    const uint64_t left = end - *done;
    // Take what is free now rather than wait for a whole chunk.
    const uint64_t n = tx.room(peer, sizeof c, std::min(left, chunk));
    if (n == 0 || n < std::min(left, kMinDataPiece)) return false;
    c.offset = *done;
    if (!tx.send(peer, &c, sizeof c, payload_of(data, *done, n))) return false;
    *done += n;
  }
  return true;
}

}  // namespace ftmpi::p2p
