// Algorithm: chain scan. Member i waits for the prefix of members 0..i-1
// from i - 1, combines it in front of its own data and passes the result to
// i + 1. Only p - 1 messages and one combination per member (the recursive
// doubling scan does log2 p of each), at the price of p - 1 sequential steps.
// Cost: (p - 1) * (alpha + m * beta + m * gamma).
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err scan_linear(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  Xfer x(t, AlgoId::kScanLinear);
  copy_items(a.sbuf, a.rbuf, a.count, ty);
  if (me > 0) {
    void* prefix = temp_items(x, ty, a.count);
    x.recv(me - 1, prefix, a.count, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    combine(*a.op, prefix, a.rbuf, a.count, ty);
  }
  if (me + 1 < n) {
    x.send(me + 1, a.rbuf, a.count, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
