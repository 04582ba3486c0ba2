// Algorithm: binomial-tree gather (MPICH MPIR_Gather_intra_binomial).
// Members are renumbered relative to the root; member v collects the packed
// blocks of its subtree v .. v + lowbit(v) - 1 and sends them to its parent
// in one message. The root unpacks every block into its place.
// Cost: ceil(log2 p) * alpha + ((p - 1) / p) p m * beta: few messages, the
// choice for small blocks.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err gather_binomial(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const int v = mod(me - a.root, n);
  auto real = [&](int vr) { return (vr + a.root) % n; };
  const int top = v == 0 ? n : lowest_bit(v);
  const int subtree = std::min(top, n - v);
  Xfer x(t, AlgoId::kGatherBinomial);
  if (subtree == 1 && v != 0) {  // a leaf sends its block as it is
    x.send(real(v - lowest_bit(v)), a.sbuf, a.scount, *a.stype, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    return x.result();
  }
  const size_t blk = me == a.root ? packed_size(**a.rtype, a.rcount) : packed_size(**a.stype, a.scount);
  uint8_t* buf = x.scratch(blk * static_cast<size_t>(subtree));
  for (int m = 1; m < top && v + m < n; m <<= 1)
    x.recv_bytes(real(v + m), buf + blk * static_cast<size_t>(m), blk * static_cast<size_t>(std::min(m, n - v - m)), 0);
  if (v != 0) pack(a.sbuf, a.scount, **a.stype, buf);
  if (Err e = x.wait(); !ok(e)) return e;
  if (v != 0) {
    x.send_bytes(real(v - lowest_bit(v)), buf, blk * static_cast<size_t>(subtree), 0);
    if (Err e = x.wait(); !ok(e)) return e;
    return x.result();
  }
  const dtype::Type& rt = **a.rtype;
  auto block = [&](int i) { return item(a.rbuf, rt, static_cast<size_t>(t.rank_of(i)) * a.rcount); };
  for (int j = 1; j < n; ++j) unpack(buf + blk * static_cast<size_t>(j), block(real(j)), a.rcount, rt);
  copy_typed(a.sbuf, a.scount, **a.stype, block(me), a.rcount, rt);
  return x.result();
}

}  // namespace ftmpi::coll
