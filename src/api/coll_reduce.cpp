// Reduction entry points: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter,
// MPI_Scan (with MPI-2's MPI_IN_PLACE: in_place.hpp).
#include "api/call.hpp"
#include "api/coll_inter.hpp"
#include "api/coll_support.hpp"
#include "api/in_place.hpp"
#include "api/pmpi.hpp"
#include "coll/collectives.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

enum class Reduction { kReduce, kAllreduce, kScan };

int reduction(const char* name, Reduction kind, const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op oph, int root,
              MPI_Comm ch) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, kind != Reduction::kScan);
  if (!c) return code;
  if (c->is_inter()) return inter_reduce(call, *c, kind == Reduction::kAllreduce, sbuf, rbuf, count, dt, oph, root);
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  BoundOp op;
  if (kind == Reduction::kReduce && !ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  const bool receives = kind != Reduction::kReduce || c->rank() == root;
  // MPI_IN_PLACE: the root of a reduce, every process of the others.
  InPlace ip;
  if (sbuf == MPI_IN_PLACE && receives) sbuf = ip.copy(rbuf, count, dt);
  if (!ok(e = check_side(sbuf, count, dt, &t, w)) || (receives && !ok(e = check_buffer(rbuf, count, *t, w))) ||
      !ok(e = bind_op(oph, dt, *t, &op, w)) ||
      (receives && !ok(e = check_not_aliased(sbuf, bytes_of(count, *t), rbuf, bytes_of(count, *t), w))))
    return call.fail(c, e, "%s", w.text);
  if (refused_collective(call, *c, &code)) return code;
  if (kind == Reduction::kReduce && blank_root(*c, root)) return MPI_SUCCESS;
  coll::Team team = team_of(*c);
  coll::ReduceArgs a{sbuf, rbuf, static_cast<size_t>(count), t, &op.op, kind == Reduction::kReduce ? team.index_of(root) : 0};
  switch (kind) {
    case Reduction::kReduce:
      return call.ret(c, coll::reduce(team, a));
    case Reduction::kAllreduce:
      return call.ret(c, coll::allreduce(team, a));
    case Reduction::kScan:
      return call.ret(c, coll::scan(team, a));
  }
  return MPI_ERR_INTERN;
}

}  // namespace

extern "C" {

int PMPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm ch) {
  return reduction("MPI_Reduce", Reduction::kReduce, sbuf, rbuf, count, dt, op, root, ch);
}
FTMPI_WEAK_ALIAS(MPI_Reduce, PMPI_Reduce)

int PMPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ch) {
  return reduction("MPI_Allreduce", Reduction::kAllreduce, sbuf, rbuf, count, dt, op, 0, ch);
}
FTMPI_WEAK_ALIAS(MPI_Allreduce, PMPI_Allreduce)

int PMPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ch) {
  return reduction("MPI_Scan", Reduction::kScan, sbuf, rbuf, count, dt, op, 0, ch);
}
FTMPI_WEAK_ALIAS(MPI_Scan, PMPI_Scan)

int PMPI_Reduce_scatter(const void* sbuf, void* rbuf, const int* rcounts, MPI_Datatype dt, MPI_Op oph, MPI_Comm ch) {
  Call call("MPI_Reduce_scatter");
  int code = MPI_SUCCESS;
  comm::Communicator* c = coll_comm(call, ch, &code, true);
  if (!c) return code;
  if (c->is_inter()) return inter_reduce_scatter(call, *c, sbuf, rbuf, rcounts, dt, oph);
  Why w;
  Err e;
  const dtype::TypeRef* t = nullptr;
  BoundOp op;
  if (!ok(e = check_counts(rcounts, c->size(), "recvcounts", w))) return call.fail(c, e, "%s", w.text);
  long long total = 0;
  for (int r = 0; r < c->size(); ++r) total += rcounts[r];
  if (total > INT_MAX) return call.fail(c, Err::kCount, "the counts add up to %lld, more than an int holds", total);
  const int mine = rcounts[c->rank()];
  InPlace ip;
  if (sbuf == MPI_IN_PLACE) sbuf = ip.copy(rbuf, total, dt);
  if (!ok(e = check_side(sbuf, static_cast<int>(total), dt, &t, w)) || !ok(e = check_buffer(rbuf, mine, *t, w)) ||
      !ok(e = bind_op(oph, dt, *t, &op, w)) ||
      !ok(e = check_not_aliased(sbuf, bytes_of(static_cast<int>(total), *t), rbuf, bytes_of(mine, *t), w)))
    return call.fail(c, e, "%s", w.text);
  if (refused_collective(call, *c, &code)) return code;
  coll::Team team = team_of(*c);
  return call.ret(c, coll::reduce_scatter(team, {sbuf, rbuf, rcounts, t, &op.op}));
}
FTMPI_WEAK_ALIAS(MPI_Reduce_scatter, PMPI_Reduce_scatter)

}  // extern "C"
