// ftmpi_binding_raise: lets a binding layer built on the C API (src/fortran) report
// an error of its own, one no C function would detect (a Fortran INTEGER too
// small for an address, no memory for a status array), through the same
// error handler and message as the C entry points. Exported (libftmpi.map)
// but not declared in mpi.h: it is not for applications.
#include "api/args.hpp"
#include "api/call.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

__attribute__((visibility("default"))) int ftmpi_binding_raise(MPI_Comm comm, int error_class, const char* call_name,
                                                       const char* detail) {
  Call call(call_name ? call_name : "ftmpi_binding_raise");
  if (error_class <= MPI_SUCCESS || error_class > MPI_ERR_LASTCODE) error_class = MPI_ERR_INTERN;
  return call.fail(lookup_comm(comm), static_cast<Err>(error_class), "%s", detail ? detail : "");
}

}  // extern "C"
