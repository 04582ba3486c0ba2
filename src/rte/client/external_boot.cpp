// Chooses the boot backend for a process ftmpirun did not start.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "rte/client/boot_backend.hpp"
#include "rte/client/pmix_boot.hpp"

namespace ftmpi::rte {

Err open_external_boot(std::unique_ptr<BootBackend>& out) {
  out.reset();
  // A PMIx server (Slurm's mpi/pmix plugin, PRRTE) names its clients' namespace and rank.
  const char* ns = std::getenv("PMIX_NAMESPACE");
  const char* rank = std::getenv("PMIX_RANK");
  if (!ns || !*ns || !rank || !*rank) return Err::kOk;
  if (make_pmix_boot) {
    out = make_pmix_boot();
    return Err::kOk;
  }
  // Booting as a singleton would run N separate jobs of one: refuse instead.
  if (std::atoi(rank) == 0)
    std::fprintf(stderr,
                 "ftmpi: started by a PMIx launcher (srun --mpi=pmix), but this ftmpi has no PMIx support (built "
                 "without PMIx, or linked statically): use ftmpirun inside the allocation\n");
  std::fflush(nullptr);
  ::_exit(1);
}

}  // namespace ftmpi::rte
