// Algorithm: Rabenseifner's reduce (reduce-scatter by recursive halving,
// then a binomial gather to the root; MPICH MPIR_Reduce_intra_reduce_scatter_gather,
// R. Rabenseifner, "Optimization of collective reduction operations", 2004).
// For p not a power of two, the first 2r members (r = p - 2^floor(log2 p),
// relative to the root) pair up first and the odd one of each pair drops
// out. Every block is reduced by one member only, so the combination order
// differs from rank order: commutative ops only.
// Cost: 2 log2 p * alpha + 2 ((p - 1) / p) m * beta + ((p - 1) / p) m * gamma
// (plus one m-sized step when p is not a power of two).
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err reduce_rabenseifner(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  const int v = mod(me - a.root, n);
  const int pof2 = pow2_floor(n), rem = n - pof2;
  auto real = [&](int vr) { return (vr + a.root) % n; };
  auto nreal = [&](int nr) { return nr < rem ? real(2 * nr) : real(nr + rem); };
  const EvenBlocks blk(a.count, pof2);
  Xfer x(t, AlgoId::kReduceRabenseifner);
  void* acc = me == a.root ? a.rbuf : temp_items(x, ty, a.count);
  void* tmp = temp_items(x, ty, a.count);
  // My data stays in the send buffer until the first combination writes
  // acc: a whole-vector copy less (the ops are commutative, so the received
  // part can take the role of inout).
  const void* mine = a.sbuf;

  if (v < 2 * rem) {
    if (v & 1) {
      x.send(real(v - 1), mine, a.count, *a.type, 0);
      if (Err e = x.wait(); !ok(e)) return e;
      return x.result();
    }
    x.recv(real(v + 1), acc, a.count, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    op.apply(mine, acc, a.count, ty);
    mine = acc;
  }
  const int nr = v < 2 * rem ? v / 2 : v - rem;

  // Reduce-scatter: halve the window of blocks each step; nr ends with block nr.
  int lo = 0, hi = pof2, step = 1;
  for (int m = pof2 / 2; m >= 1; m >>= 1, ++step) {
    const int partner = nr ^ m, mid = lo + m;
    const int keep_lo = (nr & m) ? mid : lo, keep_hi = (nr & m) ? hi : mid;
    const int give_lo = (nr & m) ? lo : mid, give_hi = (nr & m) ? mid : hi;
    // Until the first step, my data is in the send buffer and the partner's
    // part lands straight in acc; afterwards acc holds mine.
    const bool first = mine != acc;
    void* in = first ? acc : tmp;
    x.send(nreal(partner), item(mine, ty, blk.off(give_lo)), blk.cnt(give_lo, give_hi), *a.type, step);
    x.recv(nreal(partner), item(in, ty, blk.off(keep_lo)), blk.cnt(keep_lo, keep_hi), *a.type, step);
    if (Err e = x.wait(); !ok(e)) return e;
    if (first) op.apply(item(mine, ty, blk.off(keep_lo)), item(acc, ty, blk.off(keep_lo)), blk.cnt(keep_lo, keep_hi), ty);
    else op.apply(item(tmp, ty, blk.off(keep_lo)), item(acc, ty, blk.off(keep_lo)), blk.cnt(keep_lo, keep_hi), ty);
    mine = acc;
    lo = keep_lo;
    hi = keep_hi;
  }

  if (mine != acc) copy_items(a.sbuf, acc, a.count, ty);  // a team of one
  // Binomial gather of the blocks to nr 0, the root.
  for (int m = 1; m < pof2; m <<= 1, ++step) {
    if (nr & m) {
      x.send(nreal(nr - m), item(acc, ty, blk.off(nr)), blk.cnt(nr, nr + m), *a.type, step);
      if (Err e = x.wait(); !ok(e)) return e;
      break;
    }
    x.recv(nreal(nr + m), item(acc, ty, blk.off(nr + m)), blk.cnt(nr + m, nr + 2 * m), *a.type, step);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
