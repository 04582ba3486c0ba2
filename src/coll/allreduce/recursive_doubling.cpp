// Algorithm: recursive-doubling allreduce (MPICH MPIR_Allreduce_intra_recursive_doubling).
// In step k members nr and nr ^ 2^k exchange their whole partial results
// and both compute (lower half) op (upper half), so the combination is in
// rank order (any op, commutative or not) and both partners get bitwise the
// same value. For p not a power of two, the first 2r members (r = p -
// 2^floor(log2 p)) fold pairwise into the odd one before and get the result
// back after.
// Cost: log2 p * (alpha + m * beta + m * gamma) (+ 2 steps if p is not 2^k).
#include <utility>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allreduce_recursive_doubling(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  const int pof2 = pow2_floor(n), rem = n - pof2;
  auto nreal = [&](int nr) { return nr < rem ? 2 * nr + 1 : nr + rem; };
  Xfer x(t, AlgoId::kAllreduceRecursiveDoubling);
  void* acc = a.rbuf;
  void* tmp = temp_items(x, ty, a.count);
  copy_items(a.sbuf, acc, a.count, ty);

  if (me < 2 * rem) {
    if ((me & 1) == 0) {
      x.send(me + 1, acc, a.count, *a.type, 0);
      if (Err e = x.wait(); !ok(e)) return e;
      x.recv(me + 1, acc, a.count, *a.type, 40);
      if (Err e = x.wait(); !ok(e)) return e;
      return x.result();
    }
    x.recv(me - 1, tmp, a.count, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    combine(op, tmp, acc, a.count, ty);
  }
  const int nr = me < 2 * rem ? me / 2 : me - rem;

  for (int m = 1, step = 1; m < pof2; m <<= 1, ++step) {
    const int partner = nr ^ m;
    x.send(nreal(partner), acc, a.count, *a.type, step);
    x.recv(nreal(partner), tmp, a.count, *a.type, step);
    if (Err e = x.wait(); !ok(e)) return e;
    if (partner < nr) {
      combine(op, tmp, acc, a.count, ty);
    } else {
      combine(op, acc, tmp, a.count, ty);
      std::swap(acc, tmp);
    }
  }
  if (me < 2 * rem) {
    x.send(me - 1, acc, a.count, *a.type, 40);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  if (acc != a.rbuf) copy_items(acc, a.rbuf, a.count, ty);
  return x.result();
}

}  // namespace ftmpi::coll
