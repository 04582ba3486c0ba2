// Algorithm: all-to-all barrier: every member sends a zero-byte message to
// every other member and waits for all of theirs. One round: the member that
// arrives last wakes everybody directly, instead of through the ceil(log2 p)
// relays of dissemination, each of which must be scheduled in turn when
// members outnumber cores.
// Cost: alpha + (p - 1) message starts per member; p (p - 1) messages.
#include "coll/algorithms.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll {

Err barrier_linear(const Team& t) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kBarrierLinear);
  for (int k = 1; k < n; ++k) {
    x.recv_bytes(mod(me - k, n), nullptr, 0, 0);
    x.send_bytes((me + k) % n, nullptr, 0, 0);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll
