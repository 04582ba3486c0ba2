#include <gtest/gtest.h>

#include <set>

#include "comm/model/communicator.hpp"

using namespace ftmpi;
using namespace ftmpi::comm;

TEST(Group, RankAndSlotLookupBothWays) {
  Group g({{5, 0}, {2, 1}, {9, 0}});
  EXPECT_EQ(g.size(), 3);
  EXPECT_EQ(g.at(1).slot, 2);
  EXPECT_EQ(g.rank_of_slot(9), 2);
  EXPECT_EQ(g.rank_of_slot(5), 0);
  EXPECT_EQ(g.rank_of_slot(3), -1);
  EXPECT_EQ(g.rank_of_slot(100), -1);
  EXPECT_EQ(g.rank_of_slot(-1), -1);
}

TEST(Group, BlankMembersKeepTheirRank) {
  Group g({{0, 0}, ProcId{}, {2, 0}});
  EXPECT_TRUE(g.is_blank(1));
  EXPECT_FALSE(g.is_blank(2));
  EXPECT_EQ(g.rank_of_slot(2), 2);
}

TEST(Group, BlanksHaveAnIdentity) {
  // BLANK mode: the blank of slot 1 and of slot 3, and an anonymous blank.
  Group g({{0, 0}, blank_member(1), {2, 0}, blank_member(3), ProcId{}});
  EXPECT_TRUE(g.is_blank(1));
  EXPECT_TRUE(g.is_blank(3));
  EXPECT_EQ(blank_slot(g.at(3)), 3);
  EXPECT_EQ(blank_slot(g.at(2)), -1);
  EXPECT_EQ(blank_slot(ProcId{}), -1);
  EXPECT_EQ(g.rank_of(blank_member(1)), 1);
  EXPECT_EQ(g.rank_of(blank_member(3)), 3);
  EXPECT_EQ(g.rank_of(blank_member(2)), -1);  // slot 2 is alive here
  EXPECT_EQ(g.rank_of(ProcId{}), -1);
  EXPECT_EQ(g.rank_of(ProcId{2, 0}), 2);
  EXPECT_EQ(g.rank_of(ProcId{2, 1}), -1);     // another incarnation
  EXPECT_EQ(g.rank_of_slot(1), -1);           // slots name live processes only
}

TEST(ContextIds, SameCreationSequenceGivesSameIds) {
  // Two "generations" of the same program create communicators in the same
  // order: the ids must match (FT-MPI CONT mode needs this).
  auto ids = [] {
    Communicator world(kWorldContext, Group::make({{0, 0}, {1, 0}}), 0);
    std::vector<uint64_t> out;
    for (int i = 0; i < 5; ++i) out.push_back(world.next_child_context());
    Communicator child(out[2], world.group_ref(), 0);
    out.push_back(child.next_child_context());
    out.push_back(child.next_child_context(1));
    return out;
  };
  EXPECT_EQ(ids(), ids());
}

TEST(ContextIds, DistinctEvenAndClearOfPredefined) {
  std::set<uint64_t> seen{kWorldContext, kSelfContext};
  Communicator world(kWorldContext, Group::make({{0, 0}}), 0);
  std::vector<uint64_t> frontier{kWorldContext};
  for (int i = 0; i < 20000; ++i) {
    uint64_t id = world.next_child_context(static_cast<uint64_t>(i % 3));
    EXPECT_EQ(id & 1u, 0u);
    EXPECT_GE(id, 16u);
    EXPECT_TRUE(seen.insert(id).second) << "duplicate at " << i;
    EXPECT_TRUE(seen.insert(coll_context(id)).second);
  }
}
