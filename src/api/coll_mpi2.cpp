// MPI_Alltoallw and MPI_Ialltoallw (per-peer types, byte displacements;
// MPI-3.1 §5.8, §5.12.6) and MPI_Reduce_local (§5.9.7).
#include <algorithm>
#include <cstring>

#include "api/coll_inter.hpp"
#include "api/coll_schedule.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;
namespace nbc = ftmpi::coll::nbc;

namespace {

// Checks the per-peer side of an alltoallw and collects its types.
Err w_side(const void* buf, const int* counts, const int* displs, const MPI_Datatype* types, int n, const char* what,
           std::vector<dtype::TypeRef>* out, Why& w) {
  Err e;
  if (!ok(e = check_vector(counts, n, what, displs, what, w))) return e;
  if (!types) return w.set(Err::kArg, "the %s types array is null", what);
  out->resize(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (!ok(e = type_ref(types[r], &(*out)[static_cast<size_t>(r)], w))) return e;
    if (!ok(e = check_buffer(buf, counts[r], (*out)[static_cast<size_t>(r)], w))) return e;
  }
  return Err::kOk;
}

int alltoallw(const char* name, const void* sbuf, const int* scounts, const int* sdispls, const MPI_Datatype* stypes,
              void* rbuf, const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes, MPI_Comm ch,
              MPI_Request* request, bool nonblocking) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = nonblocking ? nbc_comm(call, ch, request, &code) : coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter()) return inter_alltoallw(call, *c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
  const int n = c->size(), me = c->rank();
  Why w;
  Err e;
  nbc::WArgs a{sbuf, scounts, sdispls, {}, rbuf, rcounts, rdispls, {}};
  if (!ok(e = w_side(rbuf, rcounts, rdispls, rtypes, n, "recv", &a.rtypes, w))) return call.fail(c, e, "%s", w.text);
  std::unique_ptr<std::vector<uint8_t>> copy;
  if (sbuf == MPI_IN_PLACE) {
    // The input is the receive buffer: copy the bytes all its blocks span.
    int64_t lo = 0, hi = 0;
    bool any = false;
    for (int r = 0; r < n; ++r) {
      const coll::Span sp = coll::span_of(*a.rtypes[static_cast<size_t>(r)], static_cast<size_t>(rcounts[r]));
      if (sp.bytes == 0) continue;
      const int64_t l = rdispls[r] + sp.lo, h = l + static_cast<int64_t>(sp.bytes);
      lo = any ? std::min(lo, l) : l;
      hi = any ? std::max(hi, h) : h;
      any = true;
    }
    copy = std::make_unique<std::vector<uint8_t>>(static_cast<size_t>(hi - lo) + 1);
    if (any) std::memcpy(copy->data(), static_cast<uint8_t*>(rbuf) + lo, static_cast<size_t>(hi - lo));
    a.sbuf = copy->data() - lo;
    a.scounts = rcounts;
    a.sdispls = rdispls;
    a.stypes = a.rtypes;
  } else if (!ok(e = w_side(sbuf, scounts, sdispls, stypes, n, "send", &a.stypes, w))) {
    return call.fail(c, e, "%s", w.text);
  }
  const size_t m = static_cast<size_t>(me);
  if (!ok(e = check_same_signature(*a.stypes[m], a.scounts[me], *a.rtypes[m], rcounts[me], w)))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  if (copy) s->keep(std::move(copy));
  nbc::alltoallw(*s, a);
  return run_schedule(call, *c, std::move(s), request);
}

}  // namespace

extern "C" {

int PMPI_Alltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void* rbuf,
                   const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm ch) {
  return alltoallw("MPI_Alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, ch, nullptr,
                   false);
}
FTMPI_WEAK_ALIAS(MPI_Alltoallw, PMPI_Alltoallw)

int PMPI_Ialltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                    void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm ch,
                    MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, ch, request,
                   true);
}
FTMPI_WEAK_ALIAS(MPI_Ialltoallw, PMPI_Ialltoallw)

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype dt, MPI_Op oph) {
  Call call("MPI_Reduce_local");
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  BoundOp op;
  if (!ok(e = check_side(inbuf, count, dt, &t, w)) || !ok(e = check_buffer(inoutbuf, count, *t, w)) ||
      !ok(e = bind_op(oph, dt, *t, &op, w)))
    return call.fail(nullptr, e, "%s", w.text);
  // inoutbuf := inbuf op inoutbuf, as in the collectives.
  op.op.apply(inbuf, inoutbuf, static_cast<size_t>(count), **t);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Reduce_local, PMPI_Reduce_local)

}  // extern "C"
