// Algorithm: binomial-tree barrier (fan-in to member 0, then fan-out), as
// in MPICH's and Open MPI's tree barriers. Every member waits for its
// children, tells its parent, waits for the release and releases its
// children.
// Cost: 2 * ceil(log2 p) * alpha on the critical path but only 2 (p - 1)
// messages, and a leaf wakes up only twice: cheaper than dissemination
// when members outnumber cores and every message costs a wake-up.
#include "coll/algorithms.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll {

Err barrier_tree(const Team& t) {
  const int n = t.size(), me = t.me();
  if (n == 1) return Err::kOk;
  Xfer x(t, AlgoId::kBarrierTree);
  // Children are me + m for every power of two m below my lowest set bit.
  const int top = me == 0 ? n : lowest_bit(me);
  for (int m = 1; m < top && me + m < n; m <<= 1) x.recv_bytes(me + m, nullptr, 0, 0);
  if (Err e = x.wait(); !ok(e)) return e;
  if (me != 0) {
    x.send_bytes(me - lowest_bit(me), nullptr, 0, 0);
    x.recv_bytes(me - lowest_bit(me), nullptr, 0, 1);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  for (int m = 1; m < top && me + m < n; m <<= 1) x.send_bytes(me + m, nullptr, 0, 1);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
