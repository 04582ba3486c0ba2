// Algorithm: pairwise-exchange alltoall (MPICH MPIR_Alltoall_intra_pairwise).
// In step k (1 <= k < p) member i sends to i ^ k and receives from it when
// p is a power of two, else sends to i + k and receives from i - k; one
// exchange per step keeps every link busy without contention. Blocks move
// straight between the user's buffers in the user's datatypes.
// Cost: (p - 1) * (alpha + m * beta): the choice for large blocks.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err alltoall_pairwise(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type &st = **a.stype, &rt = **a.rtype;
  auto sblock = [&](int i) { return item(a.sbuf, st, static_cast<size_t>(t.rank_of(i)) * a.scount); };
  auto rblock = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(t.rank_of(i)) * a.rcount); };
  copy_typed(sblock(me), a.scount, st, rblock(me), a.rcount, rt);
  Xfer x(t, AlgoId::kAlltoallPairwise);
  const bool pow2 = (n & (n - 1)) == 0;
  for (int k = 1; k < n; ++k) {
    const int to = pow2 ? me ^ k : (me + k) % n, from = pow2 ? me ^ k : mod(me - k, n);
    x.recv(from, rblock(from), a.rcount, *a.rtype, k);
    x.send(to, sblock(to), a.scount, *a.stype, k);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
