// Error handlers (MPI-1.2 §7.2): create, set, get, free. Communicators
// made from another one inherit its handler (api/comm_support.cpp). The
// MPI-2 names (comm_mpi2.cpp) run the same code under their own name.
#include <algorithm>

#include "api/args.hpp"
#include "api/call.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"

namespace ftmpi::api {

int errhandler_create(Call& call, MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  if (!function || !errhandler) return call.fail(nullptr, Err::kArg, "null argument");
  auto h = std::make_unique<ErrhandlerObj>();
  h->fn = function;
  *errhandler = rt()->errhandlers.add(std::move(h));
  return MPI_SUCCESS;
}

int errhandler_set(Call& call, MPI_Comm ch, MPI_Errhandler errhandler) {
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  const auto& retired = rt()->retired_errhandlers;
  if (!rt()->errhandlers.get(errhandler) || std::find(retired.begin(), retired.end(), errhandler) != retired.end())
    return call.fail(c, Err::kArg, "invalid error handler");
  const MPI_Errhandler old = state_of(*c).errhandler;
  state_of(*c).errhandler = errhandler;
  drop_errhandler_if_retired(old);
  return MPI_SUCCESS;
}

int errhandler_get(Call& call, MPI_Comm ch, MPI_Errhandler* errhandler) {
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!errhandler) return call.fail(c, Err::kArg, "errhandler pointer is null");
  *errhandler = state_of(*c).errhandler;
  return MPI_SUCCESS;
}

}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  Call call("MPI_Errhandler_create");
  return errhandler_create(call, function, errhandler);
}
FTMPI_WEAK_ALIAS(MPI_Errhandler_create, PMPI_Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm ch, MPI_Errhandler errhandler) {
  Call call("MPI_Errhandler_set");
  return errhandler_set(call, ch, errhandler);
}
FTMPI_WEAK_ALIAS(MPI_Errhandler_set, PMPI_Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm ch, MPI_Errhandler* errhandler) {
  Call call("MPI_Errhandler_get");
  return errhandler_get(call, ch, errhandler);
}
FTMPI_WEAK_ALIAS(MPI_Errhandler_get, PMPI_Errhandler_get)

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  Call call("MPI_Errhandler_free");
  if (!errhandler) return call.fail(nullptr, Err::kArg, "null argument");
  const auto& retired = rt()->retired_errhandlers;
  if (!rt()->errhandlers.get(*errhandler) || rt()->errhandlers.is_predefined(*errhandler) ||
      std::find(retired.begin(), retired.end(), *errhandler) != retired.end())
    return call.fail(nullptr, Err::kArg, "invalid or predefined error handler");
  // Communicators still using it keep a working handler: MPI-1.2 says the
  // object goes away only when no communicator refers to it.
  bool in_use = false;
  rt()->comms.for_each([&](int, comm::Communicator& c) { in_use |= state_of(c).errhandler == *errhandler; });
  if (!in_use) rt()->errhandlers.remove(*errhandler);
  else rt()->retired_errhandlers.push_back(*errhandler);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Errhandler_free, PMPI_Errhandler_free)

}  // extern "C"
