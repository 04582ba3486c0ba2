// Shared by the chapter 5-6 entry points (groups, communicators,
// intercommunicators, attributes, topologies): handle lookups, adopting a
// newly built communicator, and the life cycle of freed communicators.
#pragma once
#include <memory>

#include "api/call.hpp"
#include "api/runtime.hpp"
#include "comm/model/communicator.hpp"
#include "comm/ops/group_algebra.hpp"

namespace ftmpi::api {

// How members are named in values that several processes compute from a
// group (comm/ops/group_algebra.hpp): by slot alone in transparent mode.
inline comm::ops::Naming member_naming() {
  return rt()->logging ? comm::ops::Naming::kSlot : comm::ops::Naming::kIncarnation;
}

// The group behind a handle (MPI_GROUP_EMPTY included), or nullptr.
const comm::GroupRef* lookup_group(MPI_Group h);
// A new handle for `g`; an empty group is always MPI_GROUP_EMPTY.
MPI_Group group_handle(comm::GroupRef g);

// Registers a communicator built from `parent` (it inherits the parent's
// error handler, MPI-1.2 §7.2) and returns its handle; MPI_COMM_NULL for null.
MPI_Comm adopt_comm(std::unique_ptr<comm::Communicator> c, comm::Communicator& parent);

// Deletes a user communicator: its attributes' delete callbacks (in the order
// they were set), its handle, and the object itself once no operation is in
// flight on it. Returns the first failing delete callback's code, or 0.
int destroy_comm(MPI_Comm h);

// Frees communicators parked by destroy_comm whose operations have finished.
void reap_zombie_comms();

// An error handler freed while communicators still used it goes away when
// the last of them lets go of it.
void drop_errhandler_if_retired(MPI_Errhandler eh);

// MPI_Errhandler_create / set / get and their MPI-2 names
// (MPI_Comm_create_errhandler, ...): the work and the checks, reported
// under the name of the `call` (errhandler.cpp).
int errhandler_create(Call& call, MPI_Handler_function* function, MPI_Errhandler* errhandler);
int errhandler_set(Call& call, MPI_Comm ch, MPI_Errhandler errhandler);
int errhandler_get(Call& call, MPI_Comm ch, MPI_Errhandler* errhandler);

// Reports the (arbitrary, user-chosen) code an attribute callback returned.
int callback_failure(Call& call, comm::Communicator* c, int code, const char* what);

}  // namespace ftmpi::api
