// Algorithm: recursive-doubling inclusive scan (MPICH MPIR_Scan_intra_recursive_doubling).
// Every member keeps the partial result of a block of consecutive members
// that ends with itself; in step k it exchanges that partial with me ^ 2^k
// and adds the lower partner's partial in front of both its result and its
// partial. The combination stays in rank order (any op).
// Cost: ceil(log2 p) * (alpha + m * beta + 2 m * gamma).
#include <utility>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err scan_recursive_doubling(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  Xfer x(t, AlgoId::kScanRecursiveDoubling);
  void* partial = temp_items(x, ty, a.count);
  void* tmp = temp_items(x, ty, a.count);
  copy_items(a.sbuf, partial, a.count, ty);
  copy_items(a.sbuf, a.rbuf, a.count, ty);
  for (int m = 1, step = 0; m < n; m <<= 1, ++step) {
    const int partner = me ^ m;
    if (partner >= n) continue;
    x.send(partner, partial, a.count, *a.type, step);
    x.recv(partner, tmp, a.count, *a.type, step);
    if (Err e = x.wait(); !ok(e)) return e;
    if (partner < me) {
      combine(op, tmp, partial, a.count, ty);
      combine(op, tmp, a.rbuf, a.count, ty);
    } else {
      combine(op, partial, tmp, a.count, ty);
      std::swap(partial, tmp);
    }
  }
  return x.result();
}

}  // namespace ftmpi::coll
