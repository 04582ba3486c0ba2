// What every transport moves: frames of a small protocol header (defined by
// p2p, opaque here) plus a payload. Frames between one ordered pair of
// processes arrive in the order they were sent; that is the only ordering
// promise, and the p2p layer builds MPI's non-overtaking rule on it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ftmpi::transport {

// Receives frames while a transport polls. The payload pointer is valid only
// during the call (it may point into a shared-memory ring), and the sink must
// not poll any transport from inside the call.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void on_frame(int32_t peer_slot, const uint8_t* hdr, size_t hdr_len, const uint8_t* payload,
                        size_t payload_len) = 0;
  // The connection to this peer broke (EOF, reset, timeout). Only a suspicion:
  // the runtime decides whether the peer is dead.
  virtual void on_peer_lost(int32_t peer_slot) = 0;
};

inline constexpr size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

}  // namespace ftmpi::transport
