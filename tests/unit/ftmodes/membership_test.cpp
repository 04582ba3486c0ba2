#include <gtest/gtest.h>

#include "comm/model/group.hpp"
#include "ftmodes/membership.hpp"

using namespace ftmpi;
using namespace ftmpi::ft;

namespace {
// Slots 0..4 with 1 and 3 dead (as the spec's figure 4.1, extended).
LiveTable table() { return {ProcId{0, 0}, ProcId{}, ProcId{2, 0}, ProcId{}, ProcId{4, 2}}; }
}  // namespace

TEST(Membership, ShrinkKeepsSurvivorOrder) {
  auto w = world_after(rte::CommMode::kShrink, table());
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], (ProcId{0, 0}));
  EXPECT_EQ(w[1], (ProcId{2, 0}));
  EXPECT_EQ(w[2], (ProcId{4, 2}));
  EXPECT_EQ(rank_after(rte::CommMode::kShrink, table(), 4), 2);
  EXPECT_EQ(rank_after(rte::CommMode::kShrink, table(), 2), 1);
  EXPECT_EQ(rank_after(rte::CommMode::kShrink, table(), 3), -1);
}

TEST(Membership, BlankKeepsSizeAndRanks) {
  auto w = world_after(rte::CommMode::kBlank, table());
  ASSERT_EQ(w.size(), 5u);
  EXPECT_FALSE(w[1].valid());
  EXPECT_FALSE(w[3].valid());
  // Each blank remembers its slot (comm::blank_member), so two differ.
  EXPECT_EQ(comm::blank_slot(w[1]), 1);
  EXPECT_EQ(comm::blank_slot(w[3]), 3);
  EXPECT_NE(w[1], w[3]);
  EXPECT_EQ(w[4], (ProcId{4, 2}));
  EXPECT_EQ(rank_after(rte::CommMode::kBlank, table(), 4), 4);
}

TEST(Membership, RebuildUsesNewIncarnations) {
  LiveTable t = {ProcId{0, 0}, ProcId{1, 1}, ProcId{2, 0}};
  auto w = world_after(rte::CommMode::kRebuild, t);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1], (ProcId{1, 1}));
  EXPECT_EQ(rank_after(rte::CommMode::kRebuild, t, 1), 1);
}

TEST(Membership, LiveTableFromCards) {
  std::vector<rte::Card> cards(3);
  cards[0].id = {0, 0};
  cards[0].host = 0;
  cards[1].id = {1, 3};
  cards[1].host = -1;
  cards[2].id = {2, 1};
  cards[2].host = 1;
  LiveTable t = live_from_cards(cards);
  EXPECT_EQ(t[0], (ProcId{0, 0}));
  EXPECT_FALSE(t[1].valid());
  EXPECT_EQ(t[2], (ProcId{2, 1}));
}
