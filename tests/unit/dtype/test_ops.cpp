// The op/type table of MPI-1.2 §4.9.2, every op on every allowed builtin
// against a reference computed here, derived layouts, ties and wrap-around.
#include <climits>
#include <complex>
#include <set>

#include "dtype_test_util.hpp"

namespace ftmpi::dtype {
namespace {

using namespace testing;

// The standard's table, written out independently of op_allowed().
std::set<Builtin> allowed_types(OpKind op) {
  const std::set<Builtin> c_int = {
      Builtin::kSignedChar, Builtin::kUnsignedChar, Builtin::kShort, Builtin::kUnsignedShort,
      Builtin::kInt,        Builtin::kUnsigned,     Builtin::kLong,  Builtin::kUnsignedLong,
      Builtin::kLongLongInt, Builtin::kUnsignedLongLong};
  const std::set<Builtin> floating = {Builtin::kFloat, Builtin::kDouble, Builtin::kLongDouble,
                                      Builtin::kReal, Builtin::kDoublePrecision};
  const std::set<Builtin> complex = {Builtin::kComplex, Builtin::kDoubleComplex};
  const std::set<Builtin> pairs = {Builtin::kFloatInt, Builtin::kDoubleInt, Builtin::kLongInt,
                                   Builtin::k2Int, Builtin::kShortInt, Builtin::kLongDoubleInt,
                                   Builtin::k2Integer, Builtin::k2Real, Builtin::k2DoublePrecision};
  const std::set<Builtin> multi = {Builtin::kAint, Builtin::kOffset, Builtin::kCount};
  std::set<Builtin> s;
  auto add = [&](const std::set<Builtin>& x) { s.insert(x.begin(), x.end()); };
  switch (op) {
    case OpKind::kMax:
    case OpKind::kMin:
      add(c_int), add(floating), add(multi), s.insert(Builtin::kInteger);
      break;
    case OpKind::kSum:
    case OpKind::kProd:
      add(c_int), add(floating), add(complex), add(multi), s.insert(Builtin::kInteger);
      break;
    case OpKind::kLand:
    case OpKind::kLor:
    case OpKind::kLxor:
      add(c_int), s.insert(Builtin::kLogical);
      break;
    case OpKind::kBand:
    case OpKind::kBor:
    case OpKind::kBxor:
      add(c_int), add(multi), s.insert(Builtin::kInteger), s.insert(Builtin::kByte);
      break;
    case OpKind::kMaxloc:
    case OpKind::kMinloc:
      add(pairs);
      break;
  }
  return s;
}

TEST(Ops, CheckFollowsTheStandardTable) {
  int allowed = 0;
  for (int o = 1; o <= kNumOps; ++o) {
    const OpKind op = static_cast<OpKind>(o);
    const std::set<Builtin> ok_types = allowed_types(op);
    for (int b = 1; b <= kNumBuiltins; ++b) {
      const Builtin bt = static_cast<Builtin>(b);
      SCOPED_TRACE(std::string(op_name(op)) + " " + info(bt).name);
      const bool want = ok_types.count(bt) > 0;
      EXPECT_EQ(check(op, B(bt)), want ? Err::kOk : Err::kOp);
      allowed += want;
    }
  }
  EXPECT_EQ(allowed, 2 * 19 + 2 * 21 + 3 * 11 + 3 * 15 + 2 * 9);
  EXPECT_EQ(check(static_cast<OpKind>(0), B(Builtin::kInt)), Err::kOp);
  EXPECT_EQ(check(static_cast<OpKind>(13), B(Builtin::kInt)), Err::kOp);
}

TEST(Ops, CheckOnDerivedTypes) {
  EXPECT_EQ(check(OpKind::kSum, *vector(3, 1, 2, B(Builtin::kDouble))), Err::kOk);
  EXPECT_EQ(check(OpKind::kMaxloc, *contiguous(3, B(Builtin::k2Int))), Err::kOk);
  EXPECT_EQ(check(OpKind::kSum, *contiguous(3, B(Builtin::k2Int))), Err::kOp);
  TypeRef mixed = structure({1, 1}, {0, 8}, {&B(Builtin::kDouble), &B(Builtin::kInt)});
  EXPECT_EQ(check(OpKind::kSum, *mixed), Err::kOp);
  EXPECT_EQ(check(OpKind::kMaxloc, *mixed), Err::kOp);  // only the predefined pairs
  TypeRef bounded = structure({1, 4, 1}, {-8, 0, 64},
                              {&B(Builtin::kLb), &B(Builtin::kDouble), &B(Builtin::kUb)});
  EXPECT_EQ(check(OpKind::kProd, *bounded), Err::kOk);  // markers carry no data
  EXPECT_EQ(check(OpKind::kSum, *structure({1, 1}, {0, 8}, {&B(Builtin::kLb), &B(Builtin::kUb)})),
            Err::kOp);
  EXPECT_EQ(check(OpKind::kMax, *contiguous(2, B(Builtin::kChar))), Err::kOp);
  EXPECT_EQ(check(OpKind::kSum, *contiguous(0, B(Builtin::kFloat))), Err::kOk);
  int in = 1, io = 2;
  EXPECT_EQ(apply(OpKind::kSum, &in, &io, 1, B(Builtin::kChar)), Err::kOp);
  EXPECT_EQ(io, 2);
}

// ---- every op on every allowed builtin, against a reference ----

template <class T>
T reference(OpKind op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case OpKind::kMax: return a > b ? a : b;
      case OpKind::kMin: return a < b ? a : b;
      // Modular arithmetic: the low bits of a 64-bit unsigned result.
      case OpKind::kSum: return static_cast<T>(static_cast<U>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)));
      case OpKind::kProd: return static_cast<T>(static_cast<U>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)));
      case OpKind::kLand: return (a && b) ? 1 : 0;
      case OpKind::kLor: return (a || b) ? 1 : 0;
      case OpKind::kLxor: return (!a != !b) ? 1 : 0;
      case OpKind::kBand: return static_cast<T>(static_cast<U>(a) & static_cast<U>(b));
      case OpKind::kBor: return static_cast<T>(static_cast<U>(a) | static_cast<U>(b));
      case OpKind::kBxor: return static_cast<T>(static_cast<U>(a) ^ static_cast<U>(b));
      default: break;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case OpKind::kMax: return std::max(a, b);
      case OpKind::kMin: return std::min(a, b);
      case OpKind::kSum: return a + b;
      case OpKind::kProd: return a * b;
      default: break;
    }
  }
  ADD_FAILURE() << "no reference for op " << op_name(op);
  return a;
}

