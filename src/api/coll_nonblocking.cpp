// Nonblocking collectives of MPI-3.1 §5.12 that move data: Ibarrier,
// Ibcast, Igather(v), Iscatter(v), Iallgather(v), Ialltoall(v/w), and the
// blocking MPI_Alltoallw (the same schedule, waited for). Arguments are
// checked as for the blocking calls (coll.cpp, coll_all.cpp), MPI_IN_PLACE
// where the standard allows it; the work is a schedule (src/coll/nbc)
// progressed by every later MPI call.
#include <algorithm>

#include "api/coll_schedule.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;
namespace nbc = ftmpi::coll::nbc;

namespace {

// The largest item index a v-layout reaches: how much of a buffer
// MPI_IN_PLACE copies.
long long v_extent_items(const int* counts, const int* displs, int n) {
  long long hi = 0;
  for (int r = 0; r < n; ++r) hi = std::max(hi, static_cast<long long>(displs[r]) + counts[r]);
  return hi;
}

int rooted(const char* name, bool gather, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
           MPI_Datatype rtype, int root, MPI_Comm ch, MPI_Request* request) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  Why w;
  Err e;
  if (!ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  const bool is_root = c->rank() == root;
  auto ip = std::make_unique<InPlace>();
  if (is_root && gather && sbuf == MPI_IN_PLACE) {
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t ? static_cast<long long>(root) * rcount : 0;
    sbuf = ip->copy(t ? static_cast<uint8_t*>(rbuf) + off * t->type->extent() : rbuf, rcount, rtype);
    scount = rcount;
    stype = rtype;
  } else if (is_root && !gather && rbuf == MPI_IN_PLACE) {
    rbuf = ip->room(sbuf, scount, stype);
    rcount = scount;
    rtype = stype;
  }
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  const bool check_send = gather || is_root, check_recv = !gather || is_root;
  if (check_send && !ok(e = check_side(sbuf, scount, stype, &st, w))) return call.fail(c, e, "%s", w.text);
  if (check_recv && !ok(e = check_side(rbuf, rcount, rtype, &rt_, w))) return call.fail(c, e, "%s", w.text);
  if (is_root && !ok(e = check_same_signature(**st, scount, **rt_, rcount, w))) return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  // BLANK mode: a blank root makes the call a no-op (FT-MPI spec §4.1).
  if (!blank_root(*c, root)) {
    const coll::BlockArgs a{sbuf, static_cast<size_t>(check_send ? scount : 0), st, rbuf,
                            static_cast<size_t>(check_recv ? rcount : 0), rt_, s->team().index_of(root)};
    gather ? nbc::gather(*s, a) : nbc::scatter(*s, a);
  }
  return run_schedule(call, *c, std::move(s), request);
}

int all_blocks(const char* name, bool to_all, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
               int rcount, MPI_Datatype rtype, MPI_Comm ch, MPI_Request* request) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  auto ip = std::make_unique<InPlace>();
  if (sbuf == MPI_IN_PLACE) {
    TypeObj* t = rt()->types.get(rtype);
    if (to_all) {
      sbuf = ip->copy(rbuf, static_cast<long long>(rcount) * c->size(), rtype);
    } else {
      const long long off = t ? static_cast<long long>(c->rank()) * rcount * t->type->extent() : 0;
      sbuf = ip->copy(static_cast<uint8_t*>(rbuf) + off, rcount, rtype);
    }
    scount = rcount;
    stype = rtype;
  }
  Why w;
  Err e;
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_side(sbuf, scount, stype, &st, w)) || !ok(e = check_side(rbuf, rcount, rtype, &rt_, w)) ||
      !ok(e = check_same_signature(**st, scount, **rt_, rcount, w)))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  const coll::BlockArgs a{sbuf, static_cast<size_t>(scount), st, rbuf, static_cast<size_t>(rcount), rt_, 0};
  to_all ? nbc::alltoall(*s, a) : nbc::allgather(*s, a);
  return run_schedule(call, *c, std::move(s), request);
}

}  // namespace

extern "C" {

int PMPI_Ibarrier(MPI_Comm ch, MPI_Request* request) {
  Call call("MPI_Ibarrier");
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  nbc::barrier(*s);
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Ibarrier, PMPI_Ibarrier)

int PMPI_Ibcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm ch, MPI_Request* request) {
  Call call("MPI_Ibcast");
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  if (!ok(e = check_side(buf, count, dt, &t, w)) || !ok(e = check_root(*c, root, w)))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  if (!blank_root(*c, root)) nbc::bcast(*s, {buf, static_cast<size_t>(count), t, s->team().index_of(root)});
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Ibcast, PMPI_Ibcast)

int PMPI_Igather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                 int root, MPI_Comm ch, MPI_Request* request) {
  return rooted("MPI_Igather", true, sbuf, scount, stype, rbuf, rcount, rtype, root, ch, request);
}
FTMPI_WEAK_ALIAS(MPI_Igather, PMPI_Igather)

int PMPI_Iscatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  int root, MPI_Comm ch, MPI_Request* request) {
  return rooted("MPI_Iscatter", false, sbuf, scount, stype, rbuf, rcount, rtype, root, ch, request);
}
FTMPI_WEAK_ALIAS(MPI_Iscatter, PMPI_Iscatter)

int PMPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                    MPI_Comm ch, MPI_Request* request) {
  return all_blocks("MPI_Iallgather", false, sbuf, scount, stype, rbuf, rcount, rtype, ch, request);
}
FTMPI_WEAK_ALIAS(MPI_Iallgather, PMPI_Iallgather)

int PMPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm ch, MPI_Request* request) {
  return all_blocks("MPI_Ialltoall", true, sbuf, scount, stype, rbuf, rcount, rtype, ch, request);
}
FTMPI_WEAK_ALIAS(MPI_Ialltoall, PMPI_Ialltoall)

