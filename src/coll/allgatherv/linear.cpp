// Algorithm: direct allgatherv: every member sends its block to every other
// member in one round (see allgather/linear.cpp).
// Cost: alpha + (total - own) * beta per member, one round.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allgatherv_linear(const Team& t, const VArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& rt = **a.rtype;
  auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(a.rdispls[t.rank_of(i)])); };
  auto count = [&](int i) { return static_cast<size_t>(a.rcounts[t.rank_of(i)]); };
  Xfer x(t, AlgoId::kAllgathervLinear);
  for (int k = 1; k < n; ++k) {
    const int from = mod(me - k, n), to = (me + k) % n;
    x.recv(from, block(from), count(from), *a.rtype, 0);
    x.send(to, a.sbuf, a.scount, *a.stype, 0);
  }
  copy_typed(a.sbuf, a.scount, **a.stype, block(me), count(me), rt);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
