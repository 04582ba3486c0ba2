// Process topologies (MPI-1.2 chapter 6): the pure arithmetic of Cartesian
// grids and graphs, with no communication, so that it can be unit tested.
// A communicator with a topology holds a shared, immutable Topology
// (Communicator::topo); MPI_Comm_dup shares it.
//
// Ranks in a grid are laid out row-major (the last dimension varies
// fastest), as the standard specifies. Mapping is the identity: rank r of
// the old communicator becomes rank r of the new one (MPI_Cart_map and
// MPI_Graph_map return the caller's rank when it fits, MPI_UNDEFINED else).
#pragma once
#include <memory>
#include <vector>

#include "base/err.hpp"

namespace ftmpi::comm {

// The values of MPI_PROC_NULL and MPI_UNDEFINED (comm/model does not include
// mpi.h; src/api static_asserts that they agree).
inline constexpr int kRankProcNull = -1;
inline constexpr int kRankUndefined = -32766;

struct CartTopology {
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1 per dimension

  int ndims() const { return static_cast<int>(dims.size()); }
  // Number of grid points (1 for a zero-dimensional grid).
  int size() const;
  // Coordinates of `rank` (0 <= rank < size()), row-major.
  std::vector<int> coords_of(int rank) const;
  // Rank at `coords` (ndims() values). Periodic dimensions wrap, including
  // negative coordinates; a coordinate outside a non-periodic dimension is
  // an error (kArg), as the standard calls it erroneous.
  Err rank_of(const int* coords, int* rank) const;
  // MPI_Cart_shift from `rank` along `dim` by `disp`: the rank we receive
  // from and the rank we send to, kRankProcNull beyond a non-periodic edge.
  Err shift(int rank, int dim, int disp, int* source, int* dest) const;
};

// What MPI_Cart_sub makes of one process: it is a split with this color and
// key, and the new communicator gets `sub` as its grid.
struct CartSubPlan {
  int color = 0;
  int key = 0;
  CartTopology sub;
};
CartSubPlan cart_sub_plan(const CartTopology& cart, int rank, const int* remain_dims);

struct GraphTopology {
  std::vector<int> index;  // cumulative degrees, as given to MPI_Graph_create
  std::vector<int> edges;

  int nnodes() const { return static_cast<int>(index.size()); }
  int degree(int rank) const;
  const int* neighbors(int rank) const;
};

// Checks the arguments of MPI_Graph_create (nnodes nodes in a communicator
// of comm_size processes) and returns the graph.
Err make_graph(int nnodes, const int* index, const int* edges, int comm_size, GraphTopology* out);
// Checks the arguments of MPI_Cart_create / MPI_Cart_map.
Err make_cart(int ndims, const int* dims, const int* periods, int comm_size, CartTopology* out);

struct Topology {
  enum class Kind { kCart, kGraph } kind = Kind::kCart;
  CartTopology cart;
  GraphTopology graph;
};
using TopologyRef = std::shared_ptr<const Topology>;

// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that the
// product of all entries is nnodes and the filled-in values are as close to
// each other as possible (smallest max - min; then smallest largest value),
// in non-increasing order. Non-zero entries are kept; negative ones, or a
// product that does not divide nnodes, are kDims errors.
Err dims_create(int nnodes, int ndims, int* dims);

}  // namespace ftmpi::comm
