// Algorithm: linear gather: the root receives every block straight into its
// place in the receive buffer (single copy on shared memory) while the
// others send theirs.
// Cost: (p - 1) * alpha + (p - 1) m * beta at the root, one round.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err gather_linear(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kGatherLinear);
  if (me != a.root) {
    x.send(a.root, a.sbuf, a.scount, *a.stype, 0);
  } else {
    const dtype::Type& rt = **a.rtype;
    auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(t.rank_of(i)) * a.rcount); };
    for (int k = 1; k < n; ++k) {
      const int from = (a.root + k) % n;
      x.recv(from, block(from), a.rcount, *a.rtype, 0);
    }
    copy_typed(a.sbuf, a.scount, **a.stype, block(me), a.rcount, rt);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
