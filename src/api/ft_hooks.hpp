// Where the fault-tolerance layer (issue 6) meets the attribute code.
//
// The FTMPI_* attributes (keyvals 8-13, FT-MPI spec §6.1; spec/ft-semantics.md
// §2) are read-only ints on MPI_COMM_WORLD and MPI_COMM_SELF whose values the
// fault-tolerance layer owns. MPI_Attr_get asks ft_attribute_value();
// MPI_Attr_put and MPI_Attr_delete on these keys fail with MPI_ERR_ARG.
#pragma once
#include "mpi.h"

namespace ftmpi::api {

inline constexpr int kFirstFtKeyval = FTMPI_RECOVERY_MODE;
inline constexpr int kLastFtKeyval = FTMPI_ERROR_FAILURE;

// The value of FTMPI_* attribute `keyval` on `comm`, by address (the storage
// must outlive the caller's use: the FT layer keeps it), or nullptr when the
// attribute is not set. Issue 6 (fault tolerance core) implements this; until
// then no FTMPI_* attribute is set.
const int* ft_attribute_value(MPI_Comm comm, int keyval);

// The last step of a recovery (FT-MPI spec §6.3, spec/ft-semantics.md §4.3):
// runs the delete callbacks of MPI_COMM_WORLD's attributes in the order the
// attributes were set, every one even if another fails, and removes the
// attributes. Returns the first failing callback's code, or MPI_SUCCESS.
// (Implemented in attr.cpp; comm::AttrList::clear does the work, so a layer
// below src/api holding the world communicator can call that directly.)
int run_world_delete_callbacks();

struct Runtime;
class Call;
// MPI_Init: creates the fault-tolerance controller and connects it.
void ft_attach(Runtime& R);
// MPI_Comm_dup(MPI_COMM_WORLD) with an unrecovered failure (MANUAL, or AUTO
// before it recovered): runs the recovery, sets *newcomm to MPI_COMM_NULL and
// *code to the call's result. False when it is an ordinary dup.
bool ft_recover_world(Call& call, MPI_Comm* newcomm, int* code);

}  // namespace ftmpi::api
