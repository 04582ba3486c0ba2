#include "dtype/padding.hpp"

#include <algorithm>
#include <cstring>

#include "dtype/type.hpp"

namespace ftmpi::dtype {
namespace {

struct Window {
  uint64_t lo, hi;  // stream offsets held
  uint8_t* at;      // the byte of offset lo
};

void zero(const Window& w, uint64_t from, uint64_t to) {
  from = std::max(from, w.lo);
  to = std::min(to, w.hi);
  if (from < to) std::memset(w.at + (from - w.lo), 0, to - from);
}

// One item of t whose packed bytes start at stream offset pos; blocks and
// repetitions wholly before the window are stepped over, not walked.
void walk(const Type& t, uint64_t pos, const Window& w) {
  const auto size = static_cast<uint64_t>(t.size());
  if (!t.padded() || pos >= w.hi || pos + size <= w.lo) return;
  if (t.is_builtin()) {
    zero(w, pos + kLongDoubleValueBytes, pos + kLongDoubleValueBytes + padding_of(t.builtin()));
    return;
  }
  const auto reps = static_cast<uint64_t>(t.reps());
  const uint64_t rep_bytes = size / reps;
  uint64_t r = pos < w.lo ? (w.lo - pos) / rep_bytes : 0;
  for (pos += r * rep_bytes; r < reps && pos < w.hi; ++r) {
    for (const TypeBlock& b : t.blocks()) {
      const auto csize = static_cast<uint64_t>(b.child->size());
      const uint64_t bytes = static_cast<uint64_t>(b.blocklen) * csize;
      if (bytes > 0 && b.child->padded() && pos + bytes > w.lo) {
        uint64_t k = pos < w.lo ? (w.lo - pos) / csize : 0;
        for (uint64_t q = pos + k * csize; k < static_cast<uint64_t>(b.blocklen) && q < w.hi; ++k, q += csize)
          walk(*b.child, q, w);
      }
      pos += bytes;
      if (pos >= w.hi) return;
    }
  }
}

}  // namespace

void clear_padding(const Type& t, uint64_t offset, uint8_t* packed, size_t n) {
  const auto size = static_cast<uint64_t>(t.size());
  if (!t.padded() || size == 0 || n == 0) return;
  const Window w{offset, offset + n, packed};
  for (uint64_t pos = offset / size * size; pos < w.hi; pos += size) walk(t, pos, w);
}

}  // namespace ftmpi::dtype
