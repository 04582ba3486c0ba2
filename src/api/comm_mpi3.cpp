// MPI-3 communicator constructors (MPI-3.1 §6.4.2): MPI_Comm_create_group,
// MPI_Comm_split_type (MPI_COMM_TYPE_SHARED: the processes of one host),
// MPI_Comm_idup.
//
// Context ids are derived, never negotiated (comm/model/context_id.hpp).
// Comm_create_group is called by the group's members only, so it must not
// advance the parent's creation counter (non-members would fall out of
// step): its id derives from the parent's id, the group, the tag and how
// many earlier calls had the same three, which every member counts alike.
#include "api/coll_schedule.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"
#include "comm/ops/group_algebra.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Comm_create_group(MPI_Comm ch, MPI_Group gh, int tag, MPI_Comm* newcomm) {
  Call call("MPI_Comm_create_group");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (c->is_inter()) return call.fail(c, Err::kComm, "MPI_Comm_create_group needs an intracommunicator");
  const comm::GroupRef* g = lookup_group(gh);
  if (!g) return call.fail(c, Err::kGroup, "invalid group");
  if (!newcomm) return call.fail(c, Err::kArg, "newcomm pointer is null");
  Why w;
  if (Err e = check_send_tag(tag, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  if (int code = MPI_SUCCESS; call.ft_blocked_collective(c, &code)) return code;
  if (!comm::ops::is_subset(**g, c->group()))
    return call.fail(c, Err::kGroup, "the group is not a subset of the communicator's group");
  const int me = comm::ops::rank_in(**g, c->group().at(c->rank()));
  if (me < 0) {
    // Not a member (or MPI_GROUP_EMPTY): no communicator.
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const uint64_t salt = comm::mix64(comm::ops::group_hash(**g, member_naming()) ^ (static_cast<uint64_t>(tag) << 1) ^ 0x5a5a);
  uint32_t& n = rt()->create_group_calls[{c->ctx(), salt}];
  const uint64_t ctx = comm::derive_context(c->ctx(), n++, salt);
  *newcomm = adopt_comm(std::make_unique<comm::Communicator>(ctx, *g, me), *c);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_create_group, PMPI_Comm_create_group)

int PMPI_Comm_split_type(MPI_Comm ch, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  Call call("MPI_Comm_split_type");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (c->is_inter()) return call.fail(c, Err::kComm, "MPI_Comm_split_type needs an intracommunicator");
  if (!newcomm) return call.fail(c, Err::kArg, "newcomm pointer is null");
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
    return call.fail(c, Err::kArg, "split_type %d is neither MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED", split_type);
  if (info != MPI_INFO_NULL && !rt()->infos.get(info)) return call.fail(c, Err::kArg, "invalid info object");
  // Shared memory reaches exactly the processes of one host: the host index
  // is the color.
  int color = MPI_UNDEFINED;
  if (split_type == MPI_COMM_TYPE_SHARED) {
    const ProcId self = c->group().at(c->rank());
    color = rt()->engine.cards()[static_cast<size_t>(self.slot)].host;
  }
  return PMPI_Comm_split(ch, color, key, newcomm);
}
FTMPI_WEAK_ALIAS(MPI_Comm_split_type, PMPI_Comm_split_type)

int PMPI_Comm_idup(MPI_Comm ch, MPI_Comm* newcomm, MPI_Request* request) {
  Call call("MPI_Comm_idup");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!newcomm || !request) return call.fail(c, Err::kArg, "null argument");
  int code = MPI_SUCCESS;
  // A dup needs no message here (context ids are derived), so the new
  // communicator exists at once and the request is complete at its first
  // test. It still takes its place among the collectives of `ch`.
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  if (int rc = PMPI_Comm_dup(ch, newcomm); rc != MPI_SUCCESS) {
    p2p::Request* user = rt()->engine.request_at(p2p::RequestPool::index_of(s->user()));
    rt()->engine.release_request(user);
    return rc;
  }
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Comm_idup, PMPI_Comm_idup)

}  // extern "C"
