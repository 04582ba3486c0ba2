// The uniform agreement that ends every collective of an atomic team
// (FTMPI_COLL_MODE_ATOMIC). The protocol, its failure model and why it is
// uniform are in spec/ft-collectives.md §3; agreement.cpp follows it.
#pragma once
#include "base/err.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll::ft {

// Agrees on the outcome of the team's current call (Team::call_seq()) with
// every surviving member; `local` is this member's outcome (kOk or the
// error its run ended with). Returns the decision, the same on every
// survivor: kOk = COMMIT, kOther = ABORT. A member whose own outcome is an
// error returns ABORT at once (no COMMIT is possible without it); otherwise
// it waits, ignoring interrupts, until every member is heard from or known
// dead, which a perfect failure detector guarantees. An ABORT caused by a
// process failure returns only once this process has heard of a failure
// itself (engine interrupted, or a member known dead), so that in mode AUTO
// the recovery runs inside this call on every survivor.
[[nodiscard]] Err agree(const Team& t, Err local);

// Makes the agreement (kept in `st`) and registers its control handler with
// the engine now rather than at the first atomic collective, so that it
// answers peers from MPI_Init on (FTMPI_COLL_MODE_ATOMIC).
void attach(State& st);

}  // namespace ftmpi::coll::ft
