// Algorithm: reduce-scatter by recursive halving (Thakur, Rabenseifner,
// Gropp, "Optimization of collective communication operations in MPICH",
// 2005; MPICH MPIR_Reduce_scatter_intra_recursive_halving). Step k halves
// the range of blocks a member is responsible for, exchanging the other half
// with nr ^ 2^k. For p not a power of two the first 2r members pair up, the
// odd one doing the work for both. Blocks are reduced out of rank order:
// commutative ops only.
// Cost: log2 p * alpha + ((p - 1) / p) n * beta + ((p - 1) / p) n * gamma for
// n bytes in all (plus one n-sized step when p is not a power of two).
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err reduce_scatter_halving(const Team& t, const ReduceScatterArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  // Block i (team order) = the block of communicator rank rank_of(i); the
  // work buffer holds the blocks in team order, back to back.
  std::vector<size_t> sdisp(static_cast<size_t>(t.comm().size()) + 1, 0);
  for (int r = 0; r < t.comm().size(); ++r) sdisp[r + 1] = sdisp[r] + static_cast<size_t>(a.rcounts[r]);
  std::vector<size_t> off(static_cast<size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) off[i + 1] = off[i] + static_cast<size_t>(a.rcounts[t.rank_of(i)]);
  const size_t total = off[n];

  Xfer x(t, AlgoId::kReduceScatterHalving);
  void* acc = temp_items(x, ty, total);
  void* tmp = temp_items(x, ty, total);
  for (int i = 0; i < n; ++i)
    copy_items(item(a.sbuf, ty, sdisp[t.rank_of(i)]), item(acc, ty, off[i]), off[i + 1] - off[i], ty);

  const int pof2 = pow2_floor(n), rem = n - pof2;
  auto first_block = [&](int nr) { return nr < rem ? 2 * nr : nr + rem; };  // of newrank nr
  auto items = [&](int nr_lo, int nr_hi) { return off[first_block(nr_hi)] - off[first_block(nr_lo)]; };
  auto at = [&](void* base, int nr) { return item(base, ty, off[first_block(nr)]); };

  if (me < 2 * rem) {
    if ((me & 1) == 0) {
      x.send(me + 1, acc, total, *a.type, 0);
      x.recv(me + 1, a.rbuf, off[me + 1] - off[me], *a.type, 40);
      if (Err e = x.wait(); !ok(e)) return e;
      return x.result();
    }
    x.recv(me - 1, tmp, total, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    op.apply(tmp, acc, total, ty);
  }
  const int nr = me < 2 * rem ? me / 2 : me - rem;
  auto nreal = [&](int r) { return r < rem ? 2 * r + 1 : r + rem; };

  int lo = 0, hi = pof2, step = 1;
  for (int m = pof2 / 2; m >= 1; m >>= 1, ++step) {
    const int partner = nr ^ m, mid = lo + m;
    const int keep_lo = (nr & m) ? mid : lo, keep_hi = (nr & m) ? hi : mid;
    const int give_lo = (nr & m) ? lo : mid, give_hi = (nr & m) ? mid : hi;
    x.send(nreal(partner), at(acc, give_lo), items(give_lo, give_hi), *a.type, step);
    x.recv(nreal(partner), at(tmp, keep_lo), items(keep_lo, keep_hi), *a.type, step);
    if (Err e = x.wait(); !ok(e)) return e;
    op.apply(at(tmp, keep_lo), at(acc, keep_lo), items(keep_lo, keep_hi), ty);
    lo = keep_lo;
    hi = keep_hi;
  }
  if (me < 2 * rem) {  // my window holds my partner's block, then mine
    x.send(me - 1, item(acc, ty, off[me - 1]), off[me] - off[me - 1], *a.type, 40);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  copy_items(item(acc, ty, off[me]), a.rbuf, off[me + 1] - off[me], ty);
  return x.result();
}

}  // namespace ftmpi::coll
