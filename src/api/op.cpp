// Reduction op handles (MPI_Op_create / MPI_Op_free) and their binding to
// the coll layer. Predefined ops are handle indices 1..12 = dtype::OpKind
// and need no table entry; user ops live in Runtime::ops from index 32.
#include <algorithm>

#include "api/call.hpp"
#include "api/coll_support.hpp"
#include "api/pmpi.hpp"

namespace ftmpi::api {
namespace {
bool predefined_op(MPI_Op h) {
  return handle_is(h, Kind::kOp) && handle_index(h) >= 1 && handle_index(h) <= dtype::kNumOps;
}
}  // namespace

void UserOpCall::invoke(const void* in, void* inout, size_t count) const {
  auto* src = static_cast<uint8_t*>(const_cast<void*>(in));
  auto* dst = static_cast<uint8_t*>(inout);
  while (count > 0) {
    int len = static_cast<int>(std::min<size_t>(count, INT_MAX));
    MPI_Datatype dt = dt_;
    fn_(src, dst, &len, &dt);
    src += static_cast<int64_t>(len) * extent_;
    dst += static_cast<int64_t>(len) * extent_;
    count -= static_cast<size_t>(len);
  }
}

Err bind_op(MPI_Op h, MPI_Datatype dt, const dtype::TypeRef& t, BoundOp* out, Why& w) {
  if (predefined_op(h)) {
    out->op.kind = static_cast<dtype::OpKind>(handle_index(h));
    out->op.user = nullptr;
    out->op.commutative = true;
    if (Err e = out->op.check(*t); !ok(e))
      return w.set(e, "%s is not defined for this datatype", dtype::op_name(out->op.kind));
    return Err::kOk;
  }
  OpObj* o = rt()->ops.get(h);
  if (!o) return w.set(Err::kOp, h == MPI_OP_NULL ? "op is MPI_OP_NULL" : "invalid op");
  out->user = UserOpCall(o->fn, dt, t->extent());
  out->op.user = &out->user;
  out->op.commutative = o->commutative;
  return Err::kOk;
}

}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Op_create(MPI_User_function* function, int commute, MPI_Op* op) {
  Call call("MPI_Op_create");
  if (!function) return call.fail(nullptr, Err::kArg, "the function is null");
  if (!op) return call.fail(nullptr, Err::kArg, "op is a null pointer");
  auto o = std::make_unique<OpObj>();
  o->fn = function;
  o->commutative = commute != 0;
  *op = rt()->ops.add(std::move(o));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Op_create, PMPI_Op_create)

int PMPI_Op_free(MPI_Op* op) {
  Call call("MPI_Op_free");
  if (!op) return call.fail(nullptr, Err::kArg, "op is a null pointer");
  if (predefined_op(*op)) return call.fail(nullptr, Err::kOp, "predefined ops cannot be freed");
  if (!rt()->ops.remove(*op)) return call.fail(nullptr, Err::kOp, *op == MPI_OP_NULL ? "op is MPI_OP_NULL" : "invalid op");
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Op_free, PMPI_Op_free)

}  // extern "C"
