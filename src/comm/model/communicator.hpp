// The communicator as every layer sees it: who is in it, which context ids
// its traffic uses, and my place in it. Higher layers (comm/ops, api) hang
// their own state (attributes, topology, error handler) on `ext`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "comm/model/attributes.hpp"
#include "comm/model/context_id.hpp"
#include "comm/model/group.hpp"
#include "comm/model/topology.hpp"

namespace ftmpi::comm {

struct CommExt {
  virtual ~CommExt() = default;
};

class Communicator {
 public:
  Communicator(uint64_t ctx, GroupRef group, int my_rank, GroupRef remote = nullptr)
      : ctx_(ctx), group_(std::move(group)), remote_(std::move(remote)), rank_(my_rank) {}

  uint64_t ctx() const { return ctx_; }
  uint64_t coll_ctx() const { return coll_context(ctx_); }
  int rank() const { return rank_; }
  int size() const { return group_->size(); }
  const Group& group() const { return *group_; }
  const GroupRef& group_ref() const { return group_; }
  bool is_inter() const { return remote_ != nullptr; }
  // Peers of point-to-point: the remote group of an intercommunicator.
  const Group& peer_group() const { return remote_ ? *remote_ : *group_; }
  const GroupRef& remote_ref() const { return remote_; }
  int remote_size() const { return remote_ ? remote_->size() : 0; }

  // Deterministic child context ids (see context_id.hpp).
  uint64_t next_child_context(uint64_t salt = 0) { return derive_context(ctx_, counter_++, salt); }
  uint32_t creation_counter() const { return counter_; }

  // FT-MPI recovery (spec/ft-semantics.md §4.3): MPI_COMM_WORLD keeps its
  // object and context id but gets the new membership, and its creation
  // counter restarts so the same creation sequence yields the same ids.
  void reset_membership(GroupRef group, int my_rank) {
    group_ = std::move(group);
    rank_ = my_rank;
    counter_ = 0;
  }

  std::unique_ptr<CommExt> ext;
  std::string name;
  // Cached attributes (MPI_Attr_*), in the order they were set.
  AttrList attrs;
  // Cartesian or graph topology, shared with dups; null when there is none.
  TopologyRef topo;
  // Operations in flight on this communicator; MPI_Comm_free defers the
  // destruction until it drops to zero (single-threaded: a plain counter).
  int pending_ops = 0;

 private:
  uint64_t ctx_;
  GroupRef group_;
  GroupRef remote_;
  int rank_;
  uint32_t counter_ = 0;
};

}  // namespace ftmpi::comm
