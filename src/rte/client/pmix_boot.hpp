// Boot through PMIx, for processes a PMIx server started (srun --mpi=pmix):
// rank, size and local peers from PMIx_Get; the secret, the local leader's
// socket name and the contact cards through put/commit/fence/get; the host's
// shared memory from the local leader (shm_handout.hpp). Only comm mode
// ABORT: FT and transparent modes are refused at MPI_Init with one line
// (no PMIx server at hand delivers what a recovery needs). In ABORT mode a
// death of another rank ends the job (PMIx_Abort), however it is noticed:
// a PMIx termination event where the server sends one, the pidfd of a rank
// on this host, or a transport error towards a remote rank.
#pragma once
#include <memory>

#include "rte/client/boot_backend.hpp"

namespace ftmpi::rte {

// Defined only where the rte_pmix module is linked (libftmpi.so built with
// PMIx); elsewhere this weak reference is null.
__attribute__((weak)) std::unique_ptr<BootBackend> make_pmix_boot();

}  // namespace ftmpi::rte
