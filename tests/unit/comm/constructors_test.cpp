// The communication-free parts of communicator construction: context ids of
// dup / create, the split ordering, and intercommunicator ids.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "comm/ops/constructors.hpp"

using namespace ftmpi;
using namespace ftmpi::comm;
using namespace ftmpi::comm::ops;

namespace {

GroupRef slots(std::vector<int> s) {
  std::vector<ProcId> m;
  for (int x : s) m.push_back({x, 0});
  return Group::make(std::move(m));
}

constexpr int kUndef = -32766;

}  // namespace

TEST(Split, OrdersByKeyWithTiesInParentRankOrder) {
  // parent rank:          0        1        2        3        4        5
  std::vector<ColorKey> all{{1, 5}, {0, 2}, {1, 5}, {1, 0}, {0, 2}, {kUndef, 0}};
  EXPECT_EQ(split_members(all, 0, kUndef), (std::vector<int>{3, 0, 2}));
  EXPECT_EQ(split_members(all, 2, kUndef), (std::vector<int>{3, 0, 2}));
  EXPECT_EQ(split_members(all, 1, kUndef), (std::vector<int>{1, 4}));
  EXPECT_TRUE(split_members(all, 5, kUndef).empty());
}

TEST(Split, NegativeKeysAndAllTiesKeepParentOrder) {
  std::vector<ColorKey> ties(8, ColorKey{3, 7});
  EXPECT_EQ(split_members(ties, 4, kUndef), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  std::vector<ColorKey> rev{{0, 3}, {0, -1}, {0, 2}, {0, -5}};
  EXPECT_EQ(split_members(rev, 0, kUndef), (std::vector<int>{3, 1, 2, 0}));
}

TEST(Dup, NewIdEachTimeSameGroupsSameRank) {
  Communicator world(kWorldContext, slots({0, 1, 2, 3}), 2);
  std::set<uint64_t> ids{world.ctx()};
  for (int i = 0; i < 5000; ++i) {
    CommPtr d = dup(world);
    EXPECT_EQ(d->rank(), 2);
    EXPECT_EQ(d->group_ref(), world.group_ref());  // shared, not copied
    EXPECT_FALSE(d->is_inter());
    EXPECT_TRUE(ids.insert(d->ctx()).second) << "id reused at dup " << i;
  }
  EXPECT_EQ(world.creation_counter(), 5000u);
}

TEST(Dup, SameCreationSequenceGivesSameIdsOnEveryMember) {
  // Two members of one parent compute their children's ids independently.
  Communicator a(kWorldContext, slots({0, 1}), 0), b(kWorldContext, slots({0, 1}), 1);
  for (int i = 0; i < 10; ++i) {
    CommPtr da = dup(a), db = dup(b);
    EXPECT_EQ(da->ctx(), db->ctx());
    CommPtr ga = create_from_group(*da, slots({1})), gb = create_from_group(*db, slots({1}));
    EXPECT_EQ(ga, nullptr);  // not a member, but the counter moved on
    ASSERT_NE(gb, nullptr);
    EXPECT_EQ(gb->rank(), 0);
    EXPECT_EQ(da->creation_counter(), db->creation_counter());
    EXPECT_EQ(dup(*da)->ctx(), dup(*db)->ctx());
  }
}

TEST(Create, PrefixAndGroupMembership) {
  Communicator world(kWorldContext, slots({0, 1, 2, 3, 4, 5}), 4);
  CommPtr p = create_from_prefix(world, 4);
  EXPECT_EQ(p, nullptr);
  CommPtr q = create_from_prefix(world, 5);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->size(), 5);
  EXPECT_EQ(q->rank(), 4);
  CommPtr all = create_from_prefix(world, 6);
  EXPECT_EQ(all->group_ref(), world.group_ref());
  CommPtr r = create_from_group(world, slots({5, 4, 0}));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->rank(), 1);
  EXPECT_EQ(r->group().at(0).slot, 5);
  EXPECT_EQ(world.creation_counter(), 4u);
}

TEST(InterContext, BothSidesComputeTheSameId) {
  GroupRef ga = slots({0, 2, 4}), gb = slots({1, 3});
  const uint64_t a = 0x1234, b = 0x9876;
  EXPECT_EQ(inter_context(a, *ga, b, *gb), inter_context(b, *gb, a, *ga));
  EXPECT_EQ(inter_context(a, *ga, b, *gb) & 1u, 0u);
  EXPECT_GE(inter_context(a, *ga, b, *gb), 16u);
}

TEST(InterContext, SwappedDrawsWithAnotherGroupDoNotCollide) {
  // Colors 0, 1, 2 of one split share the parent's child id X, so their
  // counters draw the same sequence d0, d1, ... An intercommunicator C0-C1
  // made when C0 drew d0 and C1 drew d1, and a later one C0-C2 made when C0
  // drew d1 and C2 drew d0, pair the same two ids. A process of C0 holds both:
  // the groups in the id keep them apart.
  Communicator parent(kWorldContext, slots({0, 1, 2, 3, 4, 5}), 0);
  const uint64_t x = parent.next_child_context();
  Communicator c0(x, slots({0, 1}), 0), c1(x, slots({2, 3}), 0), c2(x, slots({4, 5}), 0);
  const uint64_t c0_d0 = c0.next_child_context(), c0_d1 = c0.next_child_context();
  (void)c1.next_child_context();  // C1 made something else first
  const uint64_t c1_d1 = c1.next_child_context();
  const uint64_t c2_d0 = c2.next_child_context();
  ASSERT_EQ(c0_d0, c2_d0);
  ASSERT_EQ(c0_d1, c1_d1);
  const uint64_t first = inter_context(c0_d0, c0.group(), c1_d1, c1.group());
  const uint64_t second = inter_context(c0_d1, c0.group(), c2_d0, c2.group());
  EXPECT_NE(first, second);
}
