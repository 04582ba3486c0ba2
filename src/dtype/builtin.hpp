// The 38 predefined datatypes. Their numbers are the MPI_Datatype handle
// indices of include/mpi.h (docs/architecture.md, "Predefined datatypes"), so
// the API layer converts with a cast and this module never sees a handle.
//
// Every builtin has a C++ type (CType<B>) and metadata derived from it, so the
// sizes below are the ABI's and cannot drift from the reduction kernels.
// The "value-index" pair types are, as in MPI-1.2 §4.9.3, structs of two
// primitives: their size counts data bytes only (MPI_DOUBLE_INT: 12), their
// extent is the C struct's (16), and they count as two basic elements.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ftmpi::dtype {

enum class Builtin : uint8_t {
  kChar = 1,
  kSignedChar = 2,
  kUnsignedChar = 3,
  kByte = 4,
  kShort = 5,
  kUnsignedShort = 6,
  kInt = 7,
  kUnsigned = 8,
  kLong = 9,
  kUnsignedLong = 10,
  kLongLongInt = 11,
  kUnsignedLongLong = 12,
  kFloat = 13,
  kDouble = 14,
  kLongDouble = 15,
  kWchar = 16,
  kPacked = 17,
  kLb = 18,
  kUb = 19,
  kFloatInt = 20,
  kDoubleInt = 21,
  kLongInt = 22,
  k2Int = 23,
  kShortInt = 24,
  kLongDoubleInt = 25,
  kInteger = 26,
  kReal = 27,
  kDoublePrecision = 28,
  kComplex = 29,
  kDoubleComplex = 30,
  kLogical = 31,
  kCharacter = 32,
  k2Integer = 33,
  k2Real = 34,
  k2DoublePrecision = 35,
  // MPI-3 multi-language types (MPI-3.1 §3.2.2): MPI_AINT, MPI_OFFSET, MPI_COUNT.
  kAint = 36,
  kOffset = 37,
  kCount = 38,
};

inline constexpr int kNumBuiltins = 38;

// Classes of MPI-1.2 §4.9.2 (which reductions apply), plus the types that
// are not numbers: characters, MPI_PACKED and the MPI_LB / MPI_UB markers.
enum class Kind : uint8_t {
  kCInteger,
  kFortranInteger,
  kFloating,
  kLogical,
  kComplex,
  kByte,
  kCharacter,
  kPair,
  kPacked,
  kMarker,
  kMultiLanguage,  // MPI_AINT, MPI_OFFSET, MPI_COUNT (MPI-3.1 §5.9.2)
};

template <class V, class I>
struct Pair {
  V value;
  I index;
};

template <class T>
struct Complex {
  T re;
  T im;
};

struct Marker {};  // MPI_LB / MPI_UB: a position, no data

