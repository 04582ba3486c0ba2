// Algorithm: linear scatter: the root sends every block from its place in
// the send buffer (receivers copy it straight from there on shared memory).
// Cost: (p - 1) * alpha + (p - 1) m * beta at the root, one round.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err scatter_linear(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kScatterLinear);
  if (me != a.root) {
    x.recv(a.root, a.rbuf, a.rcount, *a.rtype, 0);
  } else {
    const dtype::Type& st = **a.stype;
    auto block = [&](int i) { return item(a.sbuf, st, static_cast<size_t>(t.rank_of(i)) * a.scount); };
    for (int k = 1; k < n; ++k) {
      const int to = (a.root + k) % n;
      x.send(to, block(to), a.scount, *a.stype, 0);
    }
    copy_typed(block(me), a.scount, st, a.rbuf, a.rcount, **a.rtype);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
