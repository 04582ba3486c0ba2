// The schedules of the nonblocking collectives (schedule.hpp). Arguments
// are checked by src/api; roots are team indices, user blocks are laid out
// by communicator rank (Team::rank_of), as for the blocking collectives.
//
// Algorithms (chosen for few rounds and no extra copies; costs for p team
// members, n bytes):
//   barrier        dissemination, ceil(log2 p) rounds of empty messages
//   bcast          binomial tree, log2 p steps of n bytes
//   reduce         binomial tree over team indices (rank order, so any op
//                  works), then to the root if it is not index 0
//   allreduce      reduce to index 0, then binomial broadcast
//   reduce_scatter reduce of the whole vector to index 0, then its blocks
//   scan / exscan  a chain in rank order, p - 1 steps
//   gather(v), scatter(v), allgather(v), alltoall(v/w): one round, every
//                  block sent directly to where it goes
#pragma once
#include <vector>

#include "coll/args.hpp"
#include "coll/nbc/schedule.hpp"

namespace ftmpi::coll::nbc {

// Alltoallw: per-peer counts, byte displacements and types, by rank.
struct WArgs {
  const void* sbuf;
  const int* scounts;
  const int* sdispls;
  std::vector<dtype::TypeRef> stypes;
  void* rbuf;
  const int* rcounts;
  const int* rdispls;
  std::vector<dtype::TypeRef> rtypes;
};

void barrier(Schedule& s);
void bcast(Schedule& s, const BcastArgs& a);
void gather(Schedule& s, const BlockArgs& a);
void gatherv(Schedule& s, const VArgs& a);
void scatter(Schedule& s, const BlockArgs& a);
void scatterv(Schedule& s, const VArgs& a);
void allgather(Schedule& s, const BlockArgs& a);
void allgatherv(Schedule& s, const VArgs& a);
void alltoall(Schedule& s, const BlockArgs& a);
void alltoallv(Schedule& s, const VArgs& a);
void alltoallw(Schedule& s, const WArgs& a);
void reduce(Schedule& s, const ReduceArgs& a);
void allreduce(Schedule& s, const ReduceArgs& a);
void reduce_scatter(Schedule& s, const ReduceScatterArgs& a);
void scan(Schedule& s, const ReduceArgs& a);
void exscan(Schedule& s, const ReduceArgs& a);

}  // namespace ftmpi::coll::nbc
