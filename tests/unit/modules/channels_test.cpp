#include <gtest/gtest.h>

#include "modules/logging/channels.hpp"

namespace ftmpi::logging {
namespace {

TEST(InChannels, AcceptsInOrderDropsDuplicatesFlagsGaps) {
  InChannels in;
  EXPECT_EQ(in.arrive(1, 1, 11), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.arrive(1, 2, 12), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.arrive(1, 1, 11), InChannels::Verdict::kDuplicate);
  EXPECT_EQ(in.arrive(1, 4, 14), InChannels::Verdict::kGap);
  EXPECT_EQ(in.arrive(0, 1, 5), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.received(1), 2u);
  EXPECT_EQ(in.received(7), 0u);
  EXPECT_EQ(in.checksum(1, 2), 12u);
  EXPECT_FALSE(in.duplicate_differs(1, 1, 11));
  EXPECT_TRUE(in.duplicate_differs(1, 1, 99));
  EXPECT_EQ(in.checksums(1), (std::vector<uint64_t>{11, 12}));
}

TEST(PeerHoldings, SuppressesWhatPeersHaveAndCatchesDifferences) {
  PeerHoldings h;
  uint64_t sums[] = {11, 12, 13};
  h.add(2, sums, 2);
  h.add(2, sums + 2, 1);
  h.set_complete(2);
  EXPECT_TRUE(h.complete(2));
  EXPECT_FALSE(h.complete(0));
  EXPECT_EQ(h.on_send(2, 1, 11), PeerHoldings::Verdict::kSuppress);
  EXPECT_EQ(h.on_send(2, 3, 13), PeerHoldings::Verdict::kSuppress);
  EXPECT_EQ(h.on_send(2, 2, 99), PeerHoldings::Verdict::kDiverged);
  EXPECT_EQ(h.on_send(2, 4, 14), PeerHoldings::Verdict::kTransmit);
  EXPECT_EQ(h.on_send(0, 1, 14), PeerHoldings::Verdict::kTransmit);
  EXPECT_FALSE(h.passed_all({1, 1, 3}));
  EXPECT_TRUE(h.passed_all({1, 1, 4}));
}

}  // namespace
}  // namespace ftmpi::logging
