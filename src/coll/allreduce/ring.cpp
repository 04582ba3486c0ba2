// Algorithm: ring allreduce (ring reduce-scatter, then ring allgather;
// Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters
// of workstations", 2009). The vector is cut into p blocks; in p - 1 steps
// each block travels once round the ring collecting every contribution, in
// p - 1 more steps the reduced blocks travel round again. Every block is
// reduced by one chain, so all members get bitwise the same result, but not
// in rank order: commutative ops only.
// Cost: 2 (p - 1) * alpha + 2 ((p - 1) / p) m * beta + ((p - 1) / p) m * gamma,
// for any p.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allreduce_ring(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  const EvenBlocks blk(a.count, n);
  const int right = (me + 1) % n, left = mod(me - 1, n);
  Xfer x(t, AlgoId::kAllreduceRing);
  void* acc = a.rbuf;
  void* tmp = temp_items(x, ty, blk.cnt(0));
  copy_items(a.sbuf, acc, a.count, ty);

  for (int s = 0; s < n - 1; ++s) {
    const int out = mod(me - s, n), in = mod(me - s - 1, n);
    x.send(right, item(acc, ty, blk.off(out)), blk.cnt(out), *a.type, s);
    x.recv(left, tmp, blk.cnt(in), *a.type, s);
    if (Err e = x.wait(); !ok(e)) return e;
    op.apply(tmp, item(acc, ty, blk.off(in)), blk.cnt(in), ty);
  }
  // Now block me + 1 is complete here.
  for (int s = 0; s < n - 1; ++s) {
    const int out = mod(me + 1 - s, n), in = mod(me - s, n);
    x.send(right, item(acc, ty, blk.off(out)), blk.cnt(out), *a.type, n + s);
    x.recv(left, item(acc, ty, blk.off(in)), blk.cnt(in), *a.type, n + s);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
