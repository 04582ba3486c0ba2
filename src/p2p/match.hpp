// MPI matching: per context id, a queue of posted receives and a queue of
// unexpected messages, both in arrival order. An arriving message takes the
// first posted receive that accepts (source, tag); a new receive takes the
// first unexpected message it accepts. Because frames from one sender arrive
// in order, this gives MPI's non-overtaking rule.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "p2p/request.hpp"
#include "p2p/wire.hpp"

namespace ftmpi::p2p {

inline constexpr int kAnyTag = -1;
inline constexpr int32_t kAnySlot = -1;

// The bytes an unexpected message keeps: up to kInline in place (a small
// message costs no allocation), more on the heap, whose storage stays for
// the next message that needs it.
class MsgBytes {
 public:
  static constexpr size_t kInline = 64;
  uint8_t* data() { return size_ > kInline ? heap_.data() : local_; }
  const uint8_t* data() const { return size_ > kInline ? heap_.data() : local_; }
  size_t size() const { return size_; }
  void resize(size_t n) {
    if (n > kInline) heap_.resize(n);
    size_ = n;
  }
  void assign(const uint8_t* b, const uint8_t* e) {
    resize(static_cast<size_t>(e - b));
    if (size_) std::memcpy(data(), b, size_);
  }
  void clear() { size_ = 0; }
  size_t heap_capacity() const { return heap_.capacity(); }
  void free_heap() { std::vector<uint8_t>().swap(heap_); }

 private:
  size_t size_ = 0;
  std::vector<uint8_t> heap_;
  uint8_t local_[kInline];
};

// A message that arrived before its receive was posted.
struct Unexpected {
  MatchHdr hdr;
  RtsInfo rts{};     // RTS only
  MsgBytes payload;  // EAGER: the data; RTS: the sender's iovec list
  // RTS whose sender died while a module hid the failure: the data stayed
  // with the dead incarnation; the next incarnation's RTS with the same
  // sequence number replaces this one (Engine::resume_from).
  bool stale = false;
  Unexpected* next = nullptr;  // every source, in arrival order
  Unexpected* prev = nullptr;
  Unexpected* src_next = nullptr;  // the same source only
  Unexpected* src_prev = nullptr;
};

class MatchTable {
 public:
  struct Queues {
    Request* posted_head = nullptr;
    Request* posted_tail = nullptr;
    Unexpected* unexp_head = nullptr;
    Unexpected* unexp_tail = nullptr;
    // The same messages by source slot: a receive from one source passes
    // only that source's messages. With one list, a replaying rank whose
    // survivor neighbour had re-sent 50k logged messages at once scanned
    // them all for each message of its other, replaying, neighbour:
    // quadratic, 55-75 s to catch up in ckpt.gc.kills_memory.np4.
    struct Chain {
      Unexpected* head = nullptr;
      Unexpected* tail = nullptr;
    };
    std::vector<Chain> by_src;
  };

  ~MatchTable();
  // Inline for the common case: the same context as the last call.
  Queues& queues(uint64_t ctx) { return ctx == last_ctx_ ? *last_ : lookup(ctx); }
  // Drops the queues of a context no communicator uses any more, if empty.
  void forget(uint64_t ctx);

  // want_seq is 0 except for a wildcard receive a module forced to one
  // logged message (ModuleSeam::force_source).
  static bool accepts(const Request& r, int32_t src_slot, int tag, uint64_t seq) {
    return (r.peer_slot == kAnySlot || r.peer_slot == src_slot) && (r.tag == kAnyTag || r.tag == tag) &&
           (r.want_seq == 0 || r.want_seq == seq);
  }

  // Removes and returns the first posted receive accepting the message.
  Request* take_posted(Queues& q, int32_t src_slot, int tag, uint64_t seq = 0);
  void post(Queues& q, Request* r);
  void unpost(Request* r);  // r must be in the posted queue of r->ctx

  // First unexpected message the receive accepts (seq 0: any); removed if `take`.
  Unexpected* find_unexpected(Queues& q, int32_t src_slot, int tag, bool take, uint64_t seq = 0);
  void add_unexpected(Queues& q, Unexpected* u);
  void remove_unexpected(Queues& q, Unexpected* u);
  // Unexpected messages come from here and go back here (taken out of the
  // queues first). They are made kChunk at a time and kept until the table
  // goes (like requests): a message that arrives before its receive costs
  // no allocation once warm, and a burst of them one per kChunk.
  Unexpected* new_unexpected();
  void free_unexpected(Unexpected* u);

  // Visits every context's queues (failure handling, purges).
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (auto& [ctx, q] : table_) fn(ctx, *q);
  }

 private:
  Queues& lookup(uint64_t ctx);

  static constexpr size_t kChunk = 64;
  static constexpr size_t kKeepBytes = 16 << 10;  // larger payload storage is freed with its message
  std::unordered_map<uint64_t, std::unique_ptr<Queues>> table_;
  std::vector<std::unique_ptr<Unexpected[]>> chunks_;
  std::vector<Unexpected*> spares_;
  uint64_t last_ctx_ = ~uint64_t{0};
  Queues* last_ = nullptr;
};

}  // namespace ftmpi::p2p
