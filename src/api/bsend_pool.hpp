// The buffer of MPI_Buffer_attach and the space management of the messages
// buffered in it (bsend.cpp). Every message takes its packed size plus
// MPI_BSEND_OVERHEAD bytes, as mpi.h promises users who size their buffer
// with MPI_Pack_size + MPI_BSEND_OVERHEAD; the space is returned when the
// internal send of that copy completes. The bookkeeping lives here, not in
// the user's buffer, so the overhead is pure accounting.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>

#include "mpi.h"

namespace ftmpi::api {

class BsendPool {
 public:
  static constexpr size_t kOverhead = MPI_BSEND_OVERHEAD;

  bool attached() const { return attached_; }
  uint8_t* base() const { return base_; }
  size_t size() const { return size_; }
  size_t in_use() const { return in_use_; }
  bool empty() const { return used_.empty(); }

  void attach(void* base, size_t size) {
    attached_ = true;
    base_ = static_cast<uint8_t*>(base);
    size_ = size;
  }
  void detach() {  // only when empty()
    attached_ = false;
    base_ = nullptr;
    size_ = 0;
  }

  // Room for `n` packed bytes (first fit): where to put them, or nullptr.
  uint8_t* reserve(size_t n) {
    if (!attached_ || n > size_ || size_ - n < kOverhead) return nullptr;
    const size_t need = n + kOverhead;
    size_t start = 0;
    for (const auto& [off, len] : used_) {
      if (off - start >= need) break;
      start = off + len;
    }
    if (start > size_ || size_ - start < need) return nullptr;
    used_.emplace(start, need);
    in_use_ += need;
    return base_ + start + kOverhead;
  }
  // `data` is what reserve() returned.
  void release(const uint8_t* data) {
    auto it = used_.find(static_cast<size_t>(data - base_) - kOverhead);
    if (it == used_.end()) return;
    in_use_ -= it->second;
    used_.erase(it);
  }

 private:
  bool attached_ = false;
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t in_use_ = 0;
  std::map<size_t, size_t> used_;  // offset -> bytes taken (data + overhead)
};

}  // namespace ftmpi::api
