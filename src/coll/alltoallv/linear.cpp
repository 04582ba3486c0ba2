// Algorithm: direct alltoallv: every send and receive posted at once (see
// alltoall/linear.cpp).
// Cost: alpha + (sent + received) * beta, one round.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err alltoallv_linear(const Team& t, const VArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type &st = **a.stype, &rt = **a.rtype;
  auto sblock = [&](int i) { return item(a.sbuf, st, static_cast<size_t>(a.sdispls[t.rank_of(i)])); };
  auto rblock = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(a.rdispls[t.rank_of(i)])); };
  auto scount = [&](int i) { return static_cast<size_t>(a.scounts[t.rank_of(i)]); };
  auto rcount = [&](int i) { return static_cast<size_t>(a.rcounts[t.rank_of(i)]); };
  Xfer x(t, AlgoId::kAlltoallvLinear);
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = mod(me - k, n);
    x.recv(from, rblock(from), rcount(from), *a.rtype, 0);
    x.send(to, sblock(to), scount(to), *a.stype, 0);
  }
  copy_typed(sblock(me), scount(me), st, rblock(me), rcount(me), rt);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
