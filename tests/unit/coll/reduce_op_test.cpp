// ReduceOp: predefined ops through dtype, user functions through the
// interface, and the combination order every algorithm relies on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coll/reduce_op.hpp"

namespace ftmpi::coll {
namespace {

// Non-commutative "op" on ints: inout = in * 10 + inout (base-10 digit
// concatenation), so the order of operands shows in the result.
class Concat final : public UserFunction {
 public:
  void invoke(const void* in, void* inout, size_t count) const override {
    for (size_t i = 0; i < count; ++i) static_cast<int*>(inout)[i] += static_cast<const int*>(in)[i] * 10;
    ++calls;
  }
  mutable int calls = 0;
};

TEST(ReduceOp, PredefinedSum) {
  ReduceOp op{dtype::OpKind::kSum, nullptr, true};
  const dtype::Type& t = dtype::builtin_type(dtype::Builtin::kDouble);
  double in[3] = {1, 2, 3}, io[3] = {10, 20, 30};
  op.apply(in, io, 3, t);
  EXPECT_EQ(io[0], 11);
  EXPECT_EQ(io[2], 33);
  EXPECT_EQ(op.check(t), Err::kOk);
  ReduceOp bad{dtype::OpKind::kBand, nullptr, true};
  EXPECT_EQ(bad.check(t), Err::kOp);
}

TEST(ReduceOp, CombineKeepsLowerOperandFirst) {
  Concat f;
  ReduceOp op{dtype::OpKind::kSum, &f, false};
  const dtype::Type& t = dtype::builtin_type(dtype::Builtin::kInt);
  int lo[2] = {1, 3}, hi[2] = {2, 4};
  void* r = combine(op, lo, hi, 2, t);
  EXPECT_EQ(r, hi);
  EXPECT_EQ(hi[0], 12);  // "1" then "2"
  EXPECT_EQ(hi[1], 34);
  EXPECT_EQ(f.calls, 1);
  // A fold in rank order over combine gives the digits in order.
  int acc = 1;
  for (int v : {2, 3, 4}) {
    int next = v;
    combine(op, &acc, &next, 1, t);
    acc = next;
  }
  EXPECT_EQ(acc, 1234);
}

TEST(ReduceOp, ZeroCountNeverCallsTheUserFunction) {
  Concat f;
  ReduceOp op{dtype::OpKind::kSum, &f, false};
  int a = 1, b = 2;
  op.apply(&a, &b, 0, dtype::builtin_type(dtype::Builtin::kInt));
  EXPECT_EQ(f.calls, 0);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(op.check(dtype::builtin_type(dtype::Builtin::kChar)), Err::kOk);  // user ops take any type
}

}  // namespace
}  // namespace ftmpi::coll
