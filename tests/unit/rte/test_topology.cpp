// The daemons' control tree as pure functions of a view (rte/daemon/topology.hpp).
#include <gtest/gtest.h>

#include "rte/daemon/topology.hpp"

namespace ftmpi::rte {

TEST(RteTopology, LowestLiveHostIsTheSuccessionOrder) {
  EXPECT_EQ(lowest_live_host({false, false}), 0);
  EXPECT_EQ(lowest_live_host({true, false, false}), 1);
  EXPECT_EQ(lowest_live_host({true, true, false}), 2);
  EXPECT_EQ(lowest_live_host({true, true}), -1);
  EXPECT_EQ(lowest_live_host({}), -1);
}

TEST(RteTopology, CompleteKaryTreeRootedAtTheLeader) {
  std::vector<bool> lost(7, false);
  Tree t(lost, 0, 2);
  EXPECT_EQ(t.root(), 0);
  EXPECT_EQ(t.parent(0), -1);
  EXPECT_EQ(t.children(0), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(t.children(1), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(t.children(2), (std::vector<int32_t>{5, 6}));
  EXPECT_TRUE(t.children(3).empty());
  EXPECT_EQ(t.parent(6), 2);
  EXPECT_EQ(t.depth(6), 2);
  EXPECT_EQ(t.height(), 2);
  EXPECT_TRUE(t.in_subtree(1, 4));
  EXPECT_FALSE(t.in_subtree(1, 5));
  EXPECT_TRUE(t.in_subtree(0, 6));
}

TEST(RteTopology, LostHostsAreSkippedAndTheOrderWrapsAfterTheLeader) {
  // Host 0 lost, host 2 leads: order 2, 3, 4, 1 (wrapping), host 5 lost.
  std::vector<bool> lost = {true, false, false, false, false, true};
  Tree t(lost, 2, 1);  // a chain
  EXPECT_EQ(t.order(), (std::vector<int32_t>{2, 3, 4, 1}));
  EXPECT_EQ(t.parent(3), 2);
  EXPECT_EQ(t.parent(4), 3);
  EXPECT_EQ(t.parent(1), 4);
  EXPECT_EQ(t.parent(0), -1);
  EXPECT_FALSE(t.contains(5));
  EXPECT_TRUE(t.children(5).empty());
  EXPECT_EQ(t.depth(1), 3);
}

TEST(RteTopology, EveryLiveHostHasOneParentAndBoundedLinks) {
  // A thousand hosts, a few lost: each live non-root host has exactly one
  // parent, every host at most `fanout` children, and the tree is shallow.
  const size_t n = 1000;
  std::vector<bool> lost(n, false);
  for (size_t h = 0; h < n; h += 37) lost[h] = true;
  const uint32_t k = 8;
  Tree t(lost, 1, k);
  size_t children_total = 0;
  for (int32_t h = 0; h < static_cast<int32_t>(n); ++h) {
    auto c = t.children(h);
    EXPECT_LE(c.size(), k);
    children_total += c.size();
    for (int32_t x : c) EXPECT_EQ(t.parent(x), h);
    if (lost[static_cast<size_t>(h)]) {
      EXPECT_EQ(t.parent(h), -1);
    }
  }
  EXPECT_EQ(children_total, t.order().size() - 1);
  EXPECT_LE(t.height(), 4);  // ceil(log_8 973)
}

TEST(RteTopology, NoTreeWithoutALiveRoot) {
  Tree t({false, true}, 1, 4);
  EXPECT_EQ(t.root(), -1);
  EXPECT_FALSE(t.contains(0));
  EXPECT_EQ(t.height(), -1);
}

}  // namespace ftmpi::rte
