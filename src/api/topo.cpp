// Process topologies (MPI-1.2 chapter 6), part 1: Cart_create,
// Graph_create, Topo_test, Dims_create, Cart_map, Graph_map.
//
// Mapping is the identity (reorder is accepted and ignored): rank r of the
// old communicator is rank r of the new one, and the processes beyond the
// grid or graph get MPI_COMM_NULL. Processes of one host already talk
// through shared memory, so a reordering would buy little here.
#include "api/topo.hpp"

#include <type_traits>

#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"
#include "comm/ops/constructors.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace ftmpi::api {

namespace {
template <typename T>
const T* topo_of(Call& call, MPI_Comm ch, comm::Communicator** c, int* code, comm::Topology::Kind kind,
                 const char* what) {
  *c = lookup_comm(ch);
  if (!*c) {
    *code = call.fail(nullptr, Err::kComm, "invalid communicator");
    return nullptr;
  }
  const comm::TopologyRef& t = (*c)->topo;
  if (!t || t->kind != kind) {
    *code = call.fail(*c, Err::kTopology, "the communicator has no %s topology", what);
    return nullptr;
  }
  if constexpr (std::is_same_v<T, comm::CartTopology>) return &t->cart;
  else return &t->graph;
}
}  // namespace

const comm::CartTopology* cart_of(Call& call, MPI_Comm ch, comm::Communicator** c, int* code) {
  return topo_of<comm::CartTopology>(call, ch, c, code, comm::Topology::Kind::kCart, "Cartesian");
}

const comm::GraphTopology* graph_of(Call& call, MPI_Comm ch, comm::Communicator** c, int* code) {
  return topo_of<comm::GraphTopology>(call, ch, c, code, comm::Topology::Kind::kGraph, "graph");
}

}  // namespace ftmpi::api

namespace {

// The communicator a topology constructor may start from, or nullptr (with
// the error reported through `code`).
comm::Communicator* intra_comm(Call& call, MPI_Comm ch, int* code) {
  comm::Communicator* c = lookup_comm(ch);
  if (!c) *code = call.fail(nullptr, Err::kComm, "invalid communicator");
  else if (c->is_inter()) *code = call.fail(c, Err::kComm, "topologies need an intracommunicator");
  else return c;
  return nullptr;
}

MPI_Comm with_topology(comm::Communicator& parent, int n, comm::Topology topo) {
  std::unique_ptr<comm::Communicator> c = comm::ops::create_from_prefix(parent, n);
  if (c) c->topo = std::make_shared<const comm::Topology>(std::move(topo));
  return adopt_comm(std::move(c), parent);
}

Err check_cart_args(int ndims, const int* dims, const int* periods, int size, comm::CartTopology* out, Why& w) {
  if (ndims < 0) return w.set(Err::kDims, "ndims = %d is negative", ndims);
  if (ndims > 0 && (!dims || !periods)) return w.set(Err::kArg, "dims or periods is null");
  if (Err e = comm::make_cart(ndims, dims, periods, size, out); !ok(e))
    return w.set(e, "the grid needs positive dimensions and at most %d processes", size);
  return Err::kOk;
}

Err check_graph_args(int nnodes, const int* index, const int* edges, int size, comm::GraphTopology* out, Why& w) {
  if (nnodes < 0 || nnodes > size) return w.set(Err::kArg, "nnodes = %d is not in 0..%d", nnodes, size);
  if (nnodes > 0 && !index) return w.set(Err::kArg, "index is null");
  if (nnodes > 0 && index[nnodes - 1] > 0 && !edges) return w.set(Err::kArg, "edges is null");
  if (Err e = comm::make_graph(nnodes, index, edges, size, out); !ok(e))
    return w.set(e, "index must be non-decreasing and every edge a node in 0..%d", nnodes - 1);
  return Err::kOk;
}

}  // namespace

