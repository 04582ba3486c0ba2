// Typed buffers as the algorithms handle them: `count` items of a datatype,
// item i at buf + i * extent, data bytes wherever the type puts them. Only
// data bytes of user buffers are ever written (holes stay untouched), as the
// standard requires; temporary buffers are laid out like the user's so that
// reductions and user functions see the datatype they were given.
#pragma once
#include <cstddef>
#include <cstdint>

#include "coll/xfer.hpp"
#include "dtype/datatype.hpp"

namespace ftmpi::coll {

// Bytes between the lowest and the highest data byte of `count` items, and
// where the lowest one lies relative to the buffer origin.
struct Span {
  int64_t lo = 0;
  size_t bytes = 0;
};
Span span_of(const dtype::Type& t, size_t count);

// Origin of a temporary buffer for `count` items of `t` (memory from x).
void* temp_items(Xfer& x, const dtype::Type& t, size_t count);

// Address of item `i` of a buffer of type t.
inline void* item(void* buf, const dtype::Type& t, size_t i) {
  return static_cast<uint8_t*>(buf) + static_cast<int64_t>(i) * t.extent();
}
inline const void* item(const void* buf, const dtype::Type& t, size_t i) {
  return static_cast<const uint8_t*>(buf) + static_cast<int64_t>(i) * t.extent();
}

// Packed bytes of `count` items of t.
inline size_t packed_size(const dtype::Type& t, size_t count) { return count * static_cast<size_t>(t.size()); }

// Copies min(packed sizes) bytes of the packed stream of (src, scount, st)
// into (dst, dcount, dt): a local send/receive.
void copy_typed(const void* src, size_t scount, const dtype::Type& st, void* dst, size_t dcount,
                const dtype::Type& dt);
// Same layout on both sides.
inline void copy_items(const void* src, void* dst, size_t count, const dtype::Type& t) {
  copy_typed(src, count, t, dst, count, t);
}
void pack(const void* buf, size_t count, const dtype::Type& t, void* out);
void unpack(const void* in, void* buf, size_t count, const dtype::Type& t);

// A typed buffer seen as contiguous packed bytes: the buffer itself when
// the type is contiguous, else a temporary copy (made by load(), written
// back by store()).
class Packed {
 public:
  Packed(Xfer& x, void* buf, size_t count, const dtype::Type& t);
  uint8_t* bytes() const { return data_; }
  size_t size() const { return size_; }
  void load();   // temporary <- user buffer
  void store();  // user buffer <- temporary
 private:
  void* buf_;
  size_t count_;
  const dtype::Type& type_;
  uint8_t* data_;
  size_t size_;
  bool direct_;
};

}  // namespace ftmpi::coll