template <class F>
Complex<F> reference(OpKind op, Complex<F> a, Complex<F> b) {
  const std::complex<F> x(a.re, a.im), y(b.re, b.im);
  const std::complex<F> r = op == OpKind::kSum ? x + y : x * y;
  return {r.real(), r.imag()};
}

template <class V, class I>
Pair<V, I> reference(OpKind op, Pair<V, I> a, Pair<V, I> b) {
  const bool a_wins = op == OpKind::kMaxloc ? a.value > b.value : a.value < b.value;
  if (a_wins) return a;
  if (a.value == b.value) return {b.value, std::min(a.index, b.index)};
  return b;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_integral_v<T>) {
    switch (rng() % 4) {
      case 0: return 0;
      case 1: return static_cast<T>(rng() % 3);
      default: return static_cast<T>(rng());
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<int>(rng() % 2001) - 1000) / static_cast<T>(8);
  } else if constexpr (requires(T t) { t.re; }) {
    using F = decltype(T::re);
    return {random_value<F>(rng), random_value<F>(rng)};
  } else {
    using V = decltype(T::value);
    using I = decltype(T::index);
    // Few distinct values, so ties are common.
    return {static_cast<V>(rng() % 4), static_cast<I>(rng() % 50)};
  }
}

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (requires(T t) { t.re; }) return a.re == b.re && a.im == b.im;
  else if constexpr (requires(T t) { t.index; }) return a.value == b.value && a.index == b.index;
  else return a == b;
}

