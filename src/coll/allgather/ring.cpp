// Algorithm: ring allgather (MPICH MPIR_Allgather_intra_ring). In step s
// member i forwards to i + 1 the block it received in step s - 1 (first its
// own). Blocks travel straight from receive buffer to receive buffer in the
// user's datatype.
// Cost: (p - 1) * (alpha + m * beta), m = one block: bandwidth-optimal.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allgather_ring(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& rt = **a.rtype;
  auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(t.rank_of(i)) * a.rcount); };
  copy_typed(a.sbuf, a.scount, **a.stype, block(me), a.rcount, rt);
  Xfer x(t, AlgoId::kAllgatherRing);
  const int right = (me + 1) % n, left = mod(me - 1, n);
  for (int s = 0; s < n - 1; ++s) {
    const int out = mod(me - s, n), in = mod(me - s - 1, n);
    x.recv(left, block(in), a.rcount, *a.rtype, s);
    x.send(right, block(out), a.rcount, *a.rtype, s);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
