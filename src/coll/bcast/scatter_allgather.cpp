// Algorithm: scatter + allgather broadcast (van de Geijn; MPICH
// MPIR_Bcast_intra_scatter_ring_allgather). The packed message is cut into
// p chunks; a binomial scatter gives member v (relative to the root) chunk
// v, then a ring allgather completes everyone's copy.
// Cost: (log2 p + p - 1) * alpha + 2 ((p - 1) / p) m * beta: bandwidth-optimal
// for large messages when links, not memory, are the bottleneck.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err bcast_scatter_allgather(const Team& t, const BcastArgs& a) {
  const int n = t.size();
  const int v = mod(t.me() - a.root, n);
  auto real = [&](int vr) { return (vr + a.root) % n; };
  Xfer x(t, AlgoId::kBcastScatterAllgather);
  Packed data(x, a.buf, a.count, **a.type);
  const size_t total = data.size();
  const size_t chunk = (total + static_cast<size_t>(n) - 1) / static_cast<size_t>(n);
  // Bytes [first chunk, last chunk) of the packed message.
  auto lo = [&](int c) { return std::min(total, static_cast<size_t>(c) * chunk); };
  auto range = [&](int c0, int c1) { return lo(std::min(c1, n)) - lo(c0); };
  if (v == 0) data.load();

  // Binomial scatter: v receives chunks [v, v + lowbit(v)) from its parent.
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      x.recv_bytes(real(v - mask), data.bytes() + lo(v), range(v, v + mask), 0);
      if (Err e = x.wait(); !ok(e)) return e;
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) x.send_bytes(real(v + mask), data.bytes() + lo(v + mask), range(v + mask, v + 2 * mask), 0);
  if (Err e = x.wait(); !ok(e)) return e;

  // Ring allgather of the chunks, in the same relative numbering.
  const int right = real((v + 1) % n), left = real(mod(v - 1, n));
  for (int s = 0; s < n - 1; ++s) {
    int out = mod(v - s, n), in = mod(v - s - 1, n);
    x.recv_bytes(left, data.bytes() + lo(in), range(in, in + 1), s + 1);
    x.send_bytes(right, data.bytes() + lo(out), range(out, out + 1), s + 1);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  if (v != 0) data.store();
  return x.result();
}

}  // namespace ftmpi::coll
