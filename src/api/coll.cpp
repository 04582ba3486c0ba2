// Collective entry points (chapter 4).
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"
#include "coll/barrier.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Barrier(MPI_Comm ch) {
  Call call("MPI_Barrier");
  if (!call.running()) return MPI_ERR_OTHER;
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  return call.ret(c, coll::barrier(rt()->engine, *c));
}
FTMPI_WEAK_ALIAS(MPI_Barrier, PMPI_Barrier)

}  // extern "C"
