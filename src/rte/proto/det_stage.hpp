// A rank's determinant staging area (transparent mode; spec/wire-control.md
// "Determinant staging"): a memfd the daemon creates, maps and hands to the
// rank with BOOT. The rank appends determinant batches; the daemon takes
// them into its event log when it next looks (a DET_LOG of the rank, a
// fetch, a buddy to feed, garbage collection).
//
// Why: pessimism wants a batch stable before the next send, and the socket
// round trip through the daemon costs 15-20 us on two cores. Bytes written
// into the daemon's own mapping outlive the rank's process at once; where
// the daemon itself is the job's only copy (no live buddy host, the flag
// `stable` below) that is all DET_ACK would say. With a buddy, batches still
// go as DET_LOG and wait for the replica.
//
// Layout: a header of three cache lines (what the daemon set at creation
// and `stable`; the rank's `written`; the daemon's `drained`), then a byte
// ring of `capacity` bytes. A record is {incarnation u32, length u32, batch
// u64, data, zero pad to 8}, written at offsets modulo the capacity; it is
// published by the release store of `written` past it, consumed by the
// release store of `drained`. One writer (the slot's live incarnation: the
// daemon starts the next only after the last has exited), one reader.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace ftmpi::rte::proto {

inline constexpr uint32_t kStageMagic = 0x47545346;  // "FSTG"
inline constexpr size_t kStageHeaderBytes = 256;
inline constexpr size_t kStageRecordHeader = 16;

struct StageHeader {
  uint32_t magic;
  uint32_t reserved;
  uint64_t capacity;  // ring bytes after the header, a multiple of 8
  // 1: a published record is as stable as the event logger can make it
  // (the daemon has no buddy). Set by the daemon, never cleared: hosts a
  // job lost do not come back.
  std::atomic<uint32_t> stable;
  alignas(64) std::atomic<uint64_t> written;  // bytes ever published (rank)
  alignas(64) std::atomic<uint64_t> drained;  // bytes ever consumed (daemon)
};
static_assert(sizeof(StageHeader) <= kStageHeaderBytes);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// Lays out an empty area in `bytes` bytes of zeroed shared memory (the
// daemon, at creation). False: too small.
bool stage_init(void* base, size_t bytes);

class StageWriter {
 public:
  StageWriter() = default;
  // Not valid() if `base` is not an area of `bytes` bytes laid out by stage_init.
  StageWriter(void* base, size_t bytes);
  bool valid() const { return h_ != nullptr; }
  bool stable() const { return h_ && h_->stable.load(std::memory_order_acquire) != 0; }
  // Appends and publishes one record; false (nothing written): no room.
  bool put(uint32_t incarnation, uint64_t batch, const void* data, size_t len);

 private:
  StageHeader* h_ = nullptr;
  uint8_t* ring_ = nullptr;
  uint64_t drained_seen_ = 0;  // the reader's progress when last read
};

class StageReader {
 public:
  using Sink = std::function<void(uint32_t incarnation, uint64_t batch, const uint8_t* data, size_t len)>;
  StageReader() = default;
  StageReader(void* base, size_t bytes);
  bool valid() const { return h_ != nullptr; }
  void set_stable() { h_->stable.store(1, std::memory_order_release); }
  // Hands every published record to `sink` in order and frees its room.
  // False: the area is corrupt (a record that does not fit what was
  // published); what came before it was handed over, nothing after.
  bool take(const Sink& sink);

 private:
  StageHeader* h_ = nullptr;
  uint8_t* ring_ = nullptr;
};

}  // namespace ftmpi::rte::proto
