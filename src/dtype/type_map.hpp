// The explicit type map and the overlap check for receive buffers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "dtype/type.hpp"

namespace ftmpi::dtype {

struct TypeMapEntry {
  Builtin type;  // a primitive, MPI_LB or MPI_UB (pairs appear as their two members)
  int64_t disp;
  friend bool operator==(const TypeMapEntry&, const TypeMapEntry&) = default;
};

// The type map of one item in order (MPI-1.2 §3.12): markers included, pairs
// expanded. O(elements): for tests, debugging and small types; stops after
// max_entries entries.
std::vector<TypeMapEntry> type_map(const Type& t,
                                   size_t max_entries = std::numeric_limits<size_t>::max());

// True if receiving `count` items of `t` would write some byte twice, which
// MPI-1.2 §3.12.5 makes erroneous. Usually decided from the description;
// otherwise the data blocks of one item are listed and compared, and items
// are compared with their neighbours within the data span only.
bool has_overlap(const Type& t, int64_t count);

}  // namespace ftmpi::dtype
