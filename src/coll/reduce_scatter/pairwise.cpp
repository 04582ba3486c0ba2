// Algorithm: pairwise-exchange reduce-scatter (MPICH
// MPIR_Reduce_scatter_intra_pairwise). In step k member i sends its
// contribution to block i + k to that member and adds the contribution of
// i - k to its own block, so each member reduces only its block and every
// contribution crosses one link once. Contributions are added in the order
// i, i - 1, i - 2, ...: commutative ops only.
// Cost: (p - 1) * alpha + ((p - 1) / p) n * beta + ((p - 1) / p) n * gamma.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err reduce_scatter_pairwise(const Team& t, const ReduceScatterArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  std::vector<size_t> sdisp(static_cast<size_t>(t.comm().size()) + 1, 0);
  for (int r = 0; r < t.comm().size(); ++r) sdisp[r + 1] = sdisp[r] + static_cast<size_t>(a.rcounts[r]);
  auto block = [&](int i) { return item(a.sbuf, ty, sdisp[t.rank_of(i)]); };
  auto count = [&](int i) { return static_cast<size_t>(a.rcounts[t.rank_of(i)]); };
  Xfer x(t, AlgoId::kReduceScatterPairwise);
  void* tmp = temp_items(x, ty, count(me));
  copy_items(block(me), a.rbuf, count(me), ty);
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = mod(me - k, n);
    x.recv(from, tmp, count(me), *a.type, k);
    x.send(to, block(to), count(to), *a.type, k);
    if (Err e = x.wait(); !ok(e)) return e;
    a.op->apply(tmp, a.rbuf, count(me), ty);
  }
  return x.result();
}

}  // namespace ftmpi::coll
