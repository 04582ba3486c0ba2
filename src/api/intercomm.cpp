// Intercommunicators (MPI-1.2 §5.6): test_inter, remote_size, remote_group,
// Intercomm_create, Intercomm_merge. Point-to-point on an intercommunicator
// needs nothing here: p2p addresses the remote group (Communicator::peer_group).
#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"
#include "comm/ops/constructors.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Comm_test_inter(MPI_Comm ch, int* flag) {
  Call call("MPI_Comm_test_inter");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!flag) return call.fail(c, Err::kArg, "flag pointer is null");
  *flag = c->is_inter();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_test_inter, PMPI_Comm_test_inter)

int PMPI_Comm_remote_size(MPI_Comm ch, int* size) {
  Call call("MPI_Comm_remote_size");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!c->is_inter()) return call.fail(c, Err::kComm, "not an intercommunicator");
  if (!size) return call.fail(c, Err::kArg, "size pointer is null");
  *size = c->remote_size();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_remote_size, PMPI_Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm ch, MPI_Group* group) {
  Call call("MPI_Comm_remote_group");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!c->is_inter()) return call.fail(c, Err::kComm, "not an intercommunicator");
  if (!group) return call.fail(c, Err::kArg, "group pointer is null");
  *group = group_handle(c->remote_ref());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_remote_group, PMPI_Comm_remote_group)

int PMPI_Intercomm_create(MPI_Comm local_h, int local_leader, MPI_Comm peer_h, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  Call call("MPI_Intercomm_create");
  comm::Communicator* local = lookup_comm(local_h);
  if (!local) return call.fail(nullptr, Err::kComm, "invalid local communicator");
  if (local->is_inter()) return call.fail(local, Err::kComm, "the local communicator is an intercommunicator");
  if (!newintercomm) return call.fail(local, Err::kArg, "newintercomm pointer is null");
  if (int code = MPI_SUCCESS; call.ft_blocked_collective(local, &code)) return code;
  if (local_leader < 0 || local_leader >= local->size())
    return call.fail(local, Err::kRank, "local leader %d is not a rank of the local communicator (size %d)",
                     local_leader, local->size());
  // BLANK mode: a blank cannot lead (it would have to talk to the remote
  // leader). Every member sees the same group, so all refuse alike.
  if (local->group().is_blank(local_leader))
    return call.fail(local, Err::kRank, "local leader %d is a blank (a failed process)", local_leader);
  // The peer arguments matter at the local leader only. Its errors travel to
  // the whole local group, so nobody waits for a leader that gave up.
  comm::Communicator* peer = nullptr;
  Err leader_check = Err::kOk;
  Why w;
  if (local->rank() == local_leader) {
    peer = lookup_comm(peer_h);
    if (!peer) {
      leader_check = w.set(Err::kComm, "invalid peer communicator");
    } else if (remote_leader < 0 || remote_leader >= (peer->is_inter() ? peer->remote_size() : peer->size())) {
      leader_check = w.set(Err::kRank, "remote leader %d is not a rank of the peer communicator", remote_leader);
    } else if (peer->peer_group().is_blank(remote_leader)) {
      leader_check = w.set(Err::kRank, "remote leader %d is a blank (a failed process)", remote_leader);
    } else if (!ok(check_send_tag(tag, w))) {
      leader_check = Err::kTag;
    } else if (!peer->is_inter() && remote_leader == peer->rank()) {
      leader_check = w.set(Err::kRank, "the remote leader is the local leader itself");
    }
  }
  std::unique_ptr<comm::Communicator> n;
  // Transparent mode: members named as this process's world group names them.
  const comm::Group* view =
      member_naming() == comm::ops::Naming::kSlot ? &lookup_comm(MPI_COMM_WORLD)->group() : nullptr;
  Err e = comm::ops::intercomm_create(rt()->engine, *local, local_leader, peer, remote_leader, tag, leader_check,
                                      view, &n);
  if (!ok(e)) {
    *newintercomm = MPI_COMM_NULL;
    const char* why = !ok(leader_check)                 ? w.text
                      : e == Err::kArg                  ? "the local and remote groups overlap"
                      : local->rank() == local_leader   ? "the exchange between the leaders failed"
                                                        : "the local leader could not build the intercommunicator";
    return call.fail(local, e, "%s", why);
  }
  *newintercomm = adopt_comm(std::move(n), *local);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Intercomm_create, PMPI_Intercomm_create)

int PMPI_Intercomm_merge(MPI_Comm ch, int high, MPI_Comm* newintracomm) {
  Call call("MPI_Intercomm_merge");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!c->is_inter()) return call.fail(c, Err::kComm, "not an intercommunicator");
  if (!newintracomm) return call.fail(c, Err::kArg, "newintracomm pointer is null");
  if (int code = MPI_SUCCESS; call.ft_blocked_collective(c, &code)) return code;
  std::unique_ptr<comm::Communicator> n;
  if (Err e = comm::ops::intercomm_merge(rt()->engine, *c, high != 0, member_naming(), &n); !ok(e)) {
    *newintracomm = MPI_COMM_NULL;
    return call.fail(c, e, "exchanging the high flags failed");
  }
  *newintracomm = adopt_comm(std::move(n), *c);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Intercomm_merge, PMPI_Intercomm_merge)

}  // extern "C"
