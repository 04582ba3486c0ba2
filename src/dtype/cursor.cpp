// Cursor positioning and the pack / unpack / iovec visitors.
#include "dtype/cursor.hpp"

#include <cassert>
#include <cstring>
#include <limits>

#include "dtype/cursor_walk.hpp"

namespace ftmpi::dtype {
namespace {

int64_t clamp_bytes(size_t n) {
  return n > static_cast<size_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(n);
}

char* ptr(uintptr_t a) { return reinterpret_cast<char*>(a); }

// Fixed-size runs compile to plain moves; the sizes are those of the basic
// types and of the small structs and pairs that strided types usually hold.
// Four runs per iteration: independent loads and stores overlap, which makes
// a stride-2 vector of doubles about 1.5x faster than one run per iteration
// (bench/p2p/strided.c, where MPICH's unrolled kernels were ahead).
template <size_t L>
void gather_fixed(char* dst, uintptr_t src, int64_t stride, int64_t n) {
  const uintptr_t s = static_cast<uintptr_t>(stride);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    std::memcpy(dst, ptr(src), L);
    std::memcpy(dst + L, ptr(src + s), L);
    std::memcpy(dst + 2 * L, ptr(src + 2 * s), L);
    std::memcpy(dst + 3 * L, ptr(src + 3 * s), L);
    dst += 4 * L;
    src += 4 * s;
  }
  for (; i < n; ++i) {
    std::memcpy(dst, ptr(src), L);
    dst += L;
    src += s;
  }
}

template <size_t L>
void scatter_fixed(const char* src, uintptr_t dst, int64_t stride, int64_t n) {
  const uintptr_t s = static_cast<uintptr_t>(stride);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    std::memcpy(ptr(dst), src, L);
    std::memcpy(ptr(dst + s), src + L, L);
    std::memcpy(ptr(dst + 2 * s), src + 2 * L, L);
    std::memcpy(ptr(dst + 3 * s), src + 3 * L, L);
    src += 4 * L;
    dst += 4 * s;
  }
  for (; i < n; ++i) {
    std::memcpy(ptr(dst), src, L);
    src += L;
    dst += s;
  }
}

void gather(char* dst, uintptr_t src, int64_t stride, int64_t len, int64_t n) {
  switch (len) {
    case 1: return gather_fixed<1>(dst, src, stride, n);
    case 2: return gather_fixed<2>(dst, src, stride, n);
    case 4: return gather_fixed<4>(dst, src, stride, n);
    case 8: return gather_fixed<8>(dst, src, stride, n);
    case 12: return gather_fixed<12>(dst, src, stride, n);
    case 16: return gather_fixed<16>(dst, src, stride, n);
    case 24: return gather_fixed<24>(dst, src, stride, n);
    case 32: return gather_fixed<32>(dst, src, stride, n);
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst, ptr(src), static_cast<size_t>(len));
        dst += len;
        src += static_cast<uintptr_t>(stride);
      }
  }
}

void scatter(const char* src, uintptr_t dst, int64_t stride, int64_t len, int64_t n) {
  switch (len) {
    case 1: return scatter_fixed<1>(src, dst, stride, n);
    case 2: return scatter_fixed<2>(src, dst, stride, n);
    case 4: return scatter_fixed<4>(src, dst, stride, n);
    case 8: return scatter_fixed<8>(src, dst, stride, n);
    case 12: return scatter_fixed<12>(src, dst, stride, n);
    case 16: return scatter_fixed<16>(src, dst, stride, n);
    case 24: return scatter_fixed<24>(src, dst, stride, n);
    case 32: return scatter_fixed<32>(src, dst, stride, n);
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(ptr(dst), src, static_cast<size_t>(len));
        src += len;
        dst += static_cast<uintptr_t>(stride);
      }
  }
}

struct PackVisitor {
  char* dst;
  bool block(uintptr_t p, int64_t len) {
    std::memcpy(dst, ptr(p), static_cast<size_t>(len));
    dst += len;
    return true;
  }
  int64_t runs(uintptr_t p, int64_t stride, int64_t len, int64_t n) {
    gather(dst, p, stride, len, n);
    dst += n * len;
    return n;
  }
};

struct UnpackVisitor {
  const char* src;
  bool block(uintptr_t p, int64_t len) {
    std::memcpy(ptr(p), src, static_cast<size_t>(len));
    src += len;
    return true;
  }
  int64_t runs(uintptr_t p, int64_t stride, int64_t len, int64_t n) {
    scatter(src, p, stride, len, n);
    src += n * len;
    return n;
  }
};

struct IovecVisitor {
  iovec* out;
  size_t max;
  size_t n = 0;
  bool add(uintptr_t p, int64_t len) {
    if (n > 0 && reinterpret_cast<uintptr_t>(out[n - 1].iov_base) + out[n - 1].iov_len == p) {
      out[n - 1].iov_len += static_cast<size_t>(len);
      return true;
    }
    if (n == max) return false;
    out[n++] = iovec{ptr(p), static_cast<size_t>(len)};
    return true;
  }
  bool block(uintptr_t p, int64_t len) { return add(p, len); }
  int64_t runs(uintptr_t p, int64_t stride, int64_t len, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      if (!add(p + static_cast<uintptr_t>(i * stride), len)) return i;
    return count;
  }
};

}  // namespace

Cursor::Cursor(void* buf, size_t count, const Type& type)
    : type_(const_cast<Type*>(&type)), writable_(true) {
  reset(reinterpret_cast<uintptr_t>(buf), static_cast<int64_t>(count), type.extent(),
        type.data_program());
}

