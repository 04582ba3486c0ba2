#include <gtest/gtest.h>

#include <vector>

#include "comm/ops/group_algebra.hpp"

using namespace ftmpi;
using namespace ftmpi::comm;
using namespace ftmpi::comm::ops;

namespace {

// A group of the given world slots (incarnation 0).
Group slots(std::vector<int> s) {
  std::vector<ProcId> m;
  for (int x : s) m.push_back({x, 0});
  return Group(std::move(m));
}

std::vector<int> slots_of(const GroupRef& g) {
  std::vector<int> out;
  for (const ProcId& p : g->members()) out.push_back(p.slot);
  return out;
}

constexpr int kUndef = -32766;
constexpr int kNull = -1;

}  // namespace

TEST(GroupAlgebra, RankInComparesWholeProcIds) {
  Group g({{4, 0}, {7, 1}});
  EXPECT_EQ(rank_in(g, {7, 1}), 1);
  EXPECT_EQ(rank_in(g, {7, 0}), -1);  // an earlier incarnation is another process
  EXPECT_EQ(rank_in(g, {5, 0}), -1);
  EXPECT_EQ(rank_in(g, ProcId{}), -1);
}

TEST(GroupAlgebra, Compare) {
  EXPECT_EQ(compare_groups(slots({0, 1, 2}), slots({0, 1, 2})), Similarity::kIdent);
  EXPECT_EQ(compare_groups(slots({0, 1, 2}), slots({2, 0, 1})), Similarity::kSimilar);
  EXPECT_EQ(compare_groups(slots({0, 1, 2}), slots({0, 1, 3})), Similarity::kUnequal);
  EXPECT_EQ(compare_groups(slots({0, 1}), slots({0, 1, 2})), Similarity::kUnequal);
  EXPECT_EQ(compare_groups(slots({}), slots({})), Similarity::kIdent);
}

TEST(GroupAlgebra, SetOperationsKeepTheStandardsOrder) {
  Group a = slots({5, 1, 3, 7}), b = slots({2, 3, 9, 5});
  EXPECT_EQ(slots_of(group_union(a, b)), (std::vector<int>{5, 1, 3, 7, 2, 9}));
  EXPECT_EQ(slots_of(group_union(b, a)), (std::vector<int>{2, 3, 9, 5, 1, 7}));
  EXPECT_EQ(slots_of(group_intersection(a, b)), (std::vector<int>{5, 3}));
  EXPECT_EQ(slots_of(group_intersection(b, a)), (std::vector<int>{3, 5}));
  EXPECT_EQ(slots_of(group_difference(a, b)), (std::vector<int>{1, 7}));
  EXPECT_EQ(group_difference(a, a)->size(), 0);
  EXPECT_EQ(group_intersection(a, slots({0, 4}))->size(), 0);
  EXPECT_TRUE(is_subset(slots({3, 5}), a));
  EXPECT_FALSE(is_subset(slots({3, 4}), a));
  EXPECT_TRUE(disjoint(a, slots({0, 2, 4})));
  EXPECT_FALSE(disjoint(a, b));
}

TEST(GroupAlgebra, InclAndExcl) {
  Group g = slots({10, 11, 12, 13, 14});
  GroupRef r;
  const int pick[3] = {4, 0, 2};
  ASSERT_EQ(group_incl(g, 3, pick, &r), Err::kOk);
  EXPECT_EQ(slots_of(r), (std::vector<int>{14, 10, 12}));
  ASSERT_EQ(group_excl(g, 3, pick, &r), Err::kOk);
  EXPECT_EQ(slots_of(r), (std::vector<int>{11, 13}));
  ASSERT_EQ(group_incl(g, 0, nullptr, &r), Err::kOk);
  EXPECT_EQ(r->size(), 0);
  ASSERT_EQ(group_excl(g, 0, nullptr, &r), Err::kOk);
  EXPECT_EQ(r->size(), 5);
  const int dup[2] = {1, 1}, bad[1] = {5}, neg[1] = {-1};
  EXPECT_EQ(group_incl(g, 2, dup, &r), Err::kRank);
  EXPECT_EQ(group_excl(g, 2, dup, &r), Err::kRank);
  EXPECT_EQ(group_incl(g, 1, bad, &r), Err::kRank);
  EXPECT_EQ(group_excl(g, 1, neg, &r), Err::kRank);
  EXPECT_EQ(group_incl(g, -1, pick, &r), Err::kArg);
}

