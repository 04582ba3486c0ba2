// Collective entry points of MPI-1.2 chapter 4: barrier, broadcast, gather
// and scatter (coll_all.cpp: the all-to-all family; coll_reduce.cpp:
// reductions). Arguments a process does not use (the root's receive side on
// other processes, ...) are not checked, as the standard says they are
// "significant only at root". MPI_IN_PLACE (MPI-2) at the root: in_place.hpp.
#include "api/call.hpp"
#include "api/coll_inter.hpp"
#include "api/coll_support.hpp"
#include "api/in_place.hpp"
#include "api/pmpi.hpp"
#include "coll/collectives.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

// Gather and scatter: `root_side` is the side only the root uses.
int rooted_blocks(const char* name, bool gather, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm ch) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter())
    return inter_rooted(call, *c, gather, sbuf, nullptr, nullptr, scount, stype, rbuf, nullptr, nullptr, rcount, rtype,
                        root);
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  const bool is_root = c->rank() == root;
  InPlace ip;
  if (is_root && gather && sbuf == MPI_IN_PLACE) {
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t ? static_cast<long long>(root) * rcount * t->type->extent() : 0;
    sbuf = ip.copy(static_cast<uint8_t*>(rbuf) + off, rcount, rtype);
    scount = rcount;
    stype = rtype;
  } else if (is_root && !gather && rbuf == MPI_IN_PLACE) {
    rbuf = ip.room(sbuf, scount, stype);
    rcount = scount;
    rtype = stype;
  }
  // gather: everyone sends, the root receives; scatter: the reverse.
  const bool check_send = gather || is_root, check_recv = !gather || is_root;
  if (check_send && !ok(e = check_side(sbuf, scount, stype, &st, w))) return call.fail(c, e, "%s", w.text);
  if (check_recv && !ok(e = check_side(rbuf, rcount, rtype, &rt_, w))) return call.fail(c, e, "%s", w.text);
  if (is_root) {
    if (!ok(e = check_same_signature(**st, scount, **rt_, rcount, w))) return call.fail(c, e, "%s", w.text);
    const size_t sb = bytes_of(scount, *st), rb = bytes_of(rcount, *rt_);
    if (!ok(e = check_not_aliased(sbuf, sb, rbuf, rb, w))) return call.fail(c, e, "%s", w.text);
  }
  if (refused_collective(call, *c, &code)) return code;
  if (blank_root(*c, root)) return MPI_SUCCESS;
  coll::Team team = team_of(*c);
  coll::BlockArgs a{sbuf, static_cast<size_t>(check_send ? scount : 0), st, rbuf,
                    static_cast<size_t>(check_recv ? rcount : 0), rt_, team.index_of(root)};
  return call.ret(c, gather ? coll::gather(team, a) : coll::scatter(team, a));
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm ch) {
  Call call("MPI_Barrier");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter()) return inter_barrier(call, *c);
  if (refused_collective(call, *c, &code)) return code;
  return call.ret(c, coll::barrier(team_of(*c)));
}
FTMPI_WEAK_ALIAS(MPI_Barrier, PMPI_Barrier)

int PMPI_Bcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm ch) {
  Call call("MPI_Bcast");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter()) return inter_bcast(call, *c, buf, count, dt, root);
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  if (!ok(e = check_side(buf, count, dt, &t, w)) || !ok(e = check_root(*c, root, w)))
    return call.fail(c, e, "%s", w.text);
  if (refused_collective(call, *c, &code)) return code;
  if (blank_root(*c, root)) return MPI_SUCCESS;
  coll::Team team = team_of(*c);
  return call.ret(c, coll::bcast(team, {buf, static_cast<size_t>(count), t, team.index_of(root)}));
}
FTMPI_WEAK_ALIAS(MPI_Bcast, PMPI_Bcast)

int PMPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm ch) {
  return rooted_blocks("MPI_Gather", true, sbuf, scount, stype, rbuf, rcount, rtype, root, ch);
}
FTMPI_WEAK_ALIAS(MPI_Gather, PMPI_Gather)

int PMPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                 MPI_Comm ch) {
  return rooted_blocks("MPI_Scatter", false, sbuf, scount, stype, rbuf, rcount, rtype, root, ch);
}
FTMPI_WEAK_ALIAS(MPI_Scatter, PMPI_Scatter)

int PMPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* displs,
                 MPI_Datatype rtype, int root, MPI_Comm ch) {
  Call call("MPI_Gatherv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter())
    return inter_rooted(call, *c, true, sbuf, nullptr, nullptr, scount, stype, rbuf, rcounts, displs, 0, rtype, root);
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  InPlace ip;
  if (c->rank() == root && sbuf == MPI_IN_PLACE) {
    if (!ok(e = check_vector(rcounts, c->size(), "recvcounts", displs, "displs", w)))
      return call.fail(c, e, "%s", w.text);
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t ? static_cast<long long>(displs[root]) * t->type->extent() : 0;
    sbuf = ip.copy(static_cast<uint8_t*>(rbuf) + off, rcounts[root], rtype);
    scount = rcounts[root];
    stype = rtype;
  }
  if (!ok(e = check_side(sbuf, scount, stype, &st, w))) return call.fail(c, e, "%s", w.text);
  if (c->rank() == root) {
    if (!ok(e = check_vector(rcounts, c->size(), "recvcounts", displs, "displs", w)) ||
        !ok(e = check_type(rtype, &rt_, w)) || !ok(e = check_buffer(rbuf, rcounts[root], *rt_, w)) ||
        !ok(e = check_same_signature(**st, scount, **rt_, rcounts[root], w)) ||
        !ok(e = check_not_aliased(sbuf, bytes_of(scount, *st), rbuf, bytes_of(rcounts[root], *rt_), w)))
      return call.fail(c, e, "%s", w.text);
  }
  if (refused_collective(call, *c, &code)) return code;
  if (blank_root(*c, root)) return MPI_SUCCESS;
  coll::Team team = team_of(*c);
  coll::VArgs a{sbuf, nullptr, nullptr, static_cast<size_t>(scount), st, rbuf, rcounts, displs, 0, rt_,
                team.index_of(root)};
  return call.ret(c, coll::gatherv(team, a));
}
FTMPI_WEAK_ALIAS(MPI_Gatherv, PMPI_Gatherv)

int PMPI_Scatterv(const void* sbuf, const int* scounts, const int* displs, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm ch) {
  Call call("MPI_Scatterv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter())
    return inter_rooted(call, *c, false, sbuf, scounts, displs, 0, stype, rbuf, nullptr, nullptr, rcount, rtype, root);
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  InPlace ip;
  if (c->rank() == root && rbuf == MPI_IN_PLACE) {
    if (!ok(e = check_counts(scounts, c->size(), "sendcounts", w))) return call.fail(c, e, "%s", w.text);
    rbuf = ip.room(sbuf, scounts[root], stype);
    rcount = scounts[root];
    rtype = stype;
  }
  if (!ok(e = check_side(rbuf, rcount, rtype, &rt_, w))) return call.fail(c, e, "%s", w.text);
  if (c->rank() == root) {
    if (!ok(e = check_vector(scounts, c->size(), "sendcounts", displs, "displs", w)) ||
        !ok(e = check_type(stype, &st, w)) || !ok(e = check_buffer(sbuf, scounts[root], *st, w)) ||
        !ok(e = check_same_signature(**st, scounts[root], **rt_, rcount, w)) ||
        !ok(e = check_not_aliased(sbuf, bytes_of(scounts[root], *st), rbuf, bytes_of(rcount, *rt_), w)))
      return call.fail(c, e, "%s", w.text);
  }
  if (refused_collective(call, *c, &code)) return code;
  if (blank_root(*c, root)) return MPI_SUCCESS;
  coll::Team team = team_of(*c);
  coll::VArgs a{sbuf, scounts, displs, 0, st, rbuf, nullptr, nullptr, static_cast<size_t>(rcount), rt_,
                team.index_of(root)};
  return call.ret(c, coll::scatterv(team, a));
}
FTMPI_WEAK_ALIAS(MPI_Scatterv, PMPI_Scatterv)

}  // extern "C"
