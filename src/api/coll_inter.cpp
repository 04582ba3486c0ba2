// Intercommunicator collectives: argument checks and the run (coll_inter.hpp).
// Arguments a process does not use are not checked: a root passing
// MPI_PROC_NULL uses none, the root uses only its own side.
#include "api/coll_inter.hpp"

#include <vector>

#include "api/args.hpp"
#include "api/coll_schedule.hpp"
#include "api/coll_support.hpp"
#include "api/comm_support.hpp"
#include "coll/inter/intercomm.hpp"

namespace ftmpi::api {
namespace {

namespace inter = coll::inter;

// The hidden intracommunicator of my group. Its context derives from the
// intercommunicator's and from my group's members, so the two groups get
// different ones without exchanging a message.
comm::Communicator& local_comm(comm::Communicator& c) {
  CommState& st = state_of(c);
  if (!st.inter_local) {
    const bool by_slot = member_naming() == comm::ops::Naming::kSlot;
    uint64_t salt = comm::mix64(0x1c0u + static_cast<uint64_t>(c.size()));
    for (const ProcId& p : c.group().members())
      salt = comm::mix64(salt ^ ((static_cast<uint64_t>(static_cast<uint32_t>(p.slot)) << 32) |
                                 (by_slot ? 0u : p.incarnation)));
    st.inter_local = std::make_unique<comm::Communicator>(comm::derive_context(c.ctx(), 0, salt), c.group_ref(),
                                                          c.rank());
  }
  return *st.inter_local;
}

std::vector<int> live_ranks(const comm::Group& g) {
  std::vector<int> r;
  for (int i = 0; i < g.size(); ++i)
    if (!g.is_blank(i)) r.push_back(i);
  return r;
}

int first_live(const comm::Group& g) {
  for (int i = 0; i < g.size(); ++i)
    if (!g.is_blank(i)) return i;
  return 0;
}

// The teams of one call. Not movable: groups_ refers to the members.
class InterRun {
 public:
  explicit InterRun(comm::Communicator& c)
      : watch_(rt()->engine, c),
        local_(rt()->coll, local_comm(c), live_ranks(c.group()), &watch_),
        bridge_(rt()->coll, c, &watch_),
        groups_{local_, bridge_, c.remote_size(), first_live(c.peer_group())} {}
  InterRun(const InterRun&) = delete;
  InterRun& operator=(const InterRun&) = delete;
  const inter::Groups& groups() const { return groups_; }

 private:
  inter::RemoteWatch watch_;
  coll::Team local_;
  coll::Team bridge_;
  inter::Groups groups_;
};

Err check_inter_root(const comm::Communicator& c, int root, Why& w) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c.remote_size())) return Err::kOk;
  return w.set(Err::kRoot, "root %d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote group (size %d)", root,
               c.remote_size());
}

// One side of a v-collective over the remote group: counts and displs
// (null for the plain form: then `count` per block).
Err check_v_side(const void* buf, const int* counts, const int* displs, int count, MPI_Datatype dt, int n,
                 const char* what, const dtype::TypeRef** t, Why& w) {
  Err e;
  if (!counts) return check_side(buf, count, dt, t, w);
  if (!ok(e = check_type(dt, t, w)) || !ok(e = check_vector(counts, n, what, displs, what, w)))
    return e;
  for (int r = 0; r < n; ++r)
    if (!ok(e = check_buffer(buf, counts[r], **t, w))) return e;
  return Err::kOk;
}

// The FT entry check (a failure pending) and the run.
template <class Run>
int run(Call& call, comm::Communicator& c, Run&& fn) {
  if (int code = MPI_SUCCESS; call.ft_blocked_collective(&c, &code)) return code;
  InterRun teams(c);
  return call.ret(&c, fn(teams.groups()));
}

}  // namespace

void retire_inter_local(comm::Communicator& c) {
  if (!c.ext) return;
  CommState& st = state_of(c);
  if (st.inter_local) rt()->zombie_comms.push_back(std::move(st.inter_local));
}

int inter_barrier(Call& call, comm::Communicator& c) {
  return run(call, c, [&](const inter::Groups& g) { return inter::barrier(g); });
}

int inter_bcast(Call& call, comm::Communicator& c, void* buf, int count, MPI_Datatype dt, int root) {
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  if (!ok(e = check_inter_root(c, root, w))) return call.fail(&c, e, "%s", w.text);
  if (root != MPI_PROC_NULL && !ok(e = check_side(buf, count, dt, &t, w))) return call.fail(&c, e, "%s", w.text);
  return run(call, c, [&](const inter::Groups& g) {
    return inter::bcast(g, coll::BcastArgs{buf, static_cast<size_t>(count), t, root});
  });
}

int inter_rooted(Call& call, comm::Communicator& c, bool gather, const void* sbuf, const int* scounts,
                 const int* sdispls, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                 const int* rdispls, int rcount, MPI_Datatype rtype, int root) {
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_inter_root(c, root, w))) return call.fail(&c, e, "%s", w.text);
  const int n = c.remote_size();
  if (root == MPI_ROOT) {
    // The root's side covers the remote group.
    e = gather ? check_v_side(rbuf, rcounts, rdispls, rcount, rtype, n, "recvcounts", &rt_, w)
               : check_v_side(sbuf, scounts, sdispls, scount, stype, n, "sendcounts", &st, w);
  } else if (root != MPI_PROC_NULL) {
    e = gather ? check_side(sbuf, scount, stype, &st, w) : check_side(rbuf, rcount, rtype, &rt_, w);
  }
  if (!ok(e)) return call.fail(&c, e, "%s", w.text);
  coll::VArgs a{sbuf, scounts, sdispls, static_cast<size_t>(scount), st, rbuf, rcounts, rdispls,
                static_cast<size_t>(rcount), rt_, root};
  return run(call, c, [&](const inter::Groups& g) { return gather ? inter::gather(g, a) : inter::scatter(g, a); });
}

