// What the entry points of the schedule-based collectives share: the
// nonblocking collectives (coll_nonblocking.cpp, coll_nonblocking_reduce.cpp)
// and the MPI-2 blocking ones that run the same schedules (MPI_Exscan,
// MPI_Reduce_scatter_block, MPI_Alltoallw: coll_mpi2.cpp).
#pragma once
#include <memory>

#include "api/coll_support.hpp"
#include "api/in_place.hpp"
#include "api/requests.hpp"
#include "coll/nbc/builders.hpp"

namespace ftmpi::api {

// A new schedule over the team of `c`, with its user request (kind kColl),
// after the fault-tolerance entry check of a collective (spec/ft-semantics.md
// §4.2); null (and *code set) when refused.
std::unique_ptr<coll::nbc::Schedule> open_schedule(Call& call, comm::Communicator& c, int* code);

// Starts `s`. Nonblocking (request non-null): hands out the request.
// Blocking: waits for the end (giving up with MPI_ERR_OTHER when a failure
// interrupts the wait) and returns the call's code.
int run_schedule(Call& call, comm::Communicator& c, std::unique_ptr<coll::nbc::Schedule> s, MPI_Request* request);

// A datatype's TypeRef for a schedule, or kType (with the reason).
Err type_ref(MPI_Datatype dt, dtype::TypeRef* out, Why& w);

}  // namespace ftmpi::api
