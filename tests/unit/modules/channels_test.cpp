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
  EXPECT_EQ(in.checksums(1), (std::deque<uint64_t>{11, 12, 0, 14}));
}

}  // namespace
}  // namespace ftmpi::logging