int PMPI_Igatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                  const int displs[], MPI_Datatype rtype, int root, MPI_Comm ch, MPI_Request* request) {
  Call call("MPI_Igatherv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  Why w;
  Err e;
  if (!ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  const bool is_root = c->rank() == root;
  if (is_root && (!ok(e = check_vector(rcounts, c->size(), "recvcounts", displs, "displs", w))))
    return call.fail(c, e, "%s", w.text);
  auto ip = std::make_unique<InPlace>();
  if (is_root && sbuf == MPI_IN_PLACE) {
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t ? static_cast<long long>(displs[root]) * t->type->extent() : 0;
    sbuf = ip->copy(static_cast<uint8_t*>(rbuf) + off, rcounts[root], rtype);
    scount = rcounts[root];
    stype = rtype;
  }
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_side(sbuf, scount, stype, &st, w))) return call.fail(c, e, "%s", w.text);
  if (is_root && (!ok(e = check_type(rtype, &rt_, w)) || !ok(e = check_buffer(rbuf, rcounts[root], *rt_, w)) ||
                  !ok(e = check_same_signature(**st, scount, **rt_, rcounts[root], w))))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  if (!blank_root(*c, root)) {
    nbc::gatherv(*s, {sbuf, nullptr, nullptr, static_cast<size_t>(scount), st, rbuf, rcounts, displs, 0, rt_,
                      s->team().index_of(root)});
  }
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Igatherv, PMPI_Igatherv)

int PMPI_Iscatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf,
                   int rcount, MPI_Datatype rtype, int root, MPI_Comm ch, MPI_Request* request) {
  Call call("MPI_Iscatterv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  Why w;
  Err e;
  if (!ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  const bool is_root = c->rank() == root;
  if (is_root && (!ok(e = check_vector(scounts, c->size(), "sendcounts", displs, "displs", w))))
    return call.fail(c, e, "%s", w.text);
  auto ip = std::make_unique<InPlace>();
  if (is_root && rbuf == MPI_IN_PLACE) {
    rbuf = ip->room(sbuf, scounts[root], stype);
    rcount = scounts[root];
    rtype = stype;
  }
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_side(rbuf, rcount, rtype, &rt_, w))) return call.fail(c, e, "%s", w.text);
  if (is_root && (!ok(e = check_type(stype, &st, w)) || !ok(e = check_buffer(sbuf, scounts[root], *st, w)) ||
                  !ok(e = check_same_signature(**st, scounts[root], **rt_, rcount, w))))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  if (!blank_root(*c, root)) {
    nbc::scatterv(*s, {sbuf, scounts, displs, 0, st, rbuf, nullptr, nullptr, static_cast<size_t>(rcount), rt_,
                       s->team().index_of(root)});
  }
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Iscatterv, PMPI_Iscatterv)

int PMPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                     const int displs[], MPI_Datatype rtype, MPI_Comm ch, MPI_Request* request) {
  Call call("MPI_Iallgatherv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  Why w;
  Err e;
  const int me = c->rank();
  if (!ok(e = check_vector(rcounts, c->size(), "recvcounts", displs, "displs", w)))
    return call.fail(c, e, "%s", w.text);
  auto ip = std::make_unique<InPlace>();
  if (sbuf == MPI_IN_PLACE) {
    TypeObj* t = rt()->types.get(rtype);
    const long long off = t ? static_cast<long long>(displs[me]) * t->type->extent() : 0;
    sbuf = ip->copy(static_cast<uint8_t*>(rbuf) + off, rcounts[me], rtype);
    scount = rcounts[me];
    stype = rtype;
  }
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_side(sbuf, scount, stype, &st, w)) || !ok(e = check_side(rbuf, rcounts[me], rtype, &rt_, w)) ||
      !ok(e = check_same_signature(**st, scount, **rt_, rcounts[me], w)))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  nbc::allgatherv(*s, {sbuf, nullptr, nullptr, static_cast<size_t>(scount), st, rbuf, rcounts, displs, 0, rt_, 0});
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Iallgatherv, PMPI_Iallgatherv)

int PMPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                    const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm ch, MPI_Request* request) {
  Call call("MPI_Ialltoallv");
  int code = MPI_SUCCESS;
  comm::Communicator* c = nbc_comm(call, ch, request, &code);
  if (!c) return code;
  Why w;
  Err e;
  const int me = c->rank(), n = c->size();
  if (!ok(e = check_vector(rcounts, n, "recvcounts", rdispls, "rdispls", w)))
    return call.fail(c, e, "%s", w.text);
  auto ip = std::make_unique<InPlace>();
  if (sbuf == MPI_IN_PLACE) {
    sbuf = ip->copy(rbuf, v_extent_items(rcounts, rdispls, n), rtype);
    scounts = rcounts;
    sdispls = rdispls;
    stype = rtype;
  }
  const dtype::TypeRef *st = nullptr, *rt_ = nullptr;
  if (!ok(e = check_vector(scounts, n, "sendcounts", sdispls, "sdispls", w)) ||
      !ok(e = check_side(sbuf, scounts[me], stype, &st, w)) || !ok(e = check_side(rbuf, rcounts[me], rtype, &rt_, w)) ||
      !ok(e = check_same_signature(**st, scounts[me], **rt_, rcounts[me], w)))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  nbc::alltoallv(*s, {sbuf, scounts, sdispls, 0, st, rbuf, rcounts, rdispls, 0, rt_, 0});
  return run_schedule(call, *c, std::move(s), request);
}
FTMPI_WEAK_ALIAS(MPI_Ialltoallv, PMPI_Ialltoallv)

}  // extern "C"
