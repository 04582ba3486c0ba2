// The predefined reduction operations (MPI-1.2 §4.9.2).
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/err.hpp"
#include "dtype/builtin.hpp"
#include "dtype/type.hpp"

namespace ftmpi::dtype {

// Values equal the MPI_Op handle indices (docs/architecture.md).
enum class OpKind : uint8_t {
  kMax = 1,
  kMin = 2,
  kSum = 3,
  kProd = 4,
  kLand = 5,
  kBand = 6,
  kLor = 7,
  kBor = 8,
  kLxor = 9,
  kBxor = 10,
  kMaxloc = 11,
  kMinloc = 12,
};

inline constexpr int kNumOps = 12;

// The standard's table of which op applies to which class of builtin.
// MPI_CHAR, MPI_WCHAR, MPI_CHARACTER and MPI_PACKED are not numbers and take
// no op; MPI_SIGNED_CHAR / MPI_UNSIGNED_CHAR count as C integers (MPI-2.2);
// the multi-language types take no logical op (MPI-3.1 §5.9.2).
constexpr bool op_allowed(OpKind op, Kind k) {
  switch (op) {
    case OpKind::kMax:
    case OpKind::kMin:
      return k == Kind::kCInteger || k == Kind::kFortranInteger || k == Kind::kFloating ||
             k == Kind::kMultiLanguage;
    case OpKind::kSum:
    case OpKind::kProd:
      return k == Kind::kCInteger || k == Kind::kFortranInteger || k == Kind::kFloating ||
             k == Kind::kComplex || k == Kind::kMultiLanguage;
    case OpKind::kLand:
    case OpKind::kLor:
    case OpKind::kLxor:
      return k == Kind::kCInteger || k == Kind::kLogical;
    case OpKind::kBand:
    case OpKind::kBor:
    case OpKind::kBxor:
      return k == Kind::kCInteger || k == Kind::kFortranInteger || k == Kind::kByte ||
             k == Kind::kMultiLanguage;
    case OpKind::kMaxloc:
    case OpKind::kMinloc:
      return k == Kind::kPair;
  }
  return false;
}

const char* op_name(OpKind op);

// kOk if `op` applies to every element of `t`: t is a builtin, or a derived
// type whose data is made of one builtin only, and the table allows that
// builtin. kOp otherwise (mixed types, marker-only types, disallowed pairs).
[[nodiscard]] Err check(OpKind op, const Type& t);

// inout[i] = in[i] op inout[i] for every basic element (every pair for
// MAXLOC / MINLOC) of `count` items of `t`, both buffers laid out as
// (count, t), in type-map order, so results are deterministic. Integer
// arithmetic wraps; logical ops yield 0 or 1; MAXLOC / MINLOC keep the
// smaller index on ties; complex products use the textbook formula.
// Returns check(op, t) and touches nothing if that fails.
[[nodiscard]] Err apply(OpKind op, const void* in, void* inout, size_t count, const Type& t);

}  // namespace ftmpi::dtype
