// Algorithm: pairwise-exchange alltoallv (see alltoall/pairwise.cpp) with
// each block at its own count and displacement.
// Cost: (p - 1) * alpha + (sent + received) * beta, p - 1 steps.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err alltoallv_pairwise(const Team& t, const VArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type &st = **a.stype, &rt = **a.rtype;
  auto sblock = [&](int i) { return item(a.sbuf, st, static_cast<size_t>(a.sdispls[t.rank_of(i)])); };
  auto rblock = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(a.rdispls[t.rank_of(i)])); };
  auto scount = [&](int i) { return static_cast<size_t>(a.scounts[t.rank_of(i)]); };
  auto rcount = [&](int i) { return static_cast<size_t>(a.rcounts[t.rank_of(i)]); };
  copy_typed(sblock(me), scount(me), st, rblock(me), rcount(me), rt);
  Xfer x(t, AlgoId::kAlltoallvPairwise);
  const bool pow2 = (n & (n - 1)) == 0;
  for (int k = 1; k < n; ++k) {
    const int to = pow2 ? me ^ k : (me + k) % n, from = pow2 ? me ^ k : mod(me - k, n);
    x.recv(from, rblock(from), rcount(from), *a.rtype, k);
    x.send(to, sblock(to), scount(to), *a.stype, k);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
