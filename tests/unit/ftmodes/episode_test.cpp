#include <gtest/gtest.h>

#include "ftmodes/episode.hpp"

using namespace ftmpi;
using namespace ftmpi::ft;

TEST(Episodes, NothingBeforeAFailure) {
  Episodes e;
  EXPECT_EQ(e.num_failed(), 0);
  EXPECT_EQ(e.error_code(), 0);
  EXPECT_FALSE(e.pending());
}

TEST(Episodes, FailuresAccumulateUntilRecoveryAndThenStay) {
  Episodes e;
  e.on_failure({3, 0});
  e.on_failure({3, 0});  // duplicate notice
  e.on_failure({5, 0});
  EXPECT_TRUE(e.pending());
  EXPECT_EQ(e.num_failed(), 2);
  int code = e.error_code();
  EXPECT_TRUE(Episodes::is_failure_code(code));
  EXPECT_EQ(e.describe(code), "process failure: ranks 3 5 of MPI_COMM_WORLD");
  // The runtime's list includes a failure we had not heard of yet.
  e.on_recovered({{3, 0}, {5, 0}, {6, 0}});
  EXPECT_FALSE(e.pending());
  EXPECT_EQ(e.num_failed(), 3);
  EXPECT_EQ(e.describe(e.error_code()), "process failure: ranks 3 5 6 of MPI_COMM_WORLD");
  EXPECT_EQ(e.describe(code), "process failure: ranks 3 5 of MPI_COMM_WORLD");  // old code unchanged
  // A new failure starts a new episode.
  e.on_failure({1, 0});
  EXPECT_EQ(e.num_failed(), 1);
  EXPECT_EQ(e.describe(e.error_code()), "process failure: rank 1 of MPI_COMM_WORLD");
}

TEST(Episodes, RepeatedFailureOfARespawnedSlotCountsAgain) {
  Episodes e;
  e.on_failure({2, 0});
  e.on_failure({2, 1});  // its replacement died during the recovery
  EXPECT_EQ(e.num_failed(), 2);
  EXPECT_EQ(e.describe(e.error_code()), "process failure: rank 2 of MPI_COMM_WORLD");
}

TEST(Episodes, UnknownCodesHaveNoText) {
  Episodes e;
  EXPECT_EQ(e.describe(12), "");
  EXPECT_EQ(e.describe(kFailureCodeBase + 99), "");
}