template <Builtin Bt>
int run_all_ops_on() {
  using T = CTypeT<Bt>;
  int runs = 0;
  if constexpr (!is_marker(Bt)) {
    std::mt19937_64 rng(static_cast<uint64_t>(Bt) * 7919);
    constexpr size_t kN = 37;
    for (int o = 1; o <= kNumOps; ++o) {
      const OpKind op = static_cast<OpKind>(o);
      if (!ok(check(op, B(Bt)))) continue;
      SCOPED_TRACE(std::string(op_name(op)) + " on " + info(Bt).name);
      T in[kN], io[kN], want[kN];
      for (size_t i = 0; i < kN; ++i) {
        in[i] = random_value<T>(rng);
        io[i] = i % 5 == 0 ? in[i] : random_value<T>(rng);
        want[i] = reference(op, in[i], io[i]);
      }
      EXPECT_EQ(apply(op, in, io, kN, B(Bt)), Err::kOk);
      for (size_t i = 0; i < kN; ++i) EXPECT_TRUE(same(io[i], want[i])) << "element " << i;
      ++runs;
    }
  }
  return runs;
}

template <size_t... I>
int run_all_builtins(std::index_sequence<I...>) {
  return (run_all_ops_on<static_cast<Builtin>(I + 1)>() + ...);
}

TEST(Ops, EveryOpOnEveryAllowedBuiltinMatchesTheReference) {
  const int runs = run_all_builtins(std::make_index_sequence<kNumBuiltins>());
  EXPECT_EQ(runs, 2 * 19 + 2 * 21 + 3 * 11 + 3 * 15 + 2 * 9);
}