extern "C" {

int PMPI_Cart_create(MPI_Comm ch, int ndims, const int* dims, const int* periods, int reorder, MPI_Comm* comm_cart) {
  Call call("MPI_Cart_create");
  (void)reorder;
  int code = MPI_SUCCESS;
  comm::Communicator* c = intra_comm(call, ch, &code);
  if (!c) return code;
  if (!comm_cart) return call.fail(c, Err::kArg, "comm_cart pointer is null");
  if (call.ft_blocked_collective(c, &code)) return code;
  comm::Topology t;
  t.kind = comm::Topology::Kind::kCart;
  Why w;
  if (Err e = check_cart_args(ndims, dims, periods, c->size(), &t.cart, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  const int n = t.cart.size();
  *comm_cart = with_topology(*c, n, std::move(t));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_create, PMPI_Cart_create)

int PMPI_Graph_create(MPI_Comm ch, int nnodes, const int* index, const int* edges, int reorder, MPI_Comm* comm_graph) {
  Call call("MPI_Graph_create");
  (void)reorder;
  int code = MPI_SUCCESS;
  comm::Communicator* c = intra_comm(call, ch, &code);
  if (!c) return code;
  if (!comm_graph) return call.fail(c, Err::kArg, "comm_graph pointer is null");
  if (call.ft_blocked_collective(c, &code)) return code;
  comm::Topology t;
  t.kind = comm::Topology::Kind::kGraph;
  Why w;
  if (Err e = check_graph_args(nnodes, index, edges, c->size(), &t.graph, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  *comm_graph = with_topology(*c, nnodes, std::move(t));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Graph_create, PMPI_Graph_create)

int PMPI_Topo_test(MPI_Comm ch, int* status) {
  Call call("MPI_Topo_test");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!status) return call.fail(c, Err::kArg, "status pointer is null");
  *status = !c->topo ? MPI_UNDEFINED : c->topo->kind == comm::Topology::Kind::kCart ? MPI_CART : MPI_GRAPH;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Topo_test, PMPI_Topo_test)

int PMPI_Dims_create(int nnodes, int ndims, int* dims) {
  Call call("MPI_Dims_create");
  if (ndims < 0) return call.fail(nullptr, Err::kDims, "ndims = %d is negative", ndims);
  if (ndims > 0 && !dims) return call.fail(nullptr, Err::kArg, "dims is null");
  if (nnodes < 1) return call.fail(nullptr, Err::kArg, "nnodes = %d is not positive", nnodes);
  if (Err e = comm::dims_create(nnodes, ndims, dims); !ok(e))
    return call.fail(nullptr, e, "dims has a negative entry, or its non-zero entries do not divide nnodes = %d",
                     nnodes);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Dims_create, PMPI_Dims_create)

int PMPI_Cart_map(MPI_Comm ch, int ndims, const int* dims, const int* periods, int* newrank) {
  Call call("MPI_Cart_map");
  int code = MPI_SUCCESS;
  comm::Communicator* c = intra_comm(call, ch, &code);
  if (!c) return code;
  if (!newrank) return call.fail(c, Err::kArg, "newrank pointer is null");
  comm::CartTopology cart;
  Why w;
  if (Err e = check_cart_args(ndims, dims, periods, c->size(), &cart, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  *newrank = c->rank() < cart.size() ? c->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cart_map, PMPI_Cart_map)

int PMPI_Graph_map(MPI_Comm ch, int nnodes, const int* index, const int* edges, int* newrank) {
  Call call("MPI_Graph_map");
  int code = MPI_SUCCESS;
  comm::Communicator* c = intra_comm(call, ch, &code);
  if (!c) return code;
  if (!newrank) return call.fail(c, Err::kArg, "newrank pointer is null");
  comm::GraphTopology graph;
  Why w;
  if (Err e = check_graph_args(nnodes, index, edges, c->size(), &graph, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  *newrank = c->rank() < nnodes ? c->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Graph_map, PMPI_Graph_map)

}  // extern "C"
