// Algorithm: dissemination barrier (Hensgen, Finkel, Manber, "Two algorithms
// for barrier synchronization", 1988). In round k every member signals
// (me + 2^k) mod p and waits for (me - 2^k) mod p; after ceil(log2 p) rounds
// everyone has heard, directly or not, from everyone.
// Cost: ceil(log2 p) * alpha; p * ceil(log2 p) zero-byte messages.
#include "coll/algorithms.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll {

Err barrier_dissemination(const Team& t) {
  const int n = t.size(), me = t.me();
  Xfer x(t, AlgoId::kBarrierDissemination);
  for (int k = 1, step = 0; k < n; k <<= 1, ++step) {
    x.recv_bytes(mod(me - k, n), nullptr, 0, step);
    x.send_bytes(mod(me + k, n), nullptr, 0, step);
    if (Err e = x.wait(); !ok(e)) return e;
  }
  return x.result();
}

}  // namespace ftmpi::coll
