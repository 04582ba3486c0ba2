// Collectives on an intercommunicator (MPI-3.1 §5.2.2, the MPI-2
// semantics): data flows from one group to the other. Each is built from
// collectives of my own group (`local`: a team over an intracommunicator of
// my group's members, which src/api keeps hidden next to the
// intercommunicator) and transfers across (`bridge`: a team over the
// intercommunicator, whose Xfer peers are ranks of the remote group), on
// the intercommunicator's collective context.
//
// Roots, as MPI passes them: kRootHere (MPI_ROOT) on the root, kRootElsewhere
// (MPI_PROC_NULL) on the other members of its group, the root's rank in the
// remote group on every member of the other group.
//
// Failures: `watch` of both teams gives up when a member of the remote
// group is known dead, so a death in either group stops every member
// (kOther), as on an intracommunicator (spec/ft-semantics.md §4.6).
#pragma once
#include "coll/args.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll::inter {

inline constexpr int kRootHere = -3;       // MPI_ROOT
inline constexpr int kRootElsewhere = -1;  // MPI_PROC_NULL

// Gives up when a process of the intercommunicator's remote group is dead.
class RemoteWatch final : public Watch {
 public:
  RemoteWatch(p2p::Engine& eng, const comm::Communicator& inter) : eng_(eng), inter_(inter) {}
  bool give_up() const override;

 private:
  p2p::Engine& eng_;
  const comm::Communicator& inter_;
  mutable uint64_t seen_failures_ = ~uint64_t{0};
  mutable bool dead_ = false;
};

struct Groups {
  const Team& local;   // my group; the leader is its member 0 (first live rank)
  const Team& bridge;  // peers = remote ranks
  int remote_size;
  int remote_leader;   // first live rank of the remote group
};

// Alltoallw, per remote rank: the block sent to it and the one received from it.
struct WBlock {
  const void* buf;
  size_t count;
  const dtype::TypeRef* type;
};
struct WArgs {
  const WBlock* sends;  // remote_size entries
  const WBlock* recvs;
};

// Cost notes (n = my group's size, m = the remote group's): barrier, bcast,
// reduce, allreduce and reduce_scatter go through the two leaders (one
// transfer across plus collectives inside each group); the others are
// linear: every process exchanges directly with the m remote processes.
[[nodiscard]] Err barrier(const Groups& g);
[[nodiscard]] Err bcast(const Groups& g, const BcastArgs& a);
[[nodiscard]] Err reduce(const Groups& g, const ReduceArgs& a);
[[nodiscard]] Err allreduce(const Groups& g, const ReduceArgs& a);
// rcounts: my group's counts (the input vectors are their sum long).
[[nodiscard]] Err reduce_scatter(const Groups& g, const ReduceScatterArgs& a);
// Gather(v) and scatter(v): root as above; the v forms use VArgs' arrays
// (indexed by remote rank) at the root.
[[nodiscard]] Err gather(const Groups& g, const VArgs& a);
[[nodiscard]] Err scatter(const Groups& g, const VArgs& a);
// Allgather(v): my block to every remote process; rcounts / rdispls (or
// rcount) describe the remote blocks in rbuf.
[[nodiscard]] Err allgather(const Groups& g, const VArgs& a);
// Alltoall(v): block r of sbuf to remote rank r, block r of rbuf from it.
[[nodiscard]] Err alltoall(const Groups& g, const VArgs& a);
[[nodiscard]] Err alltoallw(const Groups& g, const WArgs& a);

}  // namespace ftmpi::coll::inter
