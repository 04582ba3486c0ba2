// Every collective algorithm, one per file under src/coll/<collective>/.
// Each file starts with an "Algorithm:" comment: where it comes from and its
// cost (alpha = latency per message, beta = time per byte, gamma = time per
// byte reduced, p = team size, m = message bytes). The dispatchers
// (dispatch.cpp) choose among them with the tuning table.
#pragma once
#include "base/err.hpp"
#include "coll/args.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll {

Err barrier_dissemination(const Team& t);
Err barrier_tree(const Team& t);
Err barrier_linear(const Team& t);

Err bcast_binomial(const Team& t, const BcastArgs& a);
Err bcast_scatter_allgather(const Team& t, const BcastArgs& a);
Err bcast_linear(const Team& t, const BcastArgs& a);

Err reduce_binomial(const Team& t, const ReduceArgs& a);
Err reduce_rabenseifner(const Team& t, const ReduceArgs& a);
Err reduce_linear(const Team& t, const ReduceArgs& a);

Err allreduce_recursive_doubling(const Team& t, const ReduceArgs& a);
Err allreduce_rabenseifner(const Team& t, const ReduceArgs& a);
Err allreduce_ring(const Team& t, const ReduceArgs& a);
Err allreduce_linear(const Team& t, const ReduceArgs& a);

Err allgather_bruck(const Team& t, const BlockArgs& a);
Err allgather_ring(const Team& t, const BlockArgs& a);
Err allgather_linear(const Team& t, const BlockArgs& a);

Err allgatherv_ring(const Team& t, const VArgs& a);
Err allgatherv_linear(const Team& t, const VArgs& a);

Err alltoall_bruck(const Team& t, const BlockArgs& a);
Err alltoall_pairwise(const Team& t, const BlockArgs& a);
Err alltoall_linear(const Team& t, const BlockArgs& a);

Err alltoallv_pairwise(const Team& t, const VArgs& a);
Err alltoallv_linear(const Team& t, const VArgs& a);

Err gather_binomial(const Team& t, const BlockArgs& a);
Err gather_linear(const Team& t, const BlockArgs& a);
Err gatherv_linear(const Team& t, const VArgs& a);

Err scatter_binomial(const Team& t, const BlockArgs& a);
Err scatter_linear(const Team& t, const BlockArgs& a);
Err scatterv_linear(const Team& t, const VArgs& a);

Err reduce_scatter_halving(const Team& t, const ReduceScatterArgs& a);
Err reduce_scatter_pairwise(const Team& t, const ReduceScatterArgs& a);
Err reduce_scatter_reduce_scatterv(const Team& t, const ReduceScatterArgs& a);

Err scan_recursive_doubling(const Team& t, const ReduceArgs& a);
Err scan_linear(const Team& t, const ReduceArgs& a);

}  // namespace ftmpi::coll