Cursor::Cursor(const void* buf, size_t count, const Type& type)
    : type_(const_cast<Type*>(&type)), writable_(false) {
  reset(reinterpret_cast<uintptr_t>(buf), static_cast<int64_t>(count), type.extent(),
        type.data_program());
}

Cursor::Cursor(Cursor&& o) noexcept { take(std::move(o)); }

Cursor& Cursor::operator=(Cursor&& o) noexcept {
  if (this != &o) take(std::move(o));
  return *this;
}

// Frames may point at the other cursor's top_ node, which does not move.
void Cursor::take(Cursor&& o) {
  type_ = std::move(o.type_);
  writable_ = o.writable_;
  top_ = o.top_;
  root_ = o.root_ == &o.top_ ? &top_ : o.root_;
  origin_ = o.origin_;
  heap_ = std::move(o.heap_);
  heap_cap_ = o.heap_cap_;
  depth_ = o.depth_;
  leaf_off_ = o.leaf_off_;
  pos_ = o.pos_;
  total_ = o.total_;
  if (!heap_) std::copy(o.inline_, o.inline_ + depth_, inline_);
  Frame* fr = frames();
  for (int i = 0; i < depth_; ++i)
    if (fr[i].node == &o.top_) fr[i].node = &top_;
  o.root_ = nullptr;
  o.depth_ = 0;
  o.pos_ = o.total_ = 0;
  o.heap_cap_ = 0;
}

void Cursor::reset(uintptr_t base, int64_t count, int64_t extent, const Program& prog) {
  depth_ = 0;
  leaf_off_ = 0;
  pos_ = 0;
  root_ = nullptr;
  total_ = count * prog.size();
  if (total_ == 0) return;
  origin_ = base + static_cast<uintptr_t>(prog.disp);
  const Node& r = *prog.root;
  if (program::merge_repeat(count, extent, r, &top_)) {
    root_ = &top_;
  } else if (count == 1) {
    root_ = &r;
  } else {
    top_.kind = Node::Kind::kRepeat;
    top_.count = count;
    top_.stride = extent;
    top_.child = &r;
    top_.size = total_;
    top_.depth = 1 + r.depth;
    root_ = &top_;
  }
  if (root_->depth > kInlineFrames && root_->depth > heap_cap_) {
    heap_ = std::make_unique<Frame[]>(static_cast<size_t>(root_->depth));
    heap_cap_ = root_->depth;
  }
  push_leftmost(frames(), root_, origin_);
}

void Cursor::push_leftmost(Frame* fr, const Node* n, uintptr_t base) {
  for (;;) {
    fr[depth_++] = Frame{n, 0, base};
    if (n->kind == Node::Kind::kBlocks) return;
    if (n->kind == Node::Kind::kList) {
      base += static_cast<uintptr_t>(n->entries[0].disp);
      n = n->entries[0].node;
    } else {
      n = n->child;
    }
  }
}

// The leaf on top is finished: step to the first run of the next one.
void Cursor::next_leaf(Frame* fr) {
  --depth_;
  while (depth_ > 0) {
    Frame& p = fr[depth_ - 1];
    if (++p.idx < p.node->count) {
      if (p.node->kind == Node::Kind::kRepeat) {
        push_leftmost(fr, p.node->child, p.base + static_cast<uintptr_t>(p.idx * p.node->stride));
      } else {
        const ListEntry& e = p.node->entries[static_cast<size_t>(p.idx)];
        push_leftmost(fr, e.node, p.base + static_cast<uintptr_t>(e.disp));
      }
      return;
    }
    --depth_;
  }
}

void Cursor::seek(size_t offset) {
  depth_ = 0;
  leaf_off_ = 0;
  pos_ = std::min(clamp_bytes(offset), total_);
  if (pos_ == total_) return;
  Frame* fr = frames();
  const Node* n = root_;
  uintptr_t base = origin_;
  int64_t rem = pos_;
  for (;;) {
    switch (n->kind) {
      case Node::Kind::kBlocks:
        fr[depth_++] = Frame{n, rem / n->len, base};
        leaf_off_ = rem % n->len;
        return;
      case Node::Kind::kRepeat: {
        const int64_t idx = rem / n->child->size;
        rem -= idx * n->child->size;
        fr[depth_++] = Frame{n, idx, base};
        base += static_cast<uintptr_t>(idx * n->stride);
        n = n->child;
        break;
      }
      case Node::Kind::kList: {
        auto it = std::upper_bound(
            n->entries.begin(), n->entries.end(), rem,
            [](int64_t v, const ListEntry& e) { return v < e.packed_before; });
        --it;
        rem -= it->packed_before;
        fr[depth_++] = Frame{n, it - n->entries.begin(), base};
        base += static_cast<uintptr_t>(it->disp);
        n = it->node;
        break;
      }
    }
  }
}

size_t Cursor::pack(void* dst, size_t max_bytes) {
  PackVisitor v{static_cast<char*>(dst)};
  return static_cast<size_t>(walk(clamp_bytes(max_bytes), v));
}

size_t Cursor::unpack(const void* src, size_t n_bytes) {
  assert(writable_ && "unpack into a cursor built on a const buffer");
  UnpackVisitor v{static_cast<const char*>(src)};
  return static_cast<size_t>(walk(clamp_bytes(n_bytes), v));
}

size_t Cursor::iovecs(iovec* out, size_t max_entries, size_t max_bytes, size_t* bytes) {
  IovecVisitor v{out, max_entries};
  const int64_t got = walk(clamp_bytes(max_bytes), v);
  if (bytes) *bytes = static_cast<size_t>(got);
  return v.n;
}

}  // namespace ftmpi::dtype
