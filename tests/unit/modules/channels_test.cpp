#include <gtest/gtest.h>

#include "modules/logging/channels.hpp"

namespace ftmpi::logging {
namespace {

TEST(InChannels, AcceptsInOrderDropsDuplicatesFlagsGaps) {
  InChannels in;
  EXPECT_EQ(in.arrive(1, 1, 11), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.arrive(1, 2, 12), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.arrive(1, 1, 11), InChannels::Verdict::kDuplicate);
  EXPECT_EQ(in.arrive(1, 4, 14), InChannels::Verdict::kAccept);  // 3 was withdrawn
  EXPECT_EQ(in.arrive(1, 3, 13), InChannels::Verdict::kDuplicate);
  EXPECT_FALSE(in.duplicate_differs(1, 3, 99));  // nothing to compare with
  EXPECT_EQ(in.arrive(0, 1, 5), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.received(1), 4u);
  EXPECT_EQ(in.received(7), 0u);
  EXPECT_EQ(in.checksum(1, 2), 12u);
  EXPECT_FALSE(in.duplicate_differs(1, 1, 11));
  EXPECT_TRUE(in.duplicate_differs(1, 1, 99));
  EXPECT_EQ(in.checksum(1, 3), 0u);
  EXPECT_EQ(in.checksum(1, 4), 14u);
  EXPECT_EQ(in.held(1), 4u);
}

TEST(InChannels, ForgetsWhatACheckpointedSenderNeverSendsAgain) {
  InChannels in;
  for (uint64_t s = 1; s <= 5; ++s) EXPECT_EQ(in.arrive(2, s, 20 + s), InChannels::Verdict::kAccept);
  in.forget_through(2, 3);
  EXPECT_EQ(in.held(2), 2u);
  EXPECT_EQ(in.received(2), 5u);  // numbering goes on
  EXPECT_EQ(in.checksum(2, 3), 0u);
  EXPECT_EQ(in.checksum(2, 4), 24u);
  // A copy from the sender's log below the point: a duplicate, not checked.
  EXPECT_EQ(in.arrive(2, 2, 99), InChannels::Verdict::kDuplicate);
  EXPECT_FALSE(in.duplicate_differs(2, 2, 99));
  // Above it, still checked.
  EXPECT_TRUE(in.duplicate_differs(2, 5, 99));
  EXPECT_EQ(in.arrive(2, 6, 26), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.arrive(2, 8, 28), InChannels::Verdict::kAccept);  // 7 withdrawn
  EXPECT_EQ(in.checksum(2, 8), 28u);
  // Past everything held (and an unknown slot): nothing left, numbers kept.
  in.forget_through(2, 100);
  in.forget_through(9, 3);
  EXPECT_EQ(in.held(2), 0u);
  EXPECT_EQ(in.received(2), 8u);
  EXPECT_EQ(in.arrive(2, 9, 29), InChannels::Verdict::kAccept);
  EXPECT_EQ(in.checksum(2, 9), 29u);
}

}  // namespace
}  // namespace ftmpi::logging