template <Builtin B>
struct CType;
// clang-format off
template <> struct CType<Builtin::kChar> { using type = char; };
template <> struct CType<Builtin::kSignedChar> { using type = signed char; };
template <> struct CType<Builtin::kUnsignedChar> { using type = unsigned char; };
template <> struct CType<Builtin::kByte> { using type = unsigned char; };
template <> struct CType<Builtin::kShort> { using type = short; };
template <> struct CType<Builtin::kUnsignedShort> { using type = unsigned short; };
template <> struct CType<Builtin::kInt> { using type = int; };
template <> struct CType<Builtin::kUnsigned> { using type = unsigned; };
template <> struct CType<Builtin::kLong> { using type = long; };
template <> struct CType<Builtin::kUnsignedLong> { using type = unsigned long; };
template <> struct CType<Builtin::kLongLongInt> { using type = long long; };
template <> struct CType<Builtin::kUnsignedLongLong> { using type = unsigned long long; };
template <> struct CType<Builtin::kFloat> { using type = float; };
template <> struct CType<Builtin::kDouble> { using type = double; };
template <> struct CType<Builtin::kLongDouble> { using type = long double; };
template <> struct CType<Builtin::kWchar> { using type = wchar_t; };
template <> struct CType<Builtin::kPacked> { using type = unsigned char; };
template <> struct CType<Builtin::kLb> { using type = Marker; };
template <> struct CType<Builtin::kUb> { using type = Marker; };
template <> struct CType<Builtin::kFloatInt> { using type = Pair<float, int>; };
template <> struct CType<Builtin::kDoubleInt> { using type = Pair<double, int>; };
template <> struct CType<Builtin::kLongInt> { using type = Pair<long, int>; };
template <> struct CType<Builtin::k2Int> { using type = Pair<int, int>; };
template <> struct CType<Builtin::kShortInt> { using type = Pair<short, int>; };
template <> struct CType<Builtin::kLongDoubleInt> { using type = Pair<long double, int>; };
// Fortran types as seen from C (gfortran defaults): INTEGER and LOGICAL are 4 bytes.
template <> struct CType<Builtin::kInteger> { using type = int; };
template <> struct CType<Builtin::kReal> { using type = float; };
template <> struct CType<Builtin::kDoublePrecision> { using type = double; };
template <> struct CType<Builtin::kComplex> { using type = Complex<float>; };
template <> struct CType<Builtin::kDoubleComplex> { using type = Complex<double>; };
template <> struct CType<Builtin::kLogical> { using type = int; };
template <> struct CType<Builtin::kCharacter> { using type = char; };
template <> struct CType<Builtin::k2Integer> { using type = Pair<int, int>; };
template <> struct CType<Builtin::k2Real> { using type = Pair<float, float>; };
template <> struct CType<Builtin::k2DoublePrecision> { using type = Pair<double, double>; };
// C types of MPI_Aint, MPI_Offset and MPI_Count (include/mpi.h).
template <> struct CType<Builtin::kAint> { using type = long; };
template <> struct CType<Builtin::kOffset> { using type = long long; };
template <> struct CType<Builtin::kCount> { using type = long long; };
// clang-format on

template <Builtin B>
using CTypeT = typename CType<B>::type;

struct BuiltinInfo {
  const char* name = nullptr;  // MPI name, e.g. "MPI_DOUBLE_INT"
  Kind kind = Kind::kMarker;
  uint8_t size = 0;    // data bytes (what MPI_Type_size reports)
  uint8_t extent = 0;  // bytes one item spans (sizeof the C type)
  uint8_t align = 1;   // alignof the C type; drives struct extent padding
  // Pairs: the two primitives and where the second lives. Others: value = self.
  Builtin value{};
  Builtin index{};
  uint8_t index_offset = 0;
};

