// Algorithm: direct allgather: every member sends its block to every other
// member at once. On shared memory each receiver copies each block once,
// straight from the sender's buffer, and the whole exchange is one round, so
// it suits members that outnumber cores (one wake-up instead of p - 1).
// Cost: alpha + (p - 1) m * beta per member, in one round; p (p - 1) messages.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allgather_linear(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& rt = **a.rtype;
  auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(t.rank_of(i)) * a.rcount); };
  Xfer x(t, AlgoId::kAllgatherLinear);
  for (int k = 1; k < n; ++k) {
    const int from = mod(me - k, n), to = (me + k) % n;
    x.recv(from, block(from), a.rcount, *a.rtype, 0);
    x.send(to, a.sbuf, a.scount, *a.stype, 0);
  }
  copy_typed(a.sbuf, a.scount, **a.stype, block(me), a.rcount, rt);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
