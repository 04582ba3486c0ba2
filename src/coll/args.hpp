// The arguments of each collective as its algorithms receive them. Counts
// and displacements of the v-variants are the user's arrays, indexed by
// communicator rank (Team::rank_of), and a root is a team index.
#pragma once
#include <algorithm>
#include <cstddef>

#include "coll/reduce_op.hpp"
#include "coll/team.hpp"
#include "dtype/datatype.hpp"

namespace ftmpi::coll {

struct BcastArgs {
  void* buf;
  size_t count;
  const dtype::TypeRef* type;
  int root;
};

// Reduce (root used), allreduce and scan (root ignored).
struct ReduceArgs {
  const void* sbuf;
  void* rbuf;
  size_t count;
  const dtype::TypeRef* type;
  const ReduceOp* op;
  int root;
};

// Gather, scatter, allgather, alltoall: scount items of stype per block sent,
// rcount items of rtype per block received.
struct BlockArgs {
  const void* sbuf;
  size_t scount;
  const dtype::TypeRef* stype;
  void* rbuf;
  size_t rcount;
  const dtype::TypeRef* rtype;
  int root;
};

// Gatherv (rcounts, rdispls), scatterv (scounts, sdispls), allgatherv
// (rcounts, rdispls), alltoallv (all four). Unused arrays are null and the
// single count of that side is used instead.
struct VArgs {
  const void* sbuf;
  const int* scounts;
  const int* sdispls;
  size_t scount;
  const dtype::TypeRef* stype;
  void* rbuf;
  const int* rcounts;
  const int* rdispls;
  size_t rcount;
  const dtype::TypeRef* rtype;
  int root;
};

struct ReduceScatterArgs {
  const void* sbuf;
  void* rbuf;
  const int* rcounts;  // by communicator rank
  const dtype::TypeRef* type;
  const ReduceOp* op;
};

inline int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

inline int lowest_bit(int v) { return v & -v; }

inline int mod(int a, int n) { return ((a % n) + n) % n; }

// `count` items cut into `parts` nearly equal blocks (the first count % parts
// blocks one item larger).
struct EvenBlocks {
  size_t q, r;
  EvenBlocks(size_t count, int parts) : q(count / static_cast<size_t>(parts)), r(count % static_cast<size_t>(parts)) {}
  size_t off(int b) const { return static_cast<size_t>(b) * q + std::min<size_t>(static_cast<size_t>(b), r); }
  size_t cnt(int b) const { return q + (static_cast<size_t>(b) < r ? 1 : 0); }
  // Items of blocks [a, b).
  size_t cnt(int a, int b) const { return off(b) - off(a); }
};

}  // namespace ftmpi::coll
