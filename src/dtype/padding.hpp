// Data bytes that hold no value. Where long double is the x87 80-bit format
// (x86), it fills 10 of its 16 bytes: compilers store the 10 and leave the
// other 6 as the memory was, so two runs that compute the same values may
// pack different bytes. Transparent mode's message checksums clear them
// first (spec/transparent-mode.md §2), else a replay that sends the same
// values would look divergent.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>

#include "dtype/builtin.hpp"

namespace ftmpi::dtype {

class Type;

inline constexpr int kLongDoubleValueBytes =
    std::numeric_limits<long double>::digits == 64 ? 10 : static_cast<int>(sizeof(long double));

// Bytes without value after the first kLongDoubleValueBytes of a builtin's
// packed item (0: none). A pair packs its value first.
constexpr int padding_of(Builtin b) {
  if (b != Builtin::kLongDouble && b != Builtin::kLongDoubleInt) return 0;
  return static_cast<int>(sizeof(long double)) - kLongDoubleValueBytes;
}

// Zeroes the bytes without value in `packed`, which holds bytes
// [offset, offset + n) of the packed stream of items of `t`. Nothing to do
// unless t.padded(); the cost is that of the items in the window.
void clear_padding(const Type& t, uint64_t offset, uint8_t* packed, size_t n);

}  // namespace ftmpi::dtype
