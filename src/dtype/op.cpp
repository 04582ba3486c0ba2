// Reduction entry points: validate, then run the kernel over the type's
// layout in whole units (see Type::unit_program()).
#include "dtype/op.hpp"

#include <limits>

#include "dtype/cursor_walk.hpp"
#include "dtype/op_kernels.hpp"

namespace ftmpi::dtype {
namespace {

// Blocks of the unit program hold whole units; the same offsets address the
// matching units of `in`.
struct ApplyVisitor {
  kernels::Kernel kernel;
  int64_t unit_extent;
  uintptr_t in;
  uintptr_t inout;
  bool block(uintptr_t p, int64_t len) {
    kernel(reinterpret_cast<const char*>(in + (p - inout)), reinterpret_cast<char*>(p),
           len / unit_extent);
    return true;
  }
  int64_t runs(uintptr_t p, int64_t stride, int64_t len, int64_t n) {
    for (int64_t i = 0; i < n; ++i) block(p + static_cast<uintptr_t>(i * stride), len);
    return n;
  }
};

}  // namespace

const char* op_name(OpKind op) {
  constexpr const char* kNames[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",  "MPI_SUM",
                                    "MPI_PROD",    "MPI_LAND", "MPI_BAND", "MPI_LOR",
                                    "MPI_BOR",     "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC",
                                    "MPI_MINLOC"};
  const int i = static_cast<int>(op);
  return i >= 1 && i <= kNumOps ? kNames[i] : "invalid op";
}

Err check(OpKind op, const Type& t) {
  const int o = static_cast<int>(op);
  if (o < 1 || o > kNumOps || !t.has_unit()) return Err::kOp;
  return kernels::kTable[o][static_cast<int>(t.unit())] ? Err::kOk : Err::kOp;
}

Err apply(OpKind op, const void* in, void* inout, size_t count, const Type& t) {
  if (Err e = check(op, t); !ok(e)) return e;
  const kernels::Kernel k = kernels::kTable[static_cast<int>(op)][static_cast<int>(t.unit())];
  const int64_t unit_extent = info(t.unit()).extent;
  if (count == 0 || t.size() == 0) return Err::kOk;
  if (t.contiguous()) {  // integer addresses: buffers may be MPI_BOTTOM-relative
    const uintptr_t off = static_cast<uintptr_t>(t.true_lb());
    k(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(in) + off),
      reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(inout) + off),
      static_cast<int64_t>(count) * t.size() / unit_extent);
    return Err::kOk;
  }
  ApplyVisitor v{k, unit_extent, reinterpret_cast<uintptr_t>(in),
                 reinterpret_cast<uintptr_t>(inout)};
  Cursor c;
  c.reset(reinterpret_cast<uintptr_t>(inout), static_cast<int64_t>(count), t.extent(),
          t.unit_program());
  c.walk(std::numeric_limits<int64_t>::max(), v);
  return Err::kOk;
}

}  // namespace ftmpi::dtype