TEST(GroupAlgebra, RangesWithPositiveAndNegativeStrides) {
  Group g = slots({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<int> out;
  const int down[1][3] = {{9, 0, -3}};
  ASSERT_EQ(expand_ranges(g, 1, down, &out), Err::kOk);
  EXPECT_EQ(out, (std::vector<int>{9, 6, 3, 0}));
  const int up[2][3] = {{0, 9, 4}, {1, 1, 1}};
  ASSERT_EQ(expand_ranges(g, 2, up, &out), Err::kOk);
  EXPECT_EQ(out, (std::vector<int>{0, 4, 8, 1}));
  const int partial[1][3] = {{7, 2, -2}};  // last is not hit exactly
  ASSERT_EQ(expand_ranges(g, 1, partial, &out), Err::kOk);
  EXPECT_EQ(out, (std::vector<int>{7, 5, 3}));
  const int single[1][3] = {{4, 4, -1}};
  ASSERT_EQ(expand_ranges(g, 1, single, &out), Err::kOk);
  EXPECT_EQ(out, (std::vector<int>{4}));
  ASSERT_EQ(expand_ranges(g, 0, nullptr, &out), Err::kOk);
  EXPECT_TRUE(out.empty());
}

TEST(GroupAlgebra, RangeErrors) {
  Group g = slots({0, 1, 2, 3, 4});
  std::vector<int> out;
  const int zero[1][3] = {{0, 4, 0}};
  EXPECT_EQ(expand_ranges(g, 1, zero, &out), Err::kArg);
  const int wrong_way[1][3] = {{4, 0, 1}};
  EXPECT_EQ(expand_ranges(g, 1, wrong_way, &out), Err::kArg);
  const int wrong_way_neg[1][3] = {{0, 4, -1}};
  EXPECT_EQ(expand_ranges(g, 1, wrong_way_neg, &out), Err::kArg);
  const int beyond[1][3] = {{0, 5, 1}};
  EXPECT_EQ(expand_ranges(g, 1, beyond, &out), Err::kRank);
  const int below[1][3] = {{-1, 3, 1}};
  EXPECT_EQ(expand_ranges(g, 1, below, &out), Err::kRank);
  const int overlap[2][3] = {{0, 4, 2}, {4, 3, -1}};  // 4 twice
  EXPECT_EQ(expand_ranges(g, 2, overlap, &out), Err::kRank);
  EXPECT_EQ(expand_ranges(g, -1, zero, &out), Err::kArg);
}

TEST(GroupAlgebra, TranslateRanks) {
  Group a = slots({3, 1, 4, 5}), b = slots({5, 9, 3});
  const int in[5] = {0, 1, 2, 3, kNull};
  int out[5];
  ASSERT_EQ(translate_ranks(a, 5, in, b, kUndef, kNull, out), Err::kOk);
  EXPECT_EQ(std::vector<int>(out, out + 5), (std::vector<int>{2, kUndef, kUndef, 0, kNull}));
  const int bad[1] = {4};
  EXPECT_EQ(translate_ranks(a, 1, bad, b, kUndef, kNull, out), Err::kRank);
  EXPECT_EQ(translate_ranks(a, -1, bad, b, kUndef, kNull, out), Err::kArg);
}

TEST(GroupAlgebra, HashDependsOnOrderAndIncarnation) {
  EXPECT_EQ(group_hash(slots({1, 2, 3})), group_hash(slots({1, 2, 3})));
  EXPECT_NE(group_hash(slots({1, 2, 3})), group_hash(slots({3, 2, 1})));
  EXPECT_NE(group_hash(Group({{1, 0}})), group_hash(Group({{1, 1}})));
  EXPECT_NE(group_hash(slots({})), group_hash(slots({0})));
}

// BLANK mode (spec/ft-semantics.md §4.3.1): a world of 5 with slots 1 and 3
// blank. Blanks are members like any other, each with its own identity.
TEST(GroupAlgebra, BlanksAreMembers) {
  const Group world({{0, 0}, blank_member(1), {2, 0}, blank_member(3), {4, 0}});
  const int some[] = {3, 0, 1};
  GroupRef inc;
  ASSERT_EQ(group_incl(world, 3, some, &inc), Err::kOk);
  EXPECT_TRUE(is_subset(*inc, world));
  EXPECT_EQ(rank_in(*inc, blank_member(1)), 2);
  int to_world[3];
  const int all3[] = {0, 1, 2};
  ASSERT_EQ(translate_ranks(*inc, 3, all3, world, kUndef, kNull, to_world), Err::kOk);
  EXPECT_EQ(to_world[0], 3);
  EXPECT_EQ(to_world[1], 0);
  EXPECT_EQ(to_world[2], 1);
  const int blanks[] = {1, 3};
  GroupRef live, only_blanks;
  ASSERT_EQ(group_excl(world, 2, blanks, &live), Err::kOk);
  EXPECT_EQ(slots_of(live), (std::vector<int>{0, 2, 4}));
  only_blanks = group_difference(world, *live);
  ASSERT_EQ(only_blanks->size(), 2);
  EXPECT_EQ(compare_groups(*group_union(*live, *only_blanks), world), Similarity::kSimilar);
  EXPECT_EQ(group_intersection(*live, *only_blanks)->size(), 0);
  EXPECT_EQ(compare_groups(*group_intersection(world, *only_blanks), *only_blanks), Similarity::kIdent);
  // Two different blanks are different members.
  EXPECT_EQ(compare_groups(Group({blank_member(1)}), Group({blank_member(3)})), Similarity::kUnequal);
  EXPECT_FALSE(is_subset(Group({blank_member(5)}), world));
}
