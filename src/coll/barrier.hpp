// Collective operations run over the engine's point-to-point on the
// communicator's collective context, so they never mix with user traffic.
#pragma once
#include "base/err.hpp"
#include "comm/model/communicator.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll {

// Dissemination barrier (Hensgen, Finkel, Manber 1988): ceil(log2 n) rounds;
// in round k every process signals (me + 2^k) mod n and waits for
// (me - 2^k) mod n. Zero-byte messages; cost ceil(log2 n) latencies.
Err barrier(p2p::Engine& eng, comm::Communicator& c);

}  // namespace ftmpi::coll
