// Algorithm: linear scatterv: the root sends every block from its own count
// and displacement, one round.
// Cost: (p - 1) * alpha + (sum of blocks) * beta at the root.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err scatterv_linear(const Team& t, const VArgs& a) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kScattervLinear);
  if (me != a.root) {
    x.recv(a.root, a.rbuf, a.rcount, *a.rtype, 0);
  } else {
    const dtype::Type& st = **a.stype;
    auto block = [&](int i) { return item(a.sbuf, st, static_cast<size_t>(a.sdispls[t.rank_of(i)])); };
    auto count = [&](int i) { return static_cast<size_t>(a.scounts[t.rank_of(i)]); };
    for (int k = 1; k < n; ++k) {
      const int to = (a.root + k) % n;
      x.send(to, block(to), count(to), *a.stype, 0);
    }
    copy_typed(block(me), count(me), st, a.rbuf, a.rcount, **a.rtype);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
