// Communicator constructors (MPI-1.2 §5.4, §5.6): dup, create, split,
// intercommunicator create and merge.
//
// Context ids are deterministic (comm/model/context_id.hpp): the child's id
// is parent.next_child_context(), and every member of the parent advances
// the parent's counter once per creation call, including the members that
// end up with no new communicator. So dup and create need no communication
// at all, split needs everybody's (color, key), and the intercommunicator
// calls exchange what the two sides need to agree on (see README.md for why
// no process ever holds two live communicators with one id).
//
// All calls are collective over the parent in the MPI sense; the returned
// pointer is null for a process that gets MPI_COMM_NULL. Attributes, error
// handlers and topologies are the caller's business (src/api).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "base/err.hpp"
#include "comm/model/communicator.hpp"
#include "comm/ops/group_algebra.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::comm::ops {

using CommPtr = std::unique_ptr<Communicator>;

// MPI_Comm_dup, intra or inter: the same groups under a new context id.
CommPtr dup(Communicator& parent);

// MPI_Comm_create: `group` must be a subset of the parent's group (the caller
// checks, is_subset()). Null for processes outside `group`.
CommPtr create_from_group(Communicator& parent, const GroupRef& group);
// The first `n` ranks of the parent, in order (Cart_create / Graph_create
// with the identity mapping). Null for the others.
CommPtr create_from_prefix(Communicator& parent, int n);

// The parent ranks `ranks` in that order (blanks included), for a caller
// that computed the membership without communication (MPI_Cart_sub). Every
// member of the parent calls it; each passes the list of its own new
// communicator, and the lists must be disjoint or equal. Null if I am not in
// `ranks`.
CommPtr create_from_ranks(Communicator& parent, const std::vector<int>& ranks);

// MPI_Comm_split. `undefined` is MPI_UNDEFINED: that color gets no
// communicator. Costs one allgather of 8 bytes per member (log2 rounds).
// Blank ranks count as passing `undefined`: no result contains a blank.
struct ColorKey {
  int32_t color;
  int32_t key;
};
Err split(p2p::Engine& eng, Communicator& parent, int color, int key, int undefined, CommPtr* out);
// The pure part of split: the parent ranks that form my new communicator,
// in new rank order (by key, ties in parent rank order); empty when my color
// is `undefined`.
std::vector<int> split_members(const std::vector<ColorKey>& all, int my_rank, int undefined);

// MPI_Intercomm_create. `peer`, `remote_leader` and `leader_check` are used
// only at the local leader (peer may be null elsewhere); `tag` tags the two
// leaders' exchange on the peer communicator's point-to-point context. A
// leader whose own arguments are bad (leader_check not kOk) skips the
// exchange and makes the whole local group fail with that error.
// `view` null: members travel as (slot, incarnation). Transparent mode: the
// world group of this process; members travel as slots (a replay sends what
// the dead incarnation sent) and are named as `view` names them.
Err intercomm_create(p2p::Engine& eng, Communicator& local, int local_leader, Communicator* peer,
                     int remote_leader, int tag, Err leader_check, const Group* view, CommPtr* out);
// MPI_Intercomm_merge: the group that passed high = false comes first; when
// both sides pass the same value, the side whose group hash is smaller does.
Err intercomm_merge(p2p::Engine& eng, Communicator& inter, bool high, Naming naming, CommPtr* out);

// The context id of an intercommunicator whose sides drew ids `a` (group ga)
// and `b` (group gb) from their local communicators. Symmetric in its two
// (id, group) pairs, so both sides compute the same value; including the
// groups is what keeps it unique (README.md).
uint64_t inter_context(uint64_t a, const Group& ga, uint64_t b, const Group& gb,
                       Naming naming = Naming::kIncarnation);

}  // namespace ftmpi::comm::ops