namespace detail {

constexpr Kind kind_of(Builtin b) {
  switch (b) {
    case Builtin::kChar:
    case Builtin::kWchar:
    case Builtin::kCharacter:
      return Kind::kCharacter;
    case Builtin::kSignedChar:
    case Builtin::kUnsignedChar:
    case Builtin::kShort:
    case Builtin::kUnsignedShort:
    case Builtin::kInt:
    case Builtin::kUnsigned:
    case Builtin::kLong:
    case Builtin::kUnsignedLong:
    case Builtin::kLongLongInt:
    case Builtin::kUnsignedLongLong:
      return Kind::kCInteger;
    case Builtin::kByte:
      return Kind::kByte;
    case Builtin::kFloat:
    case Builtin::kDouble:
    case Builtin::kLongDouble:
    case Builtin::kReal:
    case Builtin::kDoublePrecision:
      return Kind::kFloating;
    case Builtin::kPacked:
      return Kind::kPacked;
    case Builtin::kLb:
    case Builtin::kUb:
      return Kind::kMarker;
    case Builtin::kFloatInt:
    case Builtin::kDoubleInt:
    case Builtin::kLongInt:
    case Builtin::k2Int:
    case Builtin::kShortInt:
    case Builtin::kLongDoubleInt:
    case Builtin::k2Integer:
    case Builtin::k2Real:
    case Builtin::k2DoublePrecision:
      return Kind::kPair;
    case Builtin::kInteger:
      return Kind::kFortranInteger;
    case Builtin::kComplex:
    case Builtin::kDoubleComplex:
      return Kind::kComplex;
    case Builtin::kLogical:
      return Kind::kLogical;
    case Builtin::kAint:
    case Builtin::kOffset:
    case Builtin::kCount:
      return Kind::kMultiLanguage;
  }
  return Kind::kMarker;
}

// The primitives a pair is made of (MPI-1.2 §4.9.3 defines each as a struct).
constexpr std::pair<Builtin, Builtin> pair_members(Builtin b) {
  switch (b) {
    case Builtin::kFloatInt: return {Builtin::kFloat, Builtin::kInt};
    case Builtin::kDoubleInt: return {Builtin::kDouble, Builtin::kInt};
    case Builtin::kLongInt: return {Builtin::kLong, Builtin::kInt};
    case Builtin::k2Int: return {Builtin::kInt, Builtin::kInt};
    case Builtin::kShortInt: return {Builtin::kShort, Builtin::kInt};
    case Builtin::kLongDoubleInt: return {Builtin::kLongDouble, Builtin::kInt};
    case Builtin::k2Integer: return {Builtin::kInteger, Builtin::kInteger};
    case Builtin::k2Real: return {Builtin::kReal, Builtin::kReal};
    case Builtin::k2DoublePrecision: return {Builtin::kDoublePrecision, Builtin::kDoublePrecision};
    default: return {b, b};
  }
}

constexpr const char* name_of(Builtin b) {
  constexpr const char* kNames[] = {
      "MPI_DATATYPE_NULL", "MPI_CHAR", "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_BYTE",
      "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_INT", "MPI_UNSIGNED", "MPI_LONG",
      "MPI_UNSIGNED_LONG", "MPI_LONG_LONG_INT", "MPI_UNSIGNED_LONG_LONG", "MPI_FLOAT",
      "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_WCHAR", "MPI_PACKED", "MPI_LB", "MPI_UB",
      "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT", "MPI_SHORT_INT",
      "MPI_LONG_DOUBLE_INT", "MPI_INTEGER", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_COMPLEX",
      "MPI_DOUBLE_COMPLEX", "MPI_LOGICAL", "MPI_CHARACTER", "MPI_2INTEGER", "MPI_2REAL",
      "MPI_2DOUBLE_PRECISION", "MPI_AINT", "MPI_OFFSET", "MPI_COUNT"};
  return kNames[static_cast<int>(b)];
}

template <Builtin B>
constexpr BuiltinInfo make_info() {
  using T = CTypeT<B>;
  BuiltinInfo i;
  i.name = name_of(B);
  i.kind = kind_of(B);
  if constexpr (std::is_same_v<T, Marker>) {
    i.size = 0;
    i.extent = 0;
    i.align = 1;
    i.value = i.index = B;
  } else if constexpr (kind_of(B) == Kind::kPair) {
    i.size = sizeof(T::value) + sizeof(T::index);
    i.extent = sizeof(T);
    i.align = alignof(T);
    i.value = pair_members(B).first;
    i.index = pair_members(B).second;
    i.index_offset = offsetof(T, index);
  } else {
    i.size = i.extent = sizeof(T);
    i.align = alignof(T);
    i.value = i.index = B;
  }
  return i;
}

template <size_t... I>
constexpr std::array<BuiltinInfo, kNumBuiltins + 1> make_table(std::index_sequence<I...>) {
  return {BuiltinInfo{}, make_info<static_cast<Builtin>(I + 1)>()...};
}

inline constexpr std::array<BuiltinInfo, kNumBuiltins + 1> kBuiltinTable =
    make_table(std::make_index_sequence<kNumBuiltins>());

}  // namespace detail

// Metadata of a builtin; `b` must be one of the 38 values.
constexpr const BuiltinInfo& info(Builtin b) { return detail::kBuiltinTable[static_cast<int>(b)]; }

constexpr bool is_pair(Builtin b) { return info(b).kind == Kind::kPair; }
constexpr bool is_marker(Builtin b) { return info(b).kind == Kind::kMarker; }

}  // namespace ftmpi::dtype
