// Algorithm: Bruck alltoall (Bruck et al. 1997; MPICH MPIR_Alltoall_intra_brucks).
// After a local rotation, step k sends to i + 2^k, in one message, every
// block whose index has bit k set, so each block reaches its destination in
// at most ceil(log2 p) hops; a final pass unrotates into the user's layout.
// Cost: ceil(log2 p) * (alpha + (p / 2) m * beta): fewest messages, the
// choice for small blocks.
#include <algorithm>
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err alltoall_bruck(const Team& t, const BlockArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type &st = **a.stype, &rt = **a.rtype;
  const size_t blk = packed_size(st, a.scount);
  Xfer x(t, AlgoId::kAlltoallBruck);
  uint8_t* buf = x.scratch(blk * static_cast<size_t>(n));
  const size_t most = static_cast<size_t>((n + 1) / 2);
  uint8_t* out = x.scratch(blk * most);
  uint8_t* in = x.scratch(blk * most);
  // buf[j] = my block for member me + j.
  for (int j = 0; j < n; ++j)
    pack(item(a.sbuf, st, static_cast<size_t>(t.rank_of((me + j) % n)) * a.scount), a.scount, st,
         buf + static_cast<size_t>(j) * blk);
  for (int dist = 1, step = 0; dist < n; dist <<= 1, ++step) {
    size_t cnt = 0;
    for (int j = dist; j < n; ++j)
      if (j & dist) std::memcpy(out + blk * cnt++, buf + static_cast<size_t>(j) * blk, blk);
    x.recv_bytes(mod(me - dist, n), in, cnt * blk, step);
    x.send_bytes((me + dist) % n, out, cnt * blk, step);
    if (Err e = x.wait(); !ok(e)) return e;
    cnt = 0;
    for (int j = dist; j < n; ++j)
      if (j & dist) std::memcpy(buf + static_cast<size_t>(j) * blk, in + blk * cnt++, blk);
  }
  // buf[j] came from member me - j.
  for (int j = 0; j < n; ++j) {
    const int from = mod(me - j, n);
    unpack(buf + static_cast<size_t>(j) * blk, item(a.rbuf, rt, static_cast<size_t>(t.rank_of(from)) * a.rcount),
           a.rcount, rt);
  }
  return x.result();
}

}  // namespace ftmpi::coll
