// Typed-buffer helpers: spans, typed copies between layouts, packing, and
// the block arithmetic of args.hpp.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "coll/args.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {
namespace {

using dtype::Builtin;

dtype::TypeRef vector_of_ints(int count, int blocklen, int stride) {
  dtype::TypeRef t;
  EXPECT_EQ(dtype::make_vector(count, blocklen, stride, dtype::builtin_type(Builtin::kInt), &t), Err::kOk);
  t->commit();
  return t;
}

TEST(Layout, SpanOfContiguousAndStrided) {
  const dtype::Type& i = dtype::builtin_type(Builtin::kInt);
  EXPECT_EQ(span_of(i, 0).bytes, 0u);
  EXPECT_EQ(span_of(i, 10).bytes, 40u);
  EXPECT_EQ(span_of(i, 10).lo, 0);
  dtype::TypeRef v = vector_of_ints(3, 1, 2);  // ints 0, 2, 4: extent 5 ints
  EXPECT_EQ(span_of(*v, 1).bytes, 20u);
  EXPECT_EQ(span_of(*v, 4).bytes, (3 * 5 + 5) * 4u);
}

TEST(Layout, CopyTypedBetweenLayoutsTouchesOnlyData) {
  dtype::TypeRef v = vector_of_ints(3, 1, 2);
  const dtype::Type& i = dtype::builtin_type(Builtin::kInt);
  std::vector<int> src(12);
  std::iota(src.begin(), src.end(), 100);
  std::vector<int> dst(10, -1);
  copy_typed(src.data(), 6, i, dst.data(), 2, *v);  // 6 ints into 2 vector items
  EXPECT_EQ(dst, (std::vector<int>{100, -1, 101, -1, 102, 103, -1, 104, -1, 105}));
  std::vector<int> back(6, 0);
  copy_typed(dst.data(), 2, *v, back.data(), 6, i);
  EXPECT_EQ(back, (std::vector<int>{100, 101, 102, 103, 104, 105}));
  // Vector to vector (both non-contiguous) goes through the bounce buffer.
  std::vector<int> dst2(10, -2);
  copy_items(dst.data(), dst2.data(), 2, *v);
  EXPECT_EQ(dst2, (std::vector<int>{100, -2, 101, -2, 102, 103, -2, 104, -2, 105}));
  // Shorter side wins.
  std::vector<int> small(2, 0);
  copy_typed(src.data(), 6, i, small.data(), 2, i);
  EXPECT_EQ(small, (std::vector<int>{100, 101}));
}

TEST(Layout, PackUnpackRoundTrip) {
  dtype::TypeRef v = vector_of_ints(2, 2, 3);  // ints 0,1,3,4: extent 5 ints
  std::vector<int> src(15);
  std::iota(src.begin(), src.end(), 0);
  std::vector<int> packed(12);
  pack(src.data(), 3, *v, packed.data());
  EXPECT_EQ(packed, (std::vector<int>{0, 1, 3, 4, 5, 6, 8, 9, 10, 11, 13, 14}));
  std::vector<int> out(15, -1);
  unpack(packed.data(), out.data(), 3, *v);
  EXPECT_EQ(out, (std::vector<int>{0, 1, -1, 3, 4, 5, 6, -1, 8, 9, 10, 11, -1, 13, 14}));
}

TEST(Args, EvenBlocks) {
  EvenBlocks b(10, 4);  // 3 3 2 2
  EXPECT_EQ(b.cnt(0), 3u);
  EXPECT_EQ(b.cnt(1), 3u);
  EXPECT_EQ(b.cnt(2), 2u);
  EXPECT_EQ(b.cnt(3), 2u);
  EXPECT_EQ(b.off(0), 0u);
  EXPECT_EQ(b.off(2), 6u);
  EXPECT_EQ(b.off(4), 10u);
  EXPECT_EQ(b.cnt(1, 3), 5u);
  EvenBlocks tiny(2, 8);  // more blocks than items: empty blocks at the end
  EXPECT_EQ(tiny.cnt(1), 1u);
  EXPECT_EQ(tiny.cnt(5), 0u);
  EXPECT_EQ(tiny.off(8), 2u);
}

TEST(Args, IntegerHelpers) {
  EXPECT_EQ(pow2_floor(1), 1);
  EXPECT_EQ(pow2_floor(7), 4);
  EXPECT_EQ(pow2_floor(8), 8);
  EXPECT_EQ(pow2_floor(9), 8);
  EXPECT_EQ(lowest_bit(12), 4);
  EXPECT_EQ(lowest_bit(7), 1);
  EXPECT_EQ(mod(-1, 5), 4);
  EXPECT_EQ(mod(-6, 5), 4);
  EXPECT_EQ(mod(7, 5), 2);
}

}  // namespace
}  // namespace ftmpi::coll
