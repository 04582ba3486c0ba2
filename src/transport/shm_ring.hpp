// Single-producer single-consumer ring of records in shared memory, laid
// out so that a small frame moves one cache line between the two cores.
//
// Positions are monotonically increasing 64-bit byte counters (never wrap in
// practice); the ring size is a power of two. Records start on 64-byte
// boundaries and are padded to a multiple of 64 bytes:
//   u64 stamp | u32 payload_length | u16 header_length | u16 kind | header (padded to 8) | payload
// The stamp is the record's position + 1, stored last with release order:
// it is the commit. The reader polls the stamp at its own position, so no
// shared counter is read per record, and a record of at most 64 bytes (a
// 40-byte header and 8 payload bytes) is the only line that moves.
//
// Why a stamp cannot be mistaken: it names its position, so a record left
// from an earlier lap never matches. But the first word of a record's other
// lines holds user bytes, and a later record may start on such a line. So
// before the writer commits a record it makes sure the word where the next
// record will start is not that record's stamp (it is free space then, or
// the start of the oldest unconsumed record, which holds an older stamp),
// and a writer that takes over from a dead one zeroes the free space once
// (see attach()). The writer only reads that word, which is usually what it
// finds: the reader, polling there next, keeps its copy of the line, and
// the reader itself writes nothing but `head`.
//
// The writer learns the reader's progress (`head`) only when its cached
// view says the ring is full. `tail` is a hint only the writer stores (one
// line the reader never reads per record): where a successor of a dead
// writer resumes. A record never straddles the end: a PAD record fills the
// tail end first. Records are at most half the ring, which guarantees that
// a record always fits once the consumer has caught up (see reserve()).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "transport/frame.hpp"

namespace ftmpi::transport {

struct RingCtl {
  alignas(64) std::atomic<uint64_t> tail;    // written by the producer only: resume hint
  std::atomic<uint32_t> writer_attached;     // a producer attached once: the next one is a successor
  alignas(64) std::atomic<uint64_t> head;    // written by the consumer only
  alignas(64) std::atomic<uint32_t> writer_waiting;  // producer found the ring full
};
static_assert(sizeof(RingCtl) == 192);

inline constexpr uint16_t kRecFrame = 0;
inline constexpr uint16_t kRecPad = 1;
inline constexpr size_t kRecHdr = 16;
inline constexpr uint64_t kLine = 64;

inline constexpr uint64_t align_line(uint64_t n) { return (n + kLine - 1) & ~(kLine - 1); }

namespace ring_detail {
inline uint64_t load_stamp(const uint8_t* p) {
  return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(const_cast<uint8_t*>(p)))
      .load(std::memory_order_acquire);
}
inline void store_word(uint8_t* p, uint64_t v, std::memory_order o) {
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(p)).store(v, o);
}
// Bytes the record at `p` (position `pos` in a ring of `size`) covers.
inline uint64_t covered(const uint8_t* p, uint64_t pos, uint64_t size) {
  uint32_t plen;
  uint16_t hlen, kind;
  std::memcpy(&plen, p + 8, 4);
  std::memcpy(&hlen, p + 12, 2);
  std::memcpy(&kind, p + 14, 2);
  if (kind == kRecPad) return size - (pos & (size - 1));
  return align_line(kRecHdr + align8(hlen) + plen);
}
}  // namespace ring_detail

class RingWriter {
 public:
  // A process that takes over the ring from a dead writer resumes after the
  // last record its predecessor committed, and zeroes the first word of each
  // free line: a record it had begun may have left user bytes there.
  void attach(RingCtl* ctl, uint8_t* data, uint64_t size) {
    ctl_ = ctl;
    data_ = data;
    size_ = size;
    mask_ = size - 1;
    tail_ = ctl->tail.load(std::memory_order_acquire);
    if (ctl->writer_attached.exchange(1, std::memory_order_acq_rel) != 0) {
      // The hint lags by at most the records committed after its last store.
      while (ring_detail::load_stamp(data_ + (tail_ & mask_)) == tail_ + 1)
        tail_ += ring_detail::covered(data_ + (tail_ & mask_), tail_, size_);
      uint64_t head = ctl->head.load(std::memory_order_acquire);
      for (uint64_t pos = tail_; pos < head + size_; pos += kLine)
        ring_detail::store_word(data_ + (pos & mask_), 0, std::memory_order_relaxed);
      ctl->tail.store(tail_, std::memory_order_release);
    }
    head_cache_ = ctl->head.load(std::memory_order_acquire);
  }
  uint64_t max_record() const { return size_ / 2; }

