#include "p2p/typed_buffer.hpp"

namespace ftmpi::p2p {

TypedBuffer::TypedBuffer(void* buf, size_t count, dtype::TypeRef type)
    : buf_(buf), count_(count), type_(std::move(type)) {
  bytes_ = static_cast<uint64_t>(count) * static_cast<uint64_t>(type_->size());
  if (type_->contiguous() && bytes_ > 0) contig_ = static_cast<uint8_t*>(buf) + type_->true_lb();
}

void TypedBuffer::drop_cursor() { cursor_.reset(); }

TypedBuffer::TypedBuffer(TypedBuffer&&) noexcept = default;
TypedBuffer& TypedBuffer::operator=(TypedBuffer&&) noexcept = default;
TypedBuffer::~TypedBuffer() = default;

dtype::Cursor& TypedBuffer::cursor_at(uint64_t offset) {
  if (!cursor_) cursor_ = std::make_unique<dtype::Cursor>(buf_, count_, *type_);
  if (cursor_->position() != offset) cursor_->seek(static_cast<size_t>(offset));
  return *cursor_;
}

void TypedBuffer::pack_slow(uint64_t offset, void* dst, size_t n) { cursor_at(offset).pack(dst, n); }

void TypedBuffer::unpack_slow(uint64_t offset, const void* src, size_t n) { cursor_at(offset).unpack(src, n); }

size_t TypedBuffer::iovecs(uint64_t offset, iovec* out, size_t max_iov, size_t max_bytes, size_t* got) {
  if (offset >= bytes_ || max_iov == 0) {
    *got = 0;
    return 0;
  }
  if (contig_) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(bytes_ - offset, max_bytes));
    out[0] = iovec{contig_ + offset, n};
    *got = n;
    return 1;
  }
  return cursor_at(offset).iovecs(out, max_iov, max_bytes, got);
}

size_t TypedBuffer::block_count(size_t cap) {
  if (contig_ || bytes_ == 0) return bytes_ ? 1 : 0;
  dtype::Cursor probe(buf_, count_, *type_);
  iovec iov[64];
  size_t blocks = 0;
  while (!probe.done() && blocks <= cap) {
    size_t n = probe.iovecs(iov, 64, probe.total());
    if (n == 0) break;
    blocks += n;
  }
  return blocks;
}

}  // namespace ftmpi::p2p
