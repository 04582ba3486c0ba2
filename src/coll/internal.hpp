// Collectives the library itself needs on raw bytes (communicator creation,
// FT protocols), independent of MPI datatypes and reduction ops. They run on
// the communicator's collective context like every collective, so they must
// be called by all members in the same order as the user's collectives.
#pragma once
#include <cstddef>

#include "base/err.hpp"
#include "comm/model/communicator.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll {

// Every member contributes `n` bytes; `all` receives size()*n bytes in rank
// order. Ring algorithm: size()-1 steps, each forwarding one block.
Err allgather_bytes(p2p::Engine& eng, comm::Communicator& c, const void* mine, size_t n, void* all);

// Binomial-tree broadcast of `n` bytes from `root`.
Err bcast_bytes(p2p::Engine& eng, comm::Communicator& c, void* buf, size_t n, int root);

}  // namespace ftmpi::coll
