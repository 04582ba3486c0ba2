// Collectives the library itself needs on raw bytes (communicator creation,
// FT protocols), independent of MPI datatypes and reduction ops. They run on
// the communicator's collective context like every collective, so they must
// be called by all members in the same order as the user's collectives.
// Blank ranks (BLANK mode) take no part: their blocks of `all` are left
// untouched, and a blank root of bcast_bytes is kRoot (nobody can send).
#pragma once
#include <cstddef>

#include "base/err.hpp"
#include "comm/model/communicator.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll {

// Every member contributes `n` bytes; `all` receives size()*n bytes in rank
// order. Ring algorithm: size()-1 steps, each forwarding one block.
Err allgather_bytes(p2p::Engine& eng, comm::Communicator& c, const void* mine, size_t n, void* all);

// The same result in ceil(log2 size()) rounds (Bruck, Kalns, Kipnis,
// Upfal, Weathersby 1997): in round k every member sends the blocks it has
// to (me - 2^k) and receives as many from (me + 2^k). For the small blocks
// of communicator creation, where latency is everything (and, with more
// ranks than cores, every hop is a wake-up), this beats the ring's size()-1
// dependent steps.
Err allgather_bytes_log(p2p::Engine& eng, comm::Communicator& c, const void* mine, size_t n, void* all);

// Binomial-tree broadcast of `n` bytes from `root`.
Err bcast_bytes(p2p::Engine& eng, comm::Communicator& c, void* buf, size_t n, int root);

}  // namespace ftmpi::coll
