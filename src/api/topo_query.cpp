// Process topologies (MPI-1.2 chapter 6), part 2: the inquiry calls
// (Cartdim_get, Cart_get, Cart_rank, Cart_coords, Cart_shift, Graphdims_get,
// Graph_get, Graph_neighbors_count, Graph_neighbors) and Cart_sub.
#include <algorithm>

#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"
#include "api/topo.hpp"
#include "comm/ops/constructors.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Cartdim_get(MPI_Comm ch, int* ndims) {
  Call call("MPI_Cartdim_get");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::CartTopology* cart = cart_of(call, ch, &c, &code);
  if (!cart) return code;
  if (!ndims) return call.fail(c, Err::kArg, "ndims pointer is null");
  *ndims = cart->ndims();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cartdim_get, PMPI_Cartdim_get)

int PMPI_Cart_get(MPI_Comm ch, int maxdims, int* dims, int* periods, int* coords) {
  Call call("MPI_Cart_get");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::CartTopology* cart = cart_of(call, ch, &c, &code);
  if (!cart) return code;
  const int n = cart->ndims();
  if (maxdims < n) return call.fail(c, Err::kArg, "maxdims = %d is less than the %d dimensions", maxdims, n);
  if (n > 0 && (!dims || !periods || !coords)) return call.fail(c, Err::kArg, "null array argument");
  const std::vector<int> mine = cart->coords_of(c->rank());
  std::copy(cart->dims.begin(), cart->dims.end(), dims);
  std::copy(cart->periods.begin(), cart->periods.end(), periods);
  std::copy(mine.begin(), mine.end(), coords);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_get, PMPI_Cart_get)

int PMPI_Cart_rank(MPI_Comm ch, const int* coords, int* rank) {
  Call call("MPI_Cart_rank");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::CartTopology* cart = cart_of(call, ch, &c, &code);
  if (!cart) return code;
  if (!rank || (cart->ndims() > 0 && !coords)) return call.fail(c, Err::kArg, "null argument");
  if (Err e = cart->rank_of(coords, rank); !ok(e))
    return call.fail(c, e, "a coordinate lies outside a non-periodic dimension");
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_rank, PMPI_Cart_rank)

int PMPI_Cart_coords(MPI_Comm ch, int rank, int maxdims, int* coords) {
  Call call("MPI_Cart_coords");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::CartTopology* cart = cart_of(call, ch, &c, &code);
  if (!cart) return code;
  if (rank < 0 || rank >= c->size())
    return call.fail(c, Err::kRank, "rank %d is out of range for a communicator of size %d", rank, c->size());
  if (maxdims < cart->ndims())
    return call.fail(c, Err::kArg, "maxdims = %d is less than the %d dimensions", maxdims, cart->ndims());
  if (cart->ndims() > 0 && !coords) return call.fail(c, Err::kArg, "coords is null");
  const std::vector<int> v = cart->coords_of(rank);
  std::copy(v.begin(), v.end(), coords);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_coords, PMPI_Cart_coords)

int PMPI_Cart_shift(MPI_Comm ch, int direction, int disp, int* rank_source, int* rank_dest) {
  Call call("MPI_Cart_shift");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::CartTopology* cart = cart_of(call, ch, &c, &code);
  if (!cart) return code;
  if (!rank_source || !rank_dest) return call.fail(c, Err::kArg, "null argument");
  if (Err e = cart->shift(c->rank(), direction, disp, rank_source, rank_dest); !ok(e))
    return call.fail(c, e, "direction %d is not a dimension of a %d-dimensional grid", direction, cart->ndims());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_shift, PMPI_Cart_shift)

