// Algorithm: flat broadcast: the root sends to every member at once.
// On shared memory a large message is read by each receiver straight from
// the root's buffer (single copy), so the p - 1 copies run in parallel on
// the receivers' cores and there is one round only; with p above the core
// count this beats trees, whose inner members must wake up to forward.
// With few ranks and big rings a large message goes through the rings
// instead (Xfer::prefer_rings): root and receiver then copy at once.
// Cost: alpha + (p - 1) * m * beta at the root (eager), one round.
#include "coll/algorithms.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll {

Err bcast_linear(const Team& t, const BcastArgs& a) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kBcastLinear);
  if (me == a.root) {
    x.prefer_rings(a.count * static_cast<size_t>((*a.type)->size()));
    // Nearest members first, so the sends fan out in a stable order.
    for (int k = 1; k < n; ++k) x.send((a.root + k) % n, a.buf, a.count, *a.type, 0);
  } else {
    x.recv(a.root, a.buf, a.count, *a.type, 0);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
