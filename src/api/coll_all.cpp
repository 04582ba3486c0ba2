// Collective entry points where every process sends to every other:
// MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv (MPI_IN_PLACE
// as MPI-2 allows: in_place.hpp).
#include <algorithm>

#include "api/call.hpp"
#include "api/coll_inter.hpp"
#include "api/coll_support.hpp"
#include "api/in_place.hpp"
#include "api/pmpi.hpp"
#include "coll/collectives.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

int all_blocks(const char* name, bool to_all, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
               MPI_Datatype rtype, MPI_Comm ch) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter())
    return inter_all(call, *c, to_all, sbuf, nullptr, nullptr, scount, stype, rbuf, nullptr, nullptr, rcount, rtype);
  InPlace ip;
  if (sbuf == MPI_IN_PLACE) {
    // The input is this process's block of the receive buffer (allgather)
    // or the whole receive buffer (alltoall).
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t && !to_all ? static_cast<long long>(c->rank()) * rcount * t->type->extent() : 0;
    sbuf = ip.copy(static_cast<uint8_t*>(rbuf) + off, to_all ? static_cast<long long>(rcount) * c->size() : rcount,
                   rtype);
    scount = rcount;
    stype = rtype;
  }
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_side(sbuf, scount, stype, &st, w)) || !ok(e = check_side(rbuf, rcount, rtype, &rt_, w)) ||
      !ok(e = check_same_signature(**st, scount, **rt_, rcount, w)) ||
      !ok(e = check_not_aliased(sbuf, bytes_of(scount, *st), rbuf, bytes_of(rcount, *rt_), w)))
    return call.fail(c, e, "%s", w.text);
  if (refused_collective(call, *c, &code)) return code;
  coll::Team team = team_of(*c);
  coll::BlockArgs a{sbuf, static_cast<size_t>(scount), st, rbuf, static_cast<size_t>(rcount), rt_, 0};
  return call.ret(c, to_all ? coll::alltoall(team, a) : coll::allgather(team, a));
}

}  // namespace

extern "C" {

int PMPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm ch) {
  return all_blocks("MPI_Allgather", false, sbuf, scount, stype, rbuf, rcount, rtype, ch);
}
FTMPI_WEAK_ALIAS(MPI_Allgather, PMPI_Allgather)

int PMPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm ch) {
  return all_blocks("MPI_Alltoall", true, sbuf, scount, stype, rbuf, rcount, rtype, ch);
}
FTMPI_WEAK_ALIAS(MPI_Alltoall, PMPI_Alltoall)

int PMPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* displs,
                    MPI_Datatype rtype, MPI_Comm ch) {
  Call call("MPI_Allgatherv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter())
    return inter_all(call, *c, false, sbuf, nullptr, nullptr, scount, stype, rbuf, rcounts, displs, 0, rtype);
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  const int me = c->rank();
  InPlace ip;
  if (sbuf == MPI_IN_PLACE) {
    if (!ok(e = check_vector(rcounts, c->size(), "recvcounts", displs, "displs", w)))
      return call.fail(c, e, "%s", w.text);
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t ? static_cast<long long>(displs[me]) * t->type->extent() : 0;
    sbuf = ip.copy(static_cast<uint8_t*>(rbuf) + off, rcounts[me], rtype);
    scount = rcounts[me];
    stype = rtype;
  }
  if (!ok(e = check_side(sbuf, scount, stype, &st, w)) ||
      !ok(e = check_vector(rcounts, c->size(), "recvcounts", displs, "displs", w)) ||
      !ok(e = check_side(rbuf, rcounts[me], rtype, &rt_, w)) ||
      !ok(e = check_same_signature(**st, scount, **rt_, rcounts[me], w)) ||
      !ok(e = check_not_aliased(sbuf, bytes_of(scount, *st), rbuf, bytes_of(rcounts[me], *rt_), w)))
    return call.fail(c, e, "%s", w.text);
  if (refused_collective(call, *c, &code)) return code;
  coll::Team team = team_of(*c);
  coll::VArgs a{sbuf, nullptr, nullptr, static_cast<size_t>(scount), st, rbuf, rcounts, displs, 0, rt_, 0};
  return call.ret(c, coll::allgatherv(team, a));
}
FTMPI_WEAK_ALIAS(MPI_Allgatherv, PMPI_Allgatherv)

int PMPI_Alltoallv(const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype, void* rbuf, const int* rcounts,
                   const int* rdispls, MPI_Datatype rtype, MPI_Comm ch) {
  Call call("MPI_Alltoallv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter())
    return inter_all(call, *c, true, sbuf, scounts, sdispls, 0, stype, rbuf, rcounts, rdispls, 0, rtype);
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  const int me = c->rank();
  InPlace ip;
  if (sbuf == MPI_IN_PLACE) {
    if (!ok(e = check_vector(rcounts, c->size(), "recvcounts", rdispls, "rdispls", w)))
      return call.fail(c, e, "%s", w.text);
    long long hi = 0;
    for (int r = 0; r < c->size(); ++r) hi = std::max(hi, static_cast<long long>(rdispls[r]) + rcounts[r]);
    sbuf = ip.copy(rbuf, hi, rtype);
    scounts = rcounts;
    sdispls = rdispls;
    stype = rtype;
  }
  if (!ok(e = check_vector(scounts, c->size(), "sendcounts", sdispls, "sdispls", w)) ||
      !ok(e = check_vector(rcounts, c->size(), "recvcounts", rdispls, "rdispls", w)) ||
      !ok(e = check_side(sbuf, scounts[me], stype, &st, w)) || !ok(e = check_side(rbuf, rcounts[me], rtype, &rt_, w)) ||
      !ok(e = check_same_signature(**st, scounts[me], **rt_, rcounts[me], w)))
    return call.fail(c, e, "%s", w.text);
  if (refused_collective(call, *c, &code)) return code;
  coll::Team team = team_of(*c);
  coll::VArgs a{sbuf, scounts, sdispls, 0, st, rbuf, rcounts, rdispls, 0, rt_, 0};
  return call.ret(c, coll::alltoallv(team, a));
}
FTMPI_WEAK_ALIAS(MPI_Alltoallv, PMPI_Alltoallv)

}  // extern "C"
