// (buffer, count, datatype) as the protocols see it: a stream of `bytes()`
// packed bytes that can be read or written at any offset, piece by piece.
// Contiguous data takes a memcpy fast path; everything else goes through the
// datatype engine's cursor, which keeps its position so that sequential
// pieces (the pipelined protocols) cost no re-seeking.
#pragma once
#include <sys/uio.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "dtype/datatype.hpp"

namespace ftmpi::p2p {

class TypedBuffer {
 public:
  TypedBuffer() = default;
  TypedBuffer(void* buf, size_t count, dtype::TypeRef type);
  TypedBuffer(TypedBuffer&&) noexcept;
  TypedBuffer& operator=(TypedBuffer&&) noexcept;
  ~TypedBuffer();
  // Points this buffer at other data in place (the per-message path: no
  // temporary, no reference count traffic for the predefined types). Inline:
  // every request runs it twice (set up, released).
  void reset(void* buf, size_t count, const dtype::TypeRef& type) {
    buf_ = buf;
    count_ = count;
    if (type_ != type) [[unlikely]]
      type_ = type;
    bytes_ = type_ ? static_cast<uint64_t>(count) * static_cast<uint64_t>(type_->size()) : 0;
    contig_ = bytes_ > 0 && type_->contiguous() ? static_cast<uint8_t*>(buf) + type_->true_lb() : nullptr;
    if (cursor_) [[unlikely]]
      drop_cursor();
  }
  void clear() { reset(nullptr, 0, dtype::TypeRef{}); }

  uint64_t bytes() const { return bytes_; }
  // Start of the data when it is one contiguous block (else nullptr).
  uint8_t* contig() const { return contig_; }
  bool empty() const { return bytes_ == 0; }
  const dtype::TypeRef& type() const { return type_; }
  void* base() const { return buf_; }
  size_t count() const { return count_; }

  // Copy packed bytes [offset, offset+n) out of / into the user's layout.
  void pack(uint64_t offset, void* dst, size_t n) {
    if (contig_) std::memcpy(dst, contig_ + offset, n);
    else pack_slow(offset, dst, n);
  }
  void unpack(uint64_t offset, const void* src, size_t n) {
    if (contig_) std::memcpy(contig_ + offset, src, n);
    else unpack_slow(offset, src, n);
  }
  // Memory blocks holding packed bytes from `offset` on: at most max_iov
  // blocks and max_bytes bytes; returns the number of blocks, sets *got.
  size_t iovecs(uint64_t offset, iovec* out, size_t max_iov, size_t max_bytes, size_t* got);
  // Number of memory blocks the whole buffer consists of, capped at `cap`.
  size_t block_count(size_t cap);

 private:
  void pack_slow(uint64_t offset, void* dst, size_t n);
  void unpack_slow(uint64_t offset, const void* src, size_t n);
  dtype::Cursor& cursor_at(uint64_t offset);
  void drop_cursor();

  void* buf_ = nullptr;
  size_t count_ = 0;
  dtype::TypeRef type_;
  uint64_t bytes_ = 0;
  uint8_t* contig_ = nullptr;
  std::unique_ptr<dtype::Cursor> cursor_;
};

}  // namespace ftmpi::p2p
