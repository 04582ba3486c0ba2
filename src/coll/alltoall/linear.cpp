// Algorithm: direct alltoall: all p - 1 sends and receives are posted at
// once (MPICH MPIR_Alltoall_intra_scattered without its throttle), starting
// with the nearest members so that the load spreads. One round: the best
// choice when members outnumber cores and each round costs wake-ups.
// Cost: alpha + (p - 1) m * beta per member, one round.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err alltoall_linear(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type &st = **a.stype, &rt = **a.rtype;
  auto sblock = [&](int i) { return item(a.sbuf, st, static_cast<size_t>(t.rank_of(i)) * a.scount); };
  auto rblock = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(t.rank_of(i)) * a.rcount); };
  Xfer x(t, AlgoId::kAlltoallLinear);
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = mod(me - k, n);
    x.recv(from, rblock(from), a.rcount, *a.rtype, 0);
    x.send(to, sblock(to), a.scount, *a.stype, 0);
  }
  copy_typed(sblock(me), a.scount, st, rblock(me), a.rcount, rt);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
