// Reduction operations as the algorithms see them. Predefined ops run in
// dtype::apply; user ops (MPI_Op_create) take MPI handles, which only
// src/api knows, so api implements UserFunction and hands it down.
//
// Order: every algorithm combines two partial results as
//     hi := lo op hi
// where `lo` covers lower ranks than `hi` (combine()). Doing so everywhere
// keeps non-commutative ops in rank order, and makes both partners of a
// pairwise exchange compute bitwise the same value.
#pragma once
#include <cstddef>

#include "base/err.hpp"
#include "dtype/datatype.hpp"

namespace ftmpi::coll {

class UserFunction {
 public:
  virtual ~UserFunction() = default;
  // inout[i] = in[i] op inout[i] for `count` items of the call's datatype,
  // both buffers laid out as that datatype.
  virtual void invoke(const void* in, void* inout, size_t count) const = 0;
};

struct ReduceOp {
  dtype::OpKind kind = dtype::OpKind::kSum;  // when user == nullptr
  const UserFunction* user = nullptr;
  bool commutative = true;

  // inout := in op inout for `count` items of t.
  void apply(const void* in, void* inout, size_t count, const dtype::Type& t) const;
  // kOp when a predefined op does not apply to t (dtype::check).
  [[nodiscard]] Err check(const dtype::Type& t) const;
};

// hi := lo op hi; returns hi.
inline void* combine(const ReduceOp& op, const void* lo, void* hi, size_t count, const dtype::Type& t) {
  op.apply(lo, hi, count, t);
  return hi;
}

}  // namespace ftmpi::coll
