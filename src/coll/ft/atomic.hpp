// FTMPI_COLL_MODE_ATOMIC (spec/ft-collectives.md §2): the public entry
// points of collectives.hpp (atomic.cpp) run the algorithms of plain::
// (dispatch.cpp) directly on a non-atomic team; on an atomic team they run
// them into temporary receive buffers, agree on the outcome (agreement.hpp)
// and copy the results out only on COMMIT, so on ABORT no user receive
// buffer changed and every survivor returns the same error.
#pragma once
#include "base/err.hpp"
#include "coll/args.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll::plain {

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

}  // namespace ftmpi::coll::plain
