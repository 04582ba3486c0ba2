// Algorithm: ring allgatherv (MPICH MPIR_Allgatherv_intra_ring): the ring
// allgather with each block at its own displacement and count.
// Cost: (p - 1) * alpha + (total - own) * beta per member.
#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allgatherv_ring(const Team& t, const VArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& rt = **a.rtype;
  auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(a.rdispls[t.rank_of(i)])); };
  auto count = [&](int i) { return static_cast<size_t>(a.rcounts[t.rank_of(i)]); };
  copy_typed(a.sbuf, a.scount, **a.stype, block(me), count(me), rt);
  Xfer x(t, AlgoId::kAllgathervRing);
  const int right = (me + 1) % n, left = mod(me - 1, n);
  for (int s = 0; s < n - 1; ++s) {
    const int out = mod(me - s, n), in = mod(me - s - 1, n);
    x.recv(left, block(in), count(in), *a.rtype, s);
    x.send(right, block(out), count(out), *a.rtype, s);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
