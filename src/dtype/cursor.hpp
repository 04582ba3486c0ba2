// The cursor ("convertor") over (buffer, count, type): a position in the
// packed stream of that buffer, moved piece by piece. Pieces may end anywhere,
// even inside a basic element; the next call continues from there, so the
// pipelined protocols pay no re-seek per piece. See datatype.hpp.
#pragma once
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dtype/program.hpp"
#include "dtype/type.hpp"

namespace ftmpi::dtype {

class Cursor {
 public:
  Cursor() = default;
  // The buffer holds `count` items of `type`, item i at buf + i*extent.
  // count * type.size() must fit in int64 (see packed_bytes()). buf may be
  // MPI_BOTTOM (null) with absolute displacements.
  Cursor(void* buf, size_t count, const Type& type);
  Cursor(const void* buf, size_t count, const Type& type);  // read-only: pack/iovecs only
  Cursor(Cursor&& o) noexcept;
  Cursor& operator=(Cursor&& o) noexcept;
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  ~Cursor() = default;

  size_t total() const { return static_cast<size_t>(total_); }
  size_t position() const { return static_cast<size_t>(pos_); }
  bool done() const { return pos_ == total_; }
  const TypeRef& type() const { return type_; }

  // Moves to packed offset `offset` (clamped to total()).
  void seek(size_t offset);
  // Copies up to max_bytes packed bytes into dst; returns the count copied.
  size_t pack(void* dst, size_t max_bytes);
  // Stores up to n_bytes packed bytes from src into the buffer; returns the
  // count stored.
  size_t unpack(const void* src, size_t n_bytes);
  // Describes the next packed bytes as memory blocks, in stream order: at
  // most max_entries blocks and max_bytes bytes, neighbouring blocks merged.
  // Advances past them; *bytes (if given) receives their total length.
  // Returns the number of entries written.
  size_t iovecs(iovec* out, size_t max_entries, size_t max_bytes, size_t* bytes = nullptr);

  // Internal walking interface (cursor_walk.hpp), used by the reduction ops.
  void reset(uintptr_t base, int64_t count, int64_t extent, const Program& prog);
  template <class Visitor>
  int64_t walk(int64_t max_bytes, Visitor& v);

 private:
  struct Frame {
    const Node* node;
    int64_t idx;
    uintptr_t base;  // origin of the node's current instance
  };
  static constexpr int kInlineFrames = 8;

  Frame* frames() { return heap_ ? heap_.get() : inline_; }
  void push_leftmost(Frame* fr, const Node* n, uintptr_t base);
  void next_leaf(Frame* fr);
  void take(Cursor&& o);

  TypeRef type_;
  bool writable_ = false;
  Node top_;  // the `count` repetition when it does not merge into the type's root
  const Node* root_ = nullptr;
  uintptr_t origin_ = 0;
  Frame inline_[kInlineFrames];
  std::unique_ptr<Frame[]> heap_;
  int heap_cap_ = 0;
  int depth_ = 0;
  int64_t leaf_off_ = 0;  // bytes of the current run already consumed
  int64_t pos_ = 0;
  int64_t total_ = 0;
};

}  // namespace ftmpi::dtype
