// Internal: computes every attribute and the compiled programs of a type.
#pragma once
#include <vector>

#include "dtype/type.hpp"

namespace ftmpi::dtype {

class TypeBuilder {
 public:
  // Index = Builtin value; entry 0 unused.
  static Type* make_builtin_table();
  // A derived type of `reps` repetitions, `rep_stride` bytes apart, of
  // `blocks` (children already validated). kArg if a size or bound overflows.
  [[nodiscard]] static Err build(Combiner c, int64_t reps, int64_t rep_stride,
                                 std::vector<TypeBlock> blocks, TypeRef* out);
  // One copy of `old` whose bounds are set to [lb, lb + extent) as markers.
  [[nodiscard]] static Err resize(const Type& old, int64_t lb, int64_t extent, TypeRef* out);

 private:
  static bool is_marker_only(const Type& t);
  // Data layout (units=false) or layout in whole units of t.unit() (units=true).
  static Program compile(const Type& t, bool units);
};

}  // namespace ftmpi::dtype
