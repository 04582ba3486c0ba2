// The space management of buffered sends (src/api/bsend_pool.hpp): every
// message costs its size plus MPI_BSEND_OVERHEAD, first fit, holes reused.
#include <gtest/gtest.h>

#include <vector>

#include "api/bsend_pool.hpp"

using ftmpi::api::BsendPool;

namespace {
constexpr size_t kOv = BsendPool::kOverhead;
}

TEST(BsendPool, NothingWithoutABuffer) {
  BsendPool pool;
  EXPECT_FALSE(pool.attached());
  EXPECT_EQ(pool.reserve(0), nullptr);
  pool.attach(nullptr, 0);  // attached, but no room even for an empty message
  EXPECT_TRUE(pool.attached());
  EXPECT_EQ(pool.reserve(0), nullptr);
}

TEST(BsendPool, ExactFitAndExhaustion) {
  std::vector<uint8_t> mem(100 + kOv);
  BsendPool pool;
  pool.attach(mem.data(), mem.size());
  EXPECT_EQ(pool.reserve(101), nullptr);  // one byte too many
  uint8_t* a = pool.reserve(100);
  ASSERT_EQ(a, mem.data() + kOv);
  EXPECT_EQ(pool.in_use(), mem.size());
  EXPECT_EQ(pool.reserve(0), nullptr);  // even an empty message needs the overhead
  pool.release(a);
  EXPECT_TRUE(pool.empty());
  EXPECT_EQ(pool.reserve(100), a);
}

TEST(BsendPool, HolesAreReusedFirstFit) {
  std::vector<uint8_t> mem(3 * (64 + kOv));
  BsendPool pool;
  pool.attach(mem.data(), mem.size());
  uint8_t* a = pool.reserve(64);
  uint8_t* b = pool.reserve(64);
  uint8_t* c = pool.reserve(64);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(b - a, static_cast<ptrdiff_t>(64 + kOv));
  EXPECT_EQ(pool.reserve(1), nullptr);
  pool.release(b);                       // a hole in the middle
  EXPECT_EQ(pool.reserve(65), nullptr);  // does not fit the hole
  EXPECT_EQ(pool.reserve(10), b);        // first fit: the hole
  EXPECT_EQ(pool.reserve(0), nullptr) << "the hole's 54 bytes left are less than the overhead";
  pool.release(a);
  pool.release(b);
  pool.release(c);
  EXPECT_TRUE(pool.empty());
  EXPECT_EQ(pool.in_use(), 0u);
  pool.detach();
  EXPECT_FALSE(pool.attached());
}
