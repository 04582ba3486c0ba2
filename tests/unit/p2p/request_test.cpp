#include <gtest/gtest.h>

#include <set>

#include "p2p/request.hpp"

using namespace ftmpi::p2p;

TEST(RequestPool, StaleIdsAreNotFound) {
  RequestPool pool;
  Request* r = pool.alloc();
  uint64_t id = r->id;
  EXPECT_EQ(pool.find(id), r);
  pool.release(r);
  EXPECT_EQ(pool.find(id), nullptr);
  Request* again = pool.alloc();  // likely the same slot, new generation
  EXPECT_NE(again->id, id);
  EXPECT_EQ(pool.find(id), nullptr);
  EXPECT_EQ(pool.find(again->id), again);
  EXPECT_EQ(pool.at(RequestPool::index_of(again)), again);
}

TEST(RequestPool, GrowsAndCountsLive) {
  RequestPool pool;
  std::vector<Request*> rs;
  for (int i = 0; i < 1000; ++i) rs.push_back(pool.alloc());
  EXPECT_EQ(pool.live(), 1000u);
  std::set<uint64_t> ids;
  for (Request* r : rs) ids.insert(r->id);
  EXPECT_EQ(ids.size(), 1000u);
  for (Request* r : rs) pool.release(r);
  EXPECT_EQ(pool.live(), 0u);
}

TEST(RequestPool, RenewKeepsTheIndexAndRetiresTheOldId) {
  RequestPool pool;
  Request* r = pool.alloc();
  const uint64_t old_id = r->id;
  const uint32_t idx = RequestPool::index_of(r);
  pool.renew(r);
  EXPECT_NE(r->id, old_id);
  EXPECT_EQ(RequestPool::index_of(r), idx);  // same MPI handle
  EXPECT_EQ(pool.find(old_id), nullptr);     // a late reply for the old message is stale
  EXPECT_EQ(pool.find(r->id), r);
  EXPECT_EQ(pool.at(idx), r);
  EXPECT_EQ(pool.live(), 1u);
  pool.release(r);
  EXPECT_EQ(pool.live(), 0u);
}
