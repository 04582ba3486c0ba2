// clear_padding: the bytes without value of x87 long doubles in a packed
// stream, checked against the explicit type map, whole and in pieces.
#include <limits>

#include "dtype/padding.hpp"
#include "dtype_test_util.hpp"

namespace ftmpi::dtype {
namespace {

using namespace testing;

// Stream offsets of the bytes without value in `count` items of t, by the type map.
std::vector<bool> reference_mask(const Type& t, int64_t count) {
  std::vector<bool> mask;
  const auto map = type_map(t);
  for (int64_t i = 0; i < count; ++i)
    for (const TypeMapEntry& e : map) {
      if (is_marker(e.type)) continue;
      const size_t at = mask.size();
      mask.resize(at + info(e.type).size, false);
      for (int k = 0; k < padding_of(e.type); ++k) mask[at + kLongDoubleValueBytes + k] = true;
    }
  return mask;
}

// Clears a stream of 0xAB bytes in pieces cut at `cuts` and compares.
void check(const Type& t, int64_t count, const std::vector<size_t>& cuts) {
  const std::vector<bool> mask = reference_mask(t, count);
  std::vector<uint8_t> stream(mask.size(), 0xAB);
  size_t from = 0;
  for (size_t c : cuts) {
    c = std::min(c, stream.size());
    if (c > from) clear_padding(t, from, stream.data() + from, c - from);
    from = std::max(from, c);
  }
  clear_padding(t, from, stream.data() + from, stream.size() - from);
  bool any = false;
  for (size_t i = 0; i < stream.size(); ++i) {
    any |= mask[i];
    ASSERT_EQ(stream[i], mask[i] ? 0 : 0xAB) << "byte " << i << " of " << stream.size();
  }
  if (!stream.empty()) {
    EXPECT_EQ(t.padded(), any);
  }
}

TEST(Padding, LongDoubleHasSixBytesWithoutValueOnX87) {
  if (std::numeric_limits<long double>::digits != 64) GTEST_SKIP() << "long double is not the x87 format";
  EXPECT_EQ(padding_of(Builtin::kLongDouble), 6);
  EXPECT_EQ(padding_of(Builtin::kLongDoubleInt), 6);
  EXPECT_EQ(padding_of(Builtin::kDouble), 0);
  EXPECT_TRUE(B(Builtin::kLongDouble).padded());
  EXPECT_TRUE(B(Builtin::kLongDoubleInt).padded());
  EXPECT_FALSE(B(Builtin::kDoubleInt).padded());
  EXPECT_FALSE(vector(3, 2, 4, B(Builtin::kDouble))->padded());
  EXPECT_TRUE(vector(3, 2, 4, B(Builtin::kLongDouble))->padded());
  EXPECT_FALSE(contiguous(0, B(Builtin::kLongDouble))->padded());  // no data at all
}

TEST(Padding, BuiltinsAndSimpleTypes) {
  check(B(Builtin::kLongDouble), 5, {});
  check(B(Builtin::kLongDouble), 5, {3, 12, 13, 40, 41});
  check(B(Builtin::kLongDoubleInt), 4, {1, 11, 25, 60});
  check(B(Builtin::kDouble), 4, {5});
  check(*structure({1, 2, 1}, {0, 16, 48}, {&B(Builtin::kInt), &B(Builtin::kLongDouble), &B(Builtin::kChar)}), 3,
        {7, 30, 31, 64});
}

TEST(Padding, RandomNestedTypesWholeAndInPieces) {
  TypeGen gen(20261128);
  std::mt19937_64 rng(7);
  int padded = 0;
  for (int n = 0; n < 400; ++n) {
    TypeRef t = gen.make(3);
    const int64_t count = static_cast<int64_t>(rng() % 4);
    const auto bytes = static_cast<size_t>(t->size() * count);
    std::vector<size_t> cuts;
    for (int c = 0, k = static_cast<int>(rng() % 6); c < k && bytes > 0; ++c) cuts.push_back(rng() % bytes);
    std::sort(cuts.begin(), cuts.end());
    check(*t, count, {});
    check(*t, count, cuts);
    padded += t->padded();
  }
  EXPECT_GT(padded, 20);  // the generator makes long doubles often enough to test something
}

}  // namespace
}  // namespace ftmpi::dtype