int inter_all(Call& call, comm::Communicator& c, bool to_all, const void* sbuf, const int* scounts,
              const int* sdispls, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
              const int* rdispls, int rcount, MPI_Datatype rtype) {
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  const int n = c.remote_size();
  if (!ok(e = to_all ? check_v_side(sbuf, scounts, sdispls, scount, stype, n, "sendcounts", &st, w)
                     : check_side(sbuf, scount, stype, &st, w)) ||
      !ok(e = check_v_side(rbuf, rcounts, rdispls, rcount, rtype, n, "recvcounts", &rt_, w)))
    return call.fail(&c, e, "%s", w.text);
  coll::VArgs a{sbuf, scounts, sdispls, static_cast<size_t>(scount), st, rbuf, rcounts, rdispls,
                static_cast<size_t>(rcount), rt_, 0};
  return run(call, c, [&](const inter::Groups& g) { return to_all ? inter::alltoall(g, a) : inter::allgather(g, a); });
}

int inter_alltoallw(Call& call, comm::Communicator& c, const void* sbuf, const int* scounts, const int* sdispls,
                    const MPI_Datatype* stypes, void* rbuf, const int* rcounts, const int* rdispls,
                    const MPI_Datatype* rtypes) {
  Why w;
  Err e;
  const int n = c.remote_size();
  const size_t un = static_cast<size_t>(n);
  if (!ok(e = check_vector(scounts, n, "sendcounts", sdispls, "sdispls", w)) ||
      !ok(e = check_vector(rcounts, n, "recvcounts", rdispls, "rdispls", w)))
    return call.fail(&c, e, "%s", w.text);
  if (!stypes || !rtypes) return call.fail(&c, Err::kArg, "a types array is null");
  std::vector<dtype::TypeRef> types(2 * un);
  std::vector<inter::WBlock> sends(un), recvs(un);
  for (size_t r = 0; r < un; ++r) {
    if (!ok(e = type_ref(stypes[r], &types[r], w)) || !ok(e = check_buffer(sbuf, scounts[r], types[r], w)) ||
        !ok(e = type_ref(rtypes[r], &types[un + r], w)) || !ok(e = check_buffer(rbuf, rcounts[r], types[un + r], w)))
      return call.fail(&c, e, "%s", w.text);
    sends[r] = {static_cast<const uint8_t*>(sbuf) + sdispls[r], static_cast<size_t>(scounts[r]), &types[r]};
    recvs[r] = {static_cast<uint8_t*>(rbuf) + rdispls[r], static_cast<size_t>(rcounts[r]), &types[un + r]};
  }
  return run(call, c, [&](const inter::Groups& g) { return inter::alltoallw(g, {sends.data(), recvs.data()}); });
}

int inter_reduce(Call& call, comm::Communicator& c, bool all_reduce, const void* sbuf, void* rbuf, int count,
                 MPI_Datatype dt, MPI_Op oph, int root) {
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  BoundOp op;
  if (!all_reduce && !ok(e = check_inter_root(c, root, w))) return call.fail(&c, e, "%s", w.text);
  // The root receives only; the other group sends only; allreduce does both.
  const bool sends = all_reduce || (root != MPI_ROOT && root != MPI_PROC_NULL);
  const bool receives = all_reduce || root == MPI_ROOT;
  if (sends || receives) {
    if (!ok(e = check_side(sends ? sbuf : rbuf, count, dt, &t, w)) ||
        (receives && !ok(e = check_buffer(rbuf, count, *t, w))) || !ok(e = bind_op(oph, dt, *t, &op, w)))
      return call.fail(&c, e, "%s", w.text);
  }
  coll::ReduceArgs a{sbuf, rbuf, static_cast<size_t>(count), t, &op.op, all_reduce ? 0 : root};
  return run(call, c, [&](const inter::Groups& g) { return all_reduce ? inter::allreduce(g, a) : inter::reduce(g, a); });
}

int inter_reduce_scatter(Call& call, comm::Communicator& c, const void* sbuf, void* rbuf, const int* rcounts,
                         MPI_Datatype dt, MPI_Op oph) {
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  BoundOp op;
  if (!ok(e = check_counts(rcounts, c.size(), "recvcounts", w))) return call.fail(&c, e, "%s", w.text);
  long long total = 0;
  for (int r = 0; r < c.size(); ++r) total += rcounts[r];
  if (total > INT_MAX) return call.fail(&c, Err::kCount, "the receive counts add up to more than INT_MAX");
  if (!ok(e = check_side(sbuf, static_cast<int>(total), dt, &t, w)) ||
      !ok(e = check_buffer(rbuf, rcounts[c.rank()], *t, w)) || !ok(e = bind_op(oph, dt, *t, &op, w)))
    return call.fail(&c, e, "%s", w.text);
  coll::ReduceScatterArgs a{sbuf, rbuf, rcounts, t, &op.op};
  return run(call, c, [&](const inter::Groups& g) { return inter::reduce_scatter(g, a); });
}

}  // namespace ftmpi::api
