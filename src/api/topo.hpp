// Shared by the topology entry points (topo.cpp: constructors, mapping,
// Topo_test, Dims_create; topo_query.cpp: the inquiry calls and Cart_sub).
#pragma once
#include "api/call.hpp"
#include "comm/model/communicator.hpp"

namespace ftmpi::api {

static_assert(comm::kRankProcNull == MPI_PROC_NULL);
static_assert(comm::kRankUndefined == MPI_UNDEFINED);

// The communicator's Cartesian (or graph) topology; reports MPI_ERR_COMM or
// MPI_ERR_TOPOLOGY through `code` and returns nullptr when it has none.
const comm::CartTopology* cart_of(Call& call, MPI_Comm ch, comm::Communicator** c, int* code);
const comm::GraphTopology* graph_of(Call& call, MPI_Comm ch, comm::Communicator** c, int* code);

}  // namespace ftmpi::api