int PMPI_Cart_sub(MPI_Comm ch, const int* remain_dims, MPI_Comm* newcomm) {
  Call call("MPI_Cart_sub");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::CartTopology* cart = cart_of(call, ch, &c, &code);
  if (!cart) return code;
  if (!newcomm || (cart->ndims() > 0 && !remain_dims)) return call.fail(c, Err::kArg, "null argument");
  if (call.ft_blocked_collective(c, &code)) return code;
  comm::CartSubPlan plan = comm::cart_sub_plan(*cart, c->rank(), remain_dims);
  // The sub-grids follow from the topology alone, so every process computes
  // its own without communication. Unlike a split, this keeps the blank
  // ranks of BLANK mode in place: a sub-grid has exactly the size and
  // coordinates of its part of the grid (FT-MPI spec §4.1: topology
  // functions may include blanks).
  std::vector<int> ranks(static_cast<size_t>(plan.sub.size()));
  for (int r = 0; r < c->size(); ++r) {
    const comm::CartSubPlan p = comm::cart_sub_plan(*cart, r, remain_dims);
    if (p.color == plan.color) ranks[static_cast<size_t>(p.key)] = r;
  }
  std::unique_ptr<comm::Communicator> n = comm::ops::create_from_ranks(*c, ranks);
  if (n) {  // every color is >= 0, so everybody gets a sub-grid
    auto topo = std::make_shared<comm::Topology>();
    topo->kind = comm::Topology::Kind::kCart;
    topo->cart = std::move(plan.sub);
    n->topo = std::move(topo);
  }
  *newcomm = adopt_comm(std::move(n), *c);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_sub, PMPI_Cart_sub)

int PMPI_Graphdims_get(MPI_Comm ch, int* nnodes, int* nedges) {
  Call call("MPI_Graphdims_get");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::GraphTopology* g = graph_of(call, ch, &c, &code);
  if (!g) return code;
  if (!nnodes || !nedges) return call.fail(c, Err::kArg, "null argument");
  *nnodes = g->nnodes();
  *nedges = static_cast<int>(g->edges.size());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Graphdims_get, PMPI_Graphdims_get)

int PMPI_Graph_get(MPI_Comm ch, int maxindex, int maxedges, int* index, int* edges) {
  Call call("MPI_Graph_get");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::GraphTopology* g = graph_of(call, ch, &c, &code);
  if (!g) return code;
  if (maxindex < 0 || maxedges < 0) return call.fail(c, Err::kArg, "maxindex or maxedges is negative");
  const size_t ni = std::min(static_cast<size_t>(maxindex), g->index.size());
  const size_t ne = std::min(static_cast<size_t>(maxedges), g->edges.size());
  if ((ni > 0 && !index) || (ne > 0 && !edges)) return call.fail(c, Err::kArg, "null array argument");
  std::copy_n(g->index.begin(), ni, index);
  std::copy_n(g->edges.begin(), ne, edges);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Graph_get, PMPI_Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm ch, int rank, int* nneighbors) {
  Call call("MPI_Graph_neighbors_count");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::GraphTopology* g = graph_of(call, ch, &c, &code);
  if (!g) return code;
  if (rank < 0 || rank >= g->nnodes())
    return call.fail(c, Err::kRank, "rank %d is not a node of the graph (%d nodes)", rank, g->nnodes());
  if (!nneighbors) return call.fail(c, Err::kArg, "nneighbors pointer is null");
  *nneighbors = g->degree(rank);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Graph_neighbors_count, PMPI_Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm ch, int rank, int maxneighbors, int* neighbors) {
  Call call("MPI_Graph_neighbors");
  comm::Communicator* c = nullptr;
  int code = MPI_SUCCESS;
  const comm::GraphTopology* g = graph_of(call, ch, &c, &code);
  if (!g) return code;
  if (rank < 0 || rank >= g->nnodes())
    return call.fail(c, Err::kRank, "rank %d is not a node of the graph (%d nodes)", rank, g->nnodes());
  if (maxneighbors < 0) return call.fail(c, Err::kArg, "maxneighbors = %d is negative", maxneighbors);
  const int n = std::min(maxneighbors, g->degree(rank));
  if (n > 0 && !neighbors) return call.fail(c, Err::kArg, "neighbors is null");
  std::copy_n(g->neighbors(rank), n, neighbors);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Graph_neighbors, PMPI_Graph_neighbors)

}  // extern "C"