TEST(Ops, LogicalResultsAreZeroOrOne) {
  int a[4] = {5, 0, 3, 3}, b[4] = {7, 0, 4, 0};
  int land[4], lor[4], lxor[4];
  std::copy(b, b + 4, land);
  std::copy(b, b + 4, lor);
  std::copy(b, b + 4, lxor);
  ASSERT_EQ(apply(OpKind::kLand, a, land, 4, B(Builtin::kLogical)), Err::kOk);
  ASSERT_EQ(apply(OpKind::kLor, a, lor, 4, B(Builtin::kInt)), Err::kOk);
  ASSERT_EQ(apply(OpKind::kLxor, a, lxor, 4, B(Builtin::kLogical)), Err::kOk);
  EXPECT_EQ(std::vector<int>(land, land + 4), (std::vector<int>{1, 0, 1, 0}));
  EXPECT_EQ(std::vector<int>(lor, lor + 4), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(std::vector<int>(lxor, lxor + 4), (std::vector<int>{0, 0, 0, 1}));
}

TEST(Ops, IntegerArithmeticWraps) {
  int in[2] = {INT_MAX, INT_MIN}, io[2] = {1, -1};
  ASSERT_EQ(apply(OpKind::kSum, in, io, 2, B(Builtin::kInt)), Err::kOk);
  EXPECT_EQ(io[0], INT_MIN);
  EXPECT_EQ(io[1], INT_MAX);
  unsigned short us_in = 65535, us_io = 65535;
  ASSERT_EQ(apply(OpKind::kProd, &us_in, &us_io, 1, B(Builtin::kUnsignedShort)), Err::kOk);
  EXPECT_EQ(us_io, 1);
  short s_in = 300, s_io = 300;
  ASSERT_EQ(apply(OpKind::kProd, &s_in, &s_io, 1, B(Builtin::kShort)), Err::kOk);
  EXPECT_EQ(s_io, static_cast<short>(90000 - 65536));
  long long ll_in = LLONG_MAX, ll_io = 2;
  ASSERT_EQ(apply(OpKind::kProd, &ll_in, &ll_io, 1, B(Builtin::kLongLongInt)), Err::kOk);
  EXPECT_EQ(ll_io, -2);
}

TEST(Ops, MaxlocAndMinlocKeepTheSmallerIndexOnTies) {
  using DI = Pair<double, int>;
  DI in[4] = {{5.0, 7}, {5.0, 2}, {6.0, 9}, {1.0, 0}};
  DI io[4] = {{5.0, 3}, {5.0, 3}, {5.0, 1}, {4.0, 8}};
  DI lo[4];
  std::copy(io, io + 4, lo);
  ASSERT_EQ(apply(OpKind::kMaxloc, in, io, 4, B(Builtin::kDoubleInt)), Err::kOk);
  ASSERT_EQ(apply(OpKind::kMinloc, in, lo, 4, B(Builtin::kDoubleInt)), Err::kOk);
  const DI max_want[4] = {{5.0, 3}, {5.0, 2}, {6.0, 9}, {4.0, 8}};
  const DI min_want[4] = {{5.0, 3}, {5.0, 2}, {5.0, 1}, {1.0, 0}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(same(io[i], max_want[i])) << i;
    EXPECT_TRUE(same(lo[i], min_want[i])) << i;
  }
  // 2REAL carries its index as a float.
  Pair<float, float> a{2.f, 10.f}, b{2.f, 4.f};
  ASSERT_EQ(apply(OpKind::kMaxloc, &a, &b, 1, B(Builtin::k2Real)), Err::kOk);
  EXPECT_EQ(b.index, 4.f);
}

TEST(Ops, DerivedLayoutsTouchOnlyTheirElements) {
  // Every other double: the holes keep their values.
  double in[8], io[8];
  for (int i = 0; i < 8; ++i) {
    in[i] = i;
    io[i] = 100 + i;
  }
  TypeRef every_other = vector(2, 1, 2, B(Builtin::kDouble));  // extent 3 doubles
  ASSERT_EQ(apply(OpKind::kSum, in, io, 2, *every_other), Err::kOk);
  EXPECT_EQ(std::vector<double>(io, io + 8),
            (std::vector<double>{100, 101, 104, 106, 104, 110, 106, 107}));

  // SHORT_INT pairs 12 bytes apart: padding and gaps stay as they were.
  TypeRef spaced = hvector(3, 1, 12, B(Builtin::kShortInt));
  unsigned char a[36], b[36], before[36];
  for (int i = 0; i < 36; ++i) {
    a[i] = 0xA0;
    b[i] = before[i] = static_cast<unsigned char>(i);
  }
  auto put = [](unsigned char* buf, int k, short v, int idx) {
    std::memcpy(buf + 12 * k, &v, 2);
    std::memcpy(buf + 12 * k + 4, &idx, 4);
  };
  for (int k = 0; k < 3; ++k) {
    put(a, k, static_cast<short>(10 * k), 1);
    put(b, k, 10, 5);
    put(before, k, 10, 5);
  }
  ASSERT_EQ(apply(OpKind::kMaxloc, a, b, 1, *spaced), Err::kOk);
  for (int k = 0; k < 3; ++k) {
    short v;
    int idx;
    std::memcpy(&v, b + 12 * k, 2);
    std::memcpy(&idx, b + 12 * k + 4, 4);
    EXPECT_EQ(v, k == 2 ? 20 : 10);
    EXPECT_EQ(idx, k == 0 ? 5 : 1);  // k == 1 ties: smaller index 1
    for (int off : {2, 3, 8, 9, 10, 11}) EXPECT_EQ(b[12 * k + off], before[12 * k + off]);
  }

  // Markers only move the items: the doubles inside are reduced.
  TypeRef bounded = structure({1, 2, 1}, {-8, 0, 24},
                              {&B(Builtin::kLb), &B(Builtin::kDouble), &B(Builtin::kUb)});
  double x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  ASSERT_EQ(apply(OpKind::kProd, x + 1, y + 1, 2, *bounded), Err::kOk);
  EXPECT_EQ(std::vector<double>(y, y + 8), (std::vector<double>{1, 1, 2, 1, 1, 5, 6, 1}));
}

}  // namespace
}  // namespace ftmpi::dtype
