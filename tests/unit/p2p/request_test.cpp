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
