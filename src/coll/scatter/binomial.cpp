// Algorithm: binomial-tree scatter (MPICH MPIR_Scatter_intra_binomial).
// The root packs the blocks in order relative to itself; member v receives
// the blocks of its subtree v .. v + lowbit(v) - 1 in one message and
// passes on the parts of its children's subtrees.
// Cost: ceil(log2 p) * alpha + ((p - 1) / p) p m * beta: the choice for
// small blocks.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err scatter_binomial(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const int v = mod(me - a.root, n);
  auto real = [&](int vr) { return (vr + a.root) % n; };
  const int top = v == 0 ? n : lowest_bit(v);
  const int subtree = std::min(top, n - v);
  Xfer x(t, AlgoId::kScatterBinomial);
  if (subtree == 1 && v != 0) {  // a leaf receives its block as it is
    x.recv(real(v - lowest_bit(v)), a.rbuf, a.rcount, *a.rtype, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    return x.result();
  }
  const size_t blk = me == a.root ? packed_size(**a.stype, a.scount) : packed_size(**a.rtype, a.rcount);
  uint8_t* buf = x.scratch(blk * static_cast<size_t>(subtree));
  if (v == 0) {
    const dtype::Type& st = **a.stype;
    for (int j = 1; j < n; ++j)
      pack(item(a.sbuf, st, static_cast<size_t>(t.rank_of(real(j))) * a.scount), a.scount, st,
           buf + blk * static_cast<size_t>(j));
  } else {
    x.recv_bytes(real(v - lowest_bit(v)), buf, blk * static_cast<size_t>(subtree), 0);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  for (int m = v == 0 ? pow2_floor(n - 1) : top >> 1; m > 0; m >>= 1)
    if (v + m < n)
      x.send_bytes(real(v + m), buf + blk * static_cast<size_t>(m), blk * static_cast<size_t>(std::min(m, n - v - m)),
                   0);
  if (v == 0) {
    copy_typed(item(a.sbuf, **a.stype, static_cast<size_t>(t.rank_of(me)) * a.scount), a.scount, **a.stype, a.rbuf,
               a.rcount, **a.rtype);
  } else {
    unpack(buf, a.rbuf, a.rcount, **a.rtype);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