  // Space for one record of `rec` bytes (a multiple of 64, <= max_record()),
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
      commit_hdr(data_ + pos, 0, 0, kRecPad);  // moves the tail to the next lap
      pos = 0;
    }
    return data_ + pos;
  }
  // Largest payload a frame with header `hlen` could carry right now.
  uint64_t writable_payload(size_t hlen) {
    head_cache_ = ctl_->head.load(std::memory_order_acquire);
    return payload_room(hlen);
  }
  // At least `want` when the last look at the reader's head says so (the
  // reader only ever frees more), else writable_payload(). The reader
  // writes its head after every record it takes: a look per message would
  // fetch that line from the reader's core each time (measured: a third of
  // a logged 8 B message's latency, docs/benchmarks.md).
  uint64_t known_payload(size_t hlen, uint64_t want) {
    const uint64_t known = payload_room(hlen);
    return known >= want ? known : writable_payload(hlen);
  }
  static uint64_t record_size(size_t hlen, size_t plen) { return align_line(kRecHdr + align8(hlen) + plen); }
  void publish(uint8_t* rec, uint32_t plen, uint16_t hlen) {
    commit_hdr(rec, plen, hlen, kRecFrame);
    ctl_->tail.store(tail_, std::memory_order_relaxed);
  }
  void mark_waiting() { ctl_->writer_waiting.store(1, std::memory_order_seq_cst); }

 private:
  // Payload room by the cached head.
  uint64_t payload_room(size_t hlen) const {
    uint64_t free = size_ - (tail_ - head_cache_);
    uint64_t pos = tail_ & mask_, to_end = size_ - pos;
    uint64_t best = to_end >= free ? free : std::max(to_end, free - to_end);
    if (best > max_record()) best = max_record();
    uint64_t overhead = kRecHdr + align8(hlen);
    return best > overhead ? ((best - overhead) & ~uint64_t{7}) : 0;
  }
  // Writes the record header at the current tail, clears a look-alike of
  // the next record's stamp where it will be (header comment), stores the
  // stamp last, and moves the tail past the record.
  void commit_hdr(uint8_t* p, uint32_t plen, uint16_t hlen, uint16_t kind) {
    std::memcpy(p + 8, &plen, 4);
    std::memcpy(p + 12, &hlen, 2);
    std::memcpy(p + 14, &kind, 2);
    uint64_t stamp = tail_ + 1;
    tail_ += kind == kRecPad ? size_ - (tail_ & mask_) : record_size(hlen, plen);
    uint8_t* next = data_ + (tail_ & mask_);
    if (ring_detail::load_stamp(next) == tail_ + 1) ring_detail::store_word(next, 0, std::memory_order_relaxed);
    ring_detail::store_word(p, stamp, std::memory_order_release);
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
  bool nonempty() const { return ring_detail::load_stamp(data_ + (head_ & mask_)) == head_ + 1; }

  // Calls fn(hdr, hlen, payload, plen) for each available record, then frees
  // their space. Returns the number of frames delivered. Sets `wake_writer`
  // when the producer asked to be told about freed space.
  template <typename Fn>
  int drain(Fn&& fn, bool& wake_writer) {
    uint8_t* p = data_ + (head_ & mask_);
    if (ring_detail::load_stamp(p) != head_ + 1) return 0;
    int n = 0;
    do {
      uint32_t plen;
      uint16_t hlen, kind;
      std::memcpy(&plen, p + 8, 4);
      std::memcpy(&hlen, p + 12, 2);
      std::memcpy(&kind, p + 14, 2);
      if (kind == kRecFrame) {
        const uint8_t* hdr = p + kRecHdr;
        fn(hdr, static_cast<size_t>(hlen), hdr + align8(hlen), static_cast<size_t>(plen));
        ++n;
        head_ += RingWriter::record_size(hlen, plen);
      } else {
        head_ += size_ - (head_ & mask_);
      }
      p = data_ + (head_ & mask_);
    } while (ring_detail::load_stamp(p) == head_ + 1);
    ctl_->head.store(head_, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (ctl_->writer_waiting.load(std::memory_order_relaxed) &&
        ctl_->writer_waiting.exchange(0, std::memory_order_acq_rel))
      wake_writer = true;
    return n;
  }

 private:
  RingCtl* ctl_ = nullptr;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0, mask_ = 0, head_ = 0;
};

}  // namespace ftmpi::transport
