#include "coll/reduce_op.hpp"

namespace ftmpi::coll {

void ReduceOp::apply(const void* in, void* inout, size_t count, const dtype::Type& t) const {
  if (count == 0) return;
  if (user) {
    user->invoke(in, inout, count);
    return;
  }
  // The API checked the pair before the collective started, so this cannot fail.
  (void)dtype::apply(kind, in, inout, count, t);
}

Err ReduceOp::check(const dtype::Type& t) const { return user ? Err::kOk : dtype::check(kind, t); }

}  // namespace ftmpi::coll
