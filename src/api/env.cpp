// Environment inquiry and profiling control: MPI_Get_version (MPI-1.2 §7.1)
// and MPI_Pcontrol (§8.2). Both may be called at any time, even before
// MPI_Init or after MPI_Finalize.
#include "api/pmpi.hpp"
#include "base/log.hpp"
#include "mpi.h"

extern "C" {

int PMPI_Get_version(int* version, int* subversion) {
  if (!version || !subversion) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_version, PMPI_Get_version)

// The library itself collects no profile, so the level changes nothing here
// (it is logged for FTMPI_DEBUG); a profiling library that defines
// MPI_Pcontrol sees every call first.
int PMPI_Pcontrol(const int level, ...) {
  FTMPI_LOG(kInfo, "api", "MPI_Pcontrol(%d)", level);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Pcontrol, PMPI_Pcontrol)

}  // extern "C"
