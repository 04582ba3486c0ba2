#include "rte/proto/det_stage.hpp"

#include <cstring>
#include <new>
#include <vector>

namespace ftmpi::rte::proto {
namespace {

constexpr uint64_t pad8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

void copy_in(uint8_t* ring, uint64_t cap, uint64_t pos, const void* src, size_t n) {
  const uint64_t at = pos % cap;
  const size_t first = static_cast<size_t>(std::min<uint64_t>(n, cap - at));
  std::memcpy(ring + at, src, first);
  std::memcpy(ring, static_cast<const uint8_t*>(src) + first, n - first);
}

void copy_out(const uint8_t* ring, uint64_t cap, uint64_t pos, void* dst, size_t n) {
  const uint64_t at = pos % cap;
  const size_t first = static_cast<size_t>(std::min<uint64_t>(n, cap - at));
  std::memcpy(dst, ring + at, first);
  std::memcpy(static_cast<uint8_t*>(dst) + first, ring, n - first);
}

StageHeader* checked(void* base, size_t bytes) {
  if (!base || bytes <= kStageHeaderBytes) return nullptr;
  auto* h = static_cast<StageHeader*>(base);
  if (h->magic != kStageMagic || h->capacity == 0 || h->capacity % 8 != 0 ||
      h->capacity > bytes - kStageHeaderBytes)
    return nullptr;
  return h;
}

}  // namespace

bool stage_init(void* base, size_t bytes) {
  if (!base || bytes < kStageHeaderBytes + 64) return false;
  auto* h = new (base) StageHeader{};
  h->magic = kStageMagic;
  h->capacity = (bytes - kStageHeaderBytes) & ~uint64_t{7};
  return true;
}

StageWriter::StageWriter(void* base, size_t bytes) : h_(checked(base, bytes)) {
  if (!h_) return;
  ring_ = static_cast<uint8_t*>(base) + kStageHeaderBytes;
  // The area outlives incarnations: a new writer starts where the reader is.
  drained_seen_ = h_->drained.load(std::memory_order_acquire);
}

bool StageWriter::put(uint32_t incarnation, uint64_t batch, const void* data, size_t len) {
  if (!h_ || len > UINT32_MAX) return false;
  const uint64_t cap = h_->capacity;
  const uint64_t need = kStageRecordHeader + pad8(len);
  const uint64_t w = h_->written.load(std::memory_order_relaxed);
  // The reader's progress is read again only when the last look shows too
  // little room: it is the line the daemon writes.
  if (w - drained_seen_ > cap || cap - (w - drained_seen_) < need) {
    drained_seen_ = h_->drained.load(std::memory_order_acquire);
    if (w - drained_seen_ > cap || cap - (w - drained_seen_) < need) return false;
  }
  uint8_t head[kStageRecordHeader] = {};
  const uint32_t n = static_cast<uint32_t>(len);
  std::memcpy(head, &incarnation, 4);
  std::memcpy(head + 4, &n, 4);
  std::memcpy(head + 8, &batch, 8);
  copy_in(ring_, cap, w, head, sizeof head);
  copy_in(ring_, cap, w + kStageRecordHeader, data, len);
  h_->written.store(w + need, std::memory_order_release);
  return true;
}

StageReader::StageReader(void* base, size_t bytes) : h_(checked(base, bytes)) {
  if (h_) ring_ = static_cast<uint8_t*>(base) + kStageHeaderBytes;
}

bool StageReader::take(const Sink& sink) {
  if (!h_) return true;
  const uint64_t cap = h_->capacity;
  const uint64_t w = h_->written.load(std::memory_order_acquire);
  uint64_t r = h_->drained.load(std::memory_order_relaxed);
  if (w - r > cap) return false;  // the writer published more than fits
  std::vector<uint8_t> data;
  bool ok = true;
  while (r < w) {
    uint8_t head[kStageRecordHeader];
    if (w - r < kStageRecordHeader) {
      ok = false;
      break;
    }
    copy_out(ring_, cap, r, head, sizeof head);
    uint32_t inc, n;
    uint64_t batch;
    std::memcpy(&inc, head, 4);
    std::memcpy(&n, head + 4, 4);
    std::memcpy(&batch, head + 8, 8);
    const uint64_t need = kStageRecordHeader + pad8(n);
    if (need > w - r) {
      ok = false;
      break;
    }
    data.resize(n);
    copy_out(ring_, cap, r + kStageRecordHeader, data.data(), n);
    sink(inc, batch, data.data(), n);
    r += need;
  }
  // A corrupt area is consumed whole: nothing in it can be trusted.
  h_->drained.store(ok ? r : w, std::memory_order_release);
  return ok;
}

}  // namespace ftmpi::rte::proto
