// Reductions on schedules (src/coll/nbc): the nonblocking Ireduce,
// Iallreduce, Ireduce_scatter(_block), Iscan, Iexscan of MPI-3.1 §5.12, and
// the MPI-2 blocking MPI_Exscan and MPI_Reduce_scatter_block, which run the
// same schedules and wait. MPI_IN_PLACE as MPI-3.1 §5.9-5.11 allow it.
#include <climits>

#include "api/coll_inter.hpp"
#include "api/coll_schedule.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;
namespace nbc = ftmpi::coll::nbc;

namespace {

enum class Reduction { kReduce, kAllreduce, kScan, kExscan };

// `request` null: the blocking form.
int reduction(const char* name, Reduction kind, const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op oph,
              int root, MPI_Comm ch, MPI_Request* request, bool nonblocking) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = nonblocking ? nbc_comm(call, ch, request, &code) : coll_comm(call, ch, &code);
  if (!c) return code;
  Why w;
  Err e;
  if (kind == Reduction::kReduce && !ok(e = check_root(*c, root, w))) return call.fail(c, e, "%s", w.text);
  const bool receives = kind != Reduction::kReduce || c->rank() == root;
  auto ip = std::make_unique<InPlace>();
  // In place: the root of a reduce, every process of the others.
  if (sbuf == MPI_IN_PLACE && receives) sbuf = ip->copy(rbuf, count, dt);
  const dtype::TypeRef* t = nullptr;
  auto op = std::make_unique<BoundOp>();
  if (!ok(e = check_side(sbuf, count, dt, &t, w)) || (receives && !ok(e = check_buffer(rbuf, count, *t, w))) ||
      !ok(e = bind_op(oph, dt, *t, op.get(), w)) ||
      (receives && !ok(e = check_not_aliased(sbuf, bytes_of(count, *t), rbuf, bytes_of(count, *t), w))))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  const coll::ReduceOp* rop = &s->keep(std::move(op))->op;
  if (!(kind == Reduction::kReduce && blank_root(*c, root))) {
    const coll::ReduceArgs a{sbuf, rbuf, static_cast<size_t>(count), t, rop,
                             kind == Reduction::kReduce ? s->team().index_of(root) : 0};
    switch (kind) {
      case Reduction::kReduce: nbc::reduce(*s, a); break;
      case Reduction::kAllreduce: nbc::allreduce(*s, a); break;
      case Reduction::kScan: nbc::scan(*s, a); break;
      case Reduction::kExscan: nbc::exscan(*s, a); break;
    }
  }
  return run_schedule(call, *c, std::move(s), request);
}

// Reduce_scatter (rcounts) and Reduce_scatter_block (by_block: `block`
// items each).
int reduce_scatter(const char* name, const void* sbuf, void* rbuf, const int* rcounts, bool by_block, int block,
                   MPI_Datatype dt, MPI_Op oph, MPI_Comm ch, MPI_Request* request, bool nonblocking) {
  Call call(name);
  int code = MPI_SUCCESS;
  comm::Communicator* c = nonblocking ? nbc_comm(call, ch, request, &code) : coll_comm(call, ch, &code, true);
  if (!c) return code;
  Why w;
  Err e;
  std::vector<int> even;
  if (by_block) {
    if (block < 0) return call.fail(c, Err::kCount, "recvcount %d is negative", block);
    even.assign(static_cast<size_t>(c->size()), block);
    rcounts = even.data();
  }
  if (c->is_inter()) return inter_reduce_scatter(call, *c, sbuf, rbuf, rcounts, dt, oph);
  if (!ok(e = check_counts(rcounts, c->size(), "recvcounts", w))) return call.fail(c, e, "%s", w.text);
  long long total = 0;
  for (int r = 0; r < c->size(); ++r) total += rcounts[r];
  if (total > INT_MAX) return call.fail(c, Err::kCount, "the counts add up to %lld, more than an int holds", total);
  const int mine = rcounts[c->rank()];
  auto ip = std::make_unique<InPlace>();
  if (sbuf == MPI_IN_PLACE) sbuf = ip->copy(rbuf, total, dt);
  const dtype::TypeRef* t = nullptr;
  auto op = std::make_unique<BoundOp>();
  if (!ok(e = check_side(sbuf, static_cast<int>(total), dt, &t, w)) || !ok(e = check_buffer(rbuf, mine, *t, w)) ||
      !ok(e = bind_op(oph, dt, *t, op.get(), w)) ||
      !ok(e = check_not_aliased(sbuf, bytes_of(static_cast<int>(total), *t), rbuf, bytes_of(mine, *t), w)))
    return call.fail(c, e, "%s", w.text);
  auto s = open_schedule(call, *c, &code);
  if (!s) return code;
  s->keep(std::move(ip));
  const coll::ReduceOp* rop = &s->keep(std::move(op))->op;
  nbc::reduce_scatter(*s, {sbuf, rbuf, rcounts, t, rop});
  return run_schedule(call, *c, std::move(s), request);
}

}  // namespace

extern "C" {

int PMPI_Ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm ch,
                 MPI_Request* request) {
  return reduction("MPI_Ireduce", Reduction::kReduce, sbuf, rbuf, count, dt, op, root, ch, request, true);
}
FTMPI_WEAK_ALIAS(MPI_Ireduce, PMPI_Ireduce)

int PMPI_Iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ch,
                    MPI_Request* request) {
  return reduction("MPI_Iallreduce", Reduction::kAllreduce, sbuf, rbuf, count, dt, op, 0, ch, request, true);
}
FTMPI_WEAK_ALIAS(MPI_Iallreduce, PMPI_Iallreduce)

int PMPI_Iscan(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ch,
               MPI_Request* request) {
  return reduction("MPI_Iscan", Reduction::kScan, sbuf, rbuf, count, dt, op, 0, ch, request, true);
}
FTMPI_WEAK_ALIAS(MPI_Iscan, PMPI_Iscan)

int PMPI_Iexscan(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ch,
                 MPI_Request* request) {
  return reduction("MPI_Iexscan", Reduction::kExscan, sbuf, rbuf, count, dt, op, 0, ch, request, true);
}
FTMPI_WEAK_ALIAS(MPI_Iexscan, PMPI_Iexscan)

int PMPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ch) {
  return reduction("MPI_Exscan", Reduction::kExscan, sbuf, rbuf, count, dt, op, 0, ch, nullptr, false);
}
FTMPI_WEAK_ALIAS(MPI_Exscan, PMPI_Exscan)

int PMPI_Ireduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op, MPI_Comm ch,
                         MPI_Request* request) {
  return reduce_scatter("MPI_Ireduce_scatter", sbuf, rbuf, rcounts, false, 0, dt, op, ch, request, true);
}
FTMPI_WEAK_ALIAS(MPI_Ireduce_scatter, PMPI_Ireduce_scatter)

int PMPI_Ireduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm ch,
                               MPI_Request* request) {
  return reduce_scatter("MPI_Ireduce_scatter_block", sbuf, rbuf, nullptr, true, rcount, dt, op, ch, request, true);
}
FTMPI_WEAK_ALIAS(MPI_Ireduce_scatter_block, PMPI_Ireduce_scatter_block)

int PMPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm ch) {
  return reduce_scatter("MPI_Reduce_scatter_block", sbuf, rbuf, nullptr, true, rcount, dt, op, ch, nullptr, false);
}
FTMPI_WEAK_ALIAS(MPI_Reduce_scatter_block, PMPI_Reduce_scatter_block)

}  // extern "C"
