// Communicator queries needed by every program (the rest of chapter 5 is in
// the communicator files).
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Comm_size(MPI_Comm ch, int* size) {
  Call call("MPI_Comm_size");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!size) return call.fail(c, Err::kArg, "size pointer is null");
  *size = c->size();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_size, PMPI_Comm_size)

int PMPI_Comm_rank(MPI_Comm ch, int* rank) {
  Call call("MPI_Comm_rank");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!rank) return call.fail(c, Err::kArg, "rank pointer is null");
  *rank = c->rank();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_rank, PMPI_Comm_rank)

}  // extern "C"
