// Algorithm: linear gatherv: the root receives every block straight into
// its place (own count and displacement per member), one round.
// Cost: (p - 1) * alpha + (sum of blocks) * beta at the root.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err gatherv_linear(const Team& t, const VArgs& a) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kGathervLinear);
  if (me != a.root) {
    x.send(a.root, a.sbuf, a.scount, *a.stype, 0);
  } else {
    const dtype::Type& rt = **a.rtype;
    auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(a.rdispls[t.rank_of(i)])); };
    auto count = [&](int i) { return static_cast<size_t>(a.rcounts[t.rank_of(i)]); };
    for (int k = 1; k < n; ++k) {
      const int from = (a.root + k) % n;
      x.recv(from, block(from), count(from), *a.rtype, 0);
    }
    copy_typed(a.sbuf, a.scount, **a.stype, block(me), count(me), rt);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
