// The collective operations of MPI-1.2 chapter 4 over a Team (team.hpp).
// Each call picks an algorithm (select.hpp, tuning_table.cpp) and runs it
// on the communicator's collective context. Arguments are already checked by
// the caller (src/api): valid types and ops, roots in range, and equal type
// signatures where one process holds both sides.
//
// Errors: kOther when a participant failed (or the team's Watch gave up),
// never a hang; kTruncate when processes disagree on message sizes (the
// run still completes everywhere); kOk otherwise.
#pragma once
#include "base/err.hpp"
#include "coll/args.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll {

[[nodiscard]] Err barrier(const Team& t);
[[nodiscard]] Err bcast(const Team& t, const BcastArgs& a);
[[nodiscard]] Err gather(const Team& t, const BlockArgs& a);
[[nodiscard]] Err gatherv(const Team& t, const VArgs& a);
[[nodiscard]] Err scatter(const Team& t, const BlockArgs& a);
[[nodiscard]] Err scatterv(const Team& t, const VArgs& a);
[[nodiscard]] Err allgather(const Team& t, const BlockArgs& a);
[[nodiscard]] Err allgatherv(const Team& t, const VArgs& a);
[[nodiscard]] Err alltoall(const Team& t, const BlockArgs& a);
[[nodiscard]] Err alltoallv(const Team& t, const VArgs& a);
[[nodiscard]] Err reduce(const Team& t, const ReduceArgs& a);
[[nodiscard]] Err allreduce(const Team& t, const ReduceArgs& a);
[[nodiscard]] Err reduce_scatter(const Team& t, const ReduceScatterArgs& a);
[[nodiscard]] Err scan(const Team& t, const ReduceArgs& a);

// A collective call this process refused at its entry (a failure is
// pending): on an atomic team it still takes its turn in the agreement,
// voting ABORT, so members that did enter the call end with the same error
// instead of waiting for this process's vote. No-op on other teams.
void refused(const Team& t);

}  // namespace ftmpi::coll
