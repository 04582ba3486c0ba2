// Algorithm: binomial-tree broadcast (MPICH MPIR_Bcast_intra_binomial).
// Members are renumbered relative to the root; member v receives from
// v - lowbit(v) and forwards to v + 2^k for every 2^k < lowbit(v). Data
// moves straight between user buffers, in the user's datatype.
// Cost: ceil(log2 p) * (alpha + m * beta).
#include "coll/algorithms.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll {

Err bcast_binomial(const Team& t, const BcastArgs& a) {
  const int n = t.size();
  const int v = mod(t.me() - a.root, n);
  auto real = [&](int vr) { return (vr + a.root) % n; };
  Xfer x(t, AlgoId::kBcastBinomial);
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      x.recv(real(v - mask), a.buf, a.count, *a.type, 0);
      if (Err e = x.wait(); !ok(e)) return e;
      break;
    }
  }
  // Largest subtree first: it has the longest way to go.
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) x.send(real(v + mask), a.buf, a.count, *a.type, 0);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
