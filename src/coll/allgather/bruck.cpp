// Algorithm: Bruck allgather (Bruck et al., "Efficient algorithms for
// all-to-all communications in multiport message-passing systems", 1997;
// MPICH MPIR_Allgather_intra_brucks). Member i collects blocks i, i+1, ...
// in a packed buffer; in step k it sends its first min(2^k, p - 2^k) blocks
// to i - 2^k and appends as many from i + 2^k; a final pass puts every block
// at its place in the user's layout.
// Cost: ceil(log2 p) * alpha + ((p - 1) / p) p m * beta for any p: the
// logarithmic choice for small blocks.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allgather_bruck(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& rt = **a.rtype;
  const size_t blk = packed_size(**a.stype, a.scount);
  Xfer x(t, AlgoId::kAllgatherBruck);
  uint8_t* buf = x.scratch(blk * static_cast<size_t>(n));
  pack(a.sbuf, a.scount, **a.stype, buf);
  for (int dist = 1, step = 0; dist < n; dist <<= 1, ++step) {
    const size_t cnt = static_cast<size_t>(std::min(dist, n - dist));
    x.recv_bytes((me + dist) % n, buf + static_cast<size_t>(dist) * blk, cnt * blk, step);
    x.send_bytes(mod(me - dist, n), buf, cnt * blk, step);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  for (int j = 0; j < n; ++j) {
    const int owner = (me + j) % n;
    unpack(buf + static_cast<size_t>(j) * blk, item(a.rbuf, rt, static_cast<size_t>(t.rank_of(owner)) * a.rcount),
           a.rcount, rt);
  }
  return x.result();
}

}  // namespace ftmpi::coll
