// Single-producer single-consumer byte ring in shared memory. Positions are
// monotonically increasing 64-bit byte counters (never wrap in practice);
// the ring size is a power of two. A record is
//   u32 payload_length | u16 header_length | u16 kind | header | payload
// with header and payload each padded to 8 bytes. A record never straddles the end: a PAD record fills the
// tail end first. Records are at most half the ring, which guarantees that a
// record always fits once the consumer has caught up (see reserve()).
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>

#include "transport/frame.hpp"

namespace ftmpi::transport {

struct RingCtl {
  alignas(64) std::atomic<uint64_t> tail;  // written by the producer only
  alignas(64) std::atomic<uint64_t> head;  // written by the consumer only
  alignas(64) std::atomic<uint32_t> writer_waiting;  // producer found the ring full
};
static_assert(sizeof(RingCtl) == 192);

inline constexpr uint16_t kRecFrame = 0;
inline constexpr uint16_t kRecPad = 1;
inline constexpr size_t kRecHdr = 8;

class RingWriter {
 public:
  void attach(RingCtl* ctl, uint8_t* data, uint64_t size) {
    ctl_ = ctl;
    data_ = data;
    size_ = size;
    mask_ = size - 1;
    tail_ = ctl->tail.load(std::memory_order_relaxed);
    head_cache_ = ctl->head.load(std::memory_order_acquire);
  }
  uint64_t max_record() const { return size_ / 2; }

  // Space for one record of `rec` bytes (already 8-aligned, <= max_record()),
  // or nullptr if the consumer has not freed enough yet.
  uint8_t* reserve(uint64_t rec) {
    uint64_t pos = tail_ & mask_;
    uint64_t to_end = size_ - pos;
    uint64_t need = rec <= to_end ? rec : to_end + rec;
    if (size_ - (tail_ - head_cache_) < need) {
      head_cache_ = ctl_->head.load(std::memory_order_acquire);
      if (size_ - (tail_ - head_cache_) < need) return nullptr;
    }
    if (rec > to_end) {
      write_rec_hdr(data_ + pos, static_cast<uint32_t>(to_end - kRecHdr), 0, kRecPad);
      tail_ += to_end;
      pos = 0;
    }
    return data_ + pos;
  }
  // Largest payload a frame with header `hlen` could carry right now.
  uint64_t writable_payload(size_t hlen) {
    head_cache_ = ctl_->head.load(std::memory_order_acquire);
    uint64_t free = size_ - (tail_ - head_cache_);
    uint64_t pos = tail_ & mask_, to_end = size_ - pos;
    uint64_t best = to_end >= free ? free : std::max(to_end, free - to_end);
    if (best > max_record()) best = max_record();
    uint64_t overhead = kRecHdr + align8(hlen);
    return best > overhead ? ((best - overhead) & ~uint64_t{7}) : 0;
  }
  static uint64_t record_size(size_t hlen, size_t plen) { return kRecHdr + align8(hlen) + align8(plen); }
  void publish(uint8_t* rec, uint32_t plen, uint16_t hlen) {
    write_rec_hdr(rec, plen, hlen, kRecFrame);
    tail_ += record_size(hlen, plen);
    ctl_->tail.store(tail_, std::memory_order_release);
  }
  void mark_waiting() { ctl_->writer_waiting.store(1, std::memory_order_seq_cst); }

 private:
  static void write_rec_hdr(uint8_t* p, uint32_t plen, uint16_t hlen, uint16_t kind) {
    std::memcpy(p, &plen, 4);
    std::memcpy(p + 4, &hlen, 2);
    std::memcpy(p + 6, &kind, 2);
  }
  RingCtl* ctl_ = nullptr;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0, mask_ = 0, tail_ = 0, head_cache_ = 0;
};

class RingReader {
 public:
  void attach(RingCtl* ctl, uint8_t* data, uint64_t size) {
    ctl_ = ctl;
    data_ = data;
    size_ = size;
    mask_ = size - 1;
    head_ = ctl->head.load(std::memory_order_relaxed);
  }
  bool nonempty() const { return ctl_->tail.load(std::memory_order_acquire) != head_; }

  // Calls fn(hdr, hlen, payload, plen) for each available record, then frees
  // their space. Returns the number of frames delivered. Sets `wake_writer`
  // when the producer asked to be told about freed space.
  template <typename Fn>
  int drain(Fn&& fn, bool& wake_writer) {
    uint64_t tail = ctl_->tail.load(std::memory_order_acquire);
    if (tail == head_) return 0;
    int n = 0;
    while (head_ != tail) {
      const uint8_t* p = data_ + (head_ & mask_);
      uint32_t plen;
      uint16_t hlen, kind;
      std::memcpy(&plen, p, 4);
      std::memcpy(&hlen, p + 4, 2);
      std::memcpy(&kind, p + 6, 2);
      if (kind == kRecFrame) {
        const uint8_t* hdr = p + kRecHdr;
        fn(hdr, static_cast<size_t>(hlen), hdr + align8(hlen), static_cast<size_t>(plen));
        ++n;
      }
      head_ += kRecHdr + align8(hlen) + align8(plen);
    }
    ctl_->head.store(head_, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (ctl_->writer_waiting.load(std::memory_order_relaxed) &&
        ctl_->writer_waiting.exchange(0, std::memory_order_acq_rel))
      wake_writer = true;
    return n;
  }

 private:
  RingCtl* ctl_ = nullptr;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0, mask_ = 0, head_ = 0;
};

}  // namespace ftmpi::transport
