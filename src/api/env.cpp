// Environment inquiry and profiling control: MPI_Get_version (MPI-1.2 §7.1)
// and MPI_Pcontrol (§8.2). Both may be called at any time, even before
// MPI_Init or after MPI_Finalize.
#include <cstdarg>

#include "api/env.hpp"
#include "api/pmpi.hpp"
#include "base/log.hpp"

namespace ftmpi::api {
namespace {
// MPI-1.2 §8.2: profiling is "enabled at the normal level" (1) at start.
int g_pcontrol_level = 1;
}  // namespace

int pcontrol_level() { return g_pcontrol_level; }

}  // namespace ftmpi::api

extern "C" {

int PMPI_Get_version(int* version, int* subversion) {
  if (!version || !subversion) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_version, PMPI_Get_version)

// The library itself collects no profile: it keeps the level (for tools that
// ask through the PMPI layer and for FTMPI_DEBUG logs), and a profiling
// library that defines MPI_Pcontrol sees every call first.
int PMPI_Pcontrol(const int level, ...) {
  ftmpi::api::g_pcontrol_level = level;
  FTMPI_LOG(kInfo, "api", "MPI_Pcontrol(%d)", level);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Pcontrol, PMPI_Pcontrol)

}  // extern "C"
