// Environment state kept by the library outside the Runtime (it exists
// before MPI_Init and after MPI_Finalize).
#pragma once
#include "mpi.h"

namespace ftmpi::api {

// The last level passed to MPI_Pcontrol (1 until then), for library-side
// tracing that should follow the user's profiling switches.
int pcontrol_level();

}  // namespace ftmpi::api
