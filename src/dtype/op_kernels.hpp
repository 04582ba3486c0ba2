// Internal: the elementwise kernels behind apply(), one per allowed
// (op, builtin) pair, generated from CType<> so that disallowed pairs are
// never even instantiated.
//
// Loads and stores go through memcpy: derived types may place elements at
// any byte offset, and a misaligned typed access would be undefined.
#pragma once
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "dtype/builtin.hpp"
#include "dtype/op.hpp"

namespace ftmpi::dtype::kernels {

// n units of the builtin, consecutive (extent apart) in both buffers.
using Kernel = void (*)(const char* in, char* inout, int64_t n);

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(char* p, const T& v) {
  std::memcpy(p, &v, sizeof(T));
}

// Integer + and * wrap modulo 2^bits instead of overflowing (undefined for
// signed types, and for unsigned short after promotion to int).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<Wide<T>>(static_cast<U>(a)) +
                                       static_cast<Wide<T>>(static_cast<U>(b))));
}
template <class T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<Wide<T>>(static_cast<U>(a)) *
                                       static_cast<Wide<T>>(static_cast<U>(b))));
}

template <class T>
struct IsComplex : std::false_type {};
template <class F>
struct IsComplex<Complex<F>> : std::true_type {};

// Each op: T apply(T in, T inout).
struct Max {
  template <class T>
  static T apply(T a, T b) { return a > b ? a : b; }
};
struct Min {
  template <class T>
  static T apply(T a, T b) { return a < b ? a : b; }
};
struct Sum {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (IsComplex<T>::value) return {a.re + b.re, a.im + b.im};
    else if constexpr (std::is_integral_v<T>) return wrap_add(a, b);
    else return a + b;
  }
};
struct Prod {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (IsComplex<T>::value) return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    else if constexpr (std::is_integral_v<T>) return wrap_mul(a, b);
    else return a * b;
  }
};
struct Land {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a != 0 && b != 0); }
};
struct Lor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a != 0 || b != 0); }
};
struct Lxor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }
};
struct Band {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a & b); }
};
struct Bor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a | b); }
};
struct Bxor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};

template <class Fn, class T>
void elementwise(const char* in, char* io, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const size_t o = static_cast<size_t>(i) * sizeof(T);
    store<T>(io + o, Fn::template apply<T>(load<T>(in + o), load<T>(io + o)));
  }
}

// MAXLOC / MINLOC touch only the value and index fields, never the padding
// between pairs, which need not belong to the type map.
template <bool kMax, class V, class I>
void locate(const char* in, char* io, int64_t n) {
  using P = Pair<V, I>;
  constexpr size_t kIdx = offsetof(P, index);
  for (int64_t i = 0; i < n; ++i) {
    const size_t o = static_cast<size_t>(i) * sizeof(P);
    const V a = load<V>(in + o), b = load<V>(io + o);
    const I ai = load<I>(in + o + kIdx), bi = load<I>(io + o + kIdx);
    const bool in_wins = kMax ? a > b : a < b;
    if (in_wins) {
      store<V>(io + o, a);
      store<I>(io + o + kIdx, ai);
    } else if (a == b && ai < bi) {
      store<I>(io + o + kIdx, ai);
    }
  }
}

template <class T>
struct PairParts;
template <class V, class I>
struct PairParts<Pair<V, I>> {
  using Value = V;
  using Index = I;
};

template <OpKind Op>
struct OpFn;
template <> struct OpFn<OpKind::kMax> { using type = Max; };
template <> struct OpFn<OpKind::kMin> { using type = Min; };
template <> struct OpFn<OpKind::kSum> { using type = Sum; };
template <> struct OpFn<OpKind::kProd> { using type = Prod; };
template <> struct OpFn<OpKind::kLand> { using type = Land; };
template <> struct OpFn<OpKind::kBand> { using type = Band; };
template <> struct OpFn<OpKind::kLor> { using type = Lor; };
template <> struct OpFn<OpKind::kBor> { using type = Bor; };
template <> struct OpFn<OpKind::kLxor> { using type = Lxor; };
template <> struct OpFn<OpKind::kBxor> { using type = Bxor; };

template <OpKind Op, Builtin B>
constexpr Kernel make_kernel() {
  if constexpr (!op_allowed(Op, info(B).kind)) {
    return nullptr;
  } else if constexpr (Op == OpKind::kMaxloc || Op == OpKind::kMinloc) {
    using P = PairParts<CTypeT<B>>;
    return &locate<Op == OpKind::kMaxloc, typename P::Value, typename P::Index>;
  } else {
    return &elementwise<typename OpFn<Op>::type, CTypeT<B>>;
  }
}

template <OpKind Op, size_t... I>
constexpr std::array<Kernel, kNumBuiltins + 1> kernel_row(std::index_sequence<I...>) {
  return {nullptr, make_kernel<Op, static_cast<Builtin>(I + 1)>()...};
}

template <size_t... O>
constexpr std::array<std::array<Kernel, kNumBuiltins + 1>, kNumOps + 1> kernel_table(
    std::index_sequence<O...>) {
  return {std::array<Kernel, kNumBuiltins + 1>{},
          kernel_row<static_cast<OpKind>(O + 1)>(std::make_index_sequence<kNumBuiltins>())...};
}

// kTable[op][builtin]; nullptr where the standard forbids the pair.
inline constexpr auto kTable = kernel_table(std::make_index_sequence<kNumOps>());

}  // namespace ftmpi::dtype::kernels
