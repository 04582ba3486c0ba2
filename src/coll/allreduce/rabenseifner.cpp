// Algorithm: Rabenseifner's allreduce (reduce-scatter by recursive halving,
// allgather by recursive doubling; MPICH MPIR_Allreduce_intra_reduce_scatter_allgather).
// For p not a power of two the first 2r members (r = p - 2^floor(log2 p))
// pair up before and after. Each block is reduced by exactly one member, so
// every member ends with bitwise the same result, but not in rank order:
// commutative ops only.
// Cost: 2 log2 p * alpha + 2 ((p - 1) / p) m * beta + ((p - 1) / p) m * gamma
// (plus two m-sized steps when p is not a power of two).
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allreduce_rabenseifner(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  const int pof2 = pow2_floor(n), rem = n - pof2;
  auto nreal = [&](int nr) { return nr < rem ? 2 * nr : nr + rem; };
  const EvenBlocks blk(a.count, pof2);
  Xfer x(t, AlgoId::kAllreduceRabenseifner);
  void* acc = a.rbuf;
  void* tmp = temp_items(x, ty, a.count);
  // My data stays in the send buffer until the first combination writes
  // acc: a whole-vector copy less (the ops are commutative, so the received
  // part can take the role of inout).
  const void* mine = a.sbuf;

  if (me < 2 * rem) {
    if (me & 1) {
      // Hand my data to my partner, then wait for the result.
      x.send(me - 1, mine, a.count, *a.type, 0);
      if (Err e = x.wait(); !ok(e)) return e;
      x.recv(me - 1, acc, a.count, *a.type, 40);
      if (Err e = x.wait(); !ok(e)) return e;
      return x.result();
    }
    x.recv(me + 1, acc, a.count, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    op.apply(mine, acc, a.count, ty);
    mine = acc;
  }
  const int nr = me < 2 * rem ? me / 2 : me - rem;

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

  // Allgather: the window doubles back to all blocks.
  for (int m = 1; m < pof2; m <<= 1, ++step) {
    const int partner = nr ^ m;
    const int own = nr & ~(m - 1), theirs = partner & ~(m - 1);
    x.send(nreal(partner), item(acc, ty, blk.off(own)), blk.cnt(own, own + m), *a.type, step);
    x.recv(nreal(partner), item(acc, ty, blk.off(theirs)), blk.cnt(theirs, theirs + m), *a.type, step);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  if (mine != acc) copy_items(a.sbuf, acc, a.count, ty);  // a team of one
  if (me < 2 * rem) {
    x.send(me + 1, acc, a.count, *a.type, 40);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
