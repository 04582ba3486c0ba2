// The down-call interface every transport implements: p2p writes each frame
// kind once against it, whatever carries the frame (shared-memory rings on
// one host, TCP between hosts). Upcalls go the other way through Sink
// (frame.hpp).
//
// A peer is named by the transport's own handle for it (`peer`): the local
// index for shm, the slot for TCP. The engine keeps that handle beside the
// transport pointer in its peer table, so the hot path is one indirect call
// per frame and no switch on the kind of transport.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "transport/frame.hpp"

namespace ftmpi::transport {

// The payload of one frame: `len` bytes that are either in memory at
// `bytes`, or produced by `fill` (a datatype packing: the transport calls it
// once with the place the bytes go, which for shm is the ring itself).
struct Payload {
  using Fill = void (*)(void* source, uint64_t offset, uint8_t* dst, uint64_t len);
  uint64_t len = 0;
  const uint8_t* bytes = nullptr;  // non-null: copy from here
  Fill fill = nullptr;             // else: fill(source, offset, dst, len)
  void* source = nullptr;
  uint64_t offset = 0;

  void write_to(uint8_t* dst) const {
    if (len == 0) return;
    if (bytes) std::memcpy(dst, bytes, len);
    else fill(source, offset, dst, len);
  }
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Sends one frame (header, then payload) to `peer`. False: no room for it
  // now and nothing was written; the caller keeps the frame and tries again
  // after a progress pass (frames to one peer must keep their order). A
  // transport may instead always accept and queue (TCP). `hlen` and
  // `p.len` must respect max_payload().
  virtual bool send(int peer, const void* hdr, size_t hlen, const Payload& p) = 0;
  // Payload bytes, at most `want`, that a frame with a `hlen`-byte header
  // can carry to `peer` right now without being refused or queueing past
  // the transport's limit. Less than `want`: the transport wakes a process
  // sleeping in the engine's epoll set once more room frees up (shm: the
  // reader rings our doorbell; TCP: the socket turns writable). Streaming
  // protocols cut their pieces by it.
  virtual uint64_t room(int peer, size_t hlen, uint64_t want) = 0;
  // Largest payload any frame with a `hlen`-byte header may have.
  virtual uint64_t max_payload(size_t hlen) const = 0;
  // Nothing sent to `peer` is still waiting inside this process.
  virtual bool drained(int peer) const = 0;
  // The process behind `peer` died or was replaced: nothing more goes to it
  // or comes from it on the current connection.
  virtual void disconnect(int peer) = 0;
  // Delivers every frame that arrived to the sink; returns how many.
  virtual int poll(Sink& sink) = 0;
};

}  // namespace ftmpi::transport
