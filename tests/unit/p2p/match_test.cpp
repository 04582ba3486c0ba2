#include <gtest/gtest.h>

#include "p2p/match.hpp"

using namespace ftmpi::p2p;

namespace {
Request recv(int32_t slot, int tag) {
  Request r;
  r.peer_slot = slot;
  r.tag = tag;
  r.ctx = 8;
  return r;
}
Unexpected* msg(MatchTable& t, int32_t slot, int tag) {
  Unexpected* u = t.new_unexpected();
  u->hdr.src_slot = slot;
  u->hdr.tag = tag;
  return u;
}
}  // namespace

TEST(Match, ArrivalTakesFirstAcceptingPostedReceive) {
  MatchTable t;
  auto& q = t.queues(8);
  Request a = recv(3, 5), b = recv(kAnySlot, kAnyTag), c = recv(3, kAnyTag);
  t.post(q, &a);
  t.post(q, &b);
  t.post(q, &c);
  EXPECT_EQ(t.take_posted(q, 3, 9), &b);  // a wants tag 5; b is first wildcard
  EXPECT_EQ(t.take_posted(q, 3, 9), &c);
  EXPECT_EQ(t.take_posted(q, 4, 5), nullptr);
  EXPECT_EQ(t.take_posted(q, 3, 5), &a);
  EXPECT_EQ(q.posted_head, nullptr);
}

TEST(Match, NewReceiveTakesOldestAcceptableUnexpected) {
  MatchTable t;
  auto& q = t.queues(8);
  Unexpected* m1 = msg(t, 1, 7);
  Unexpected* m2 = msg(t, 2, 7);
  Unexpected* m3 = msg(t, 1, 8);
  t.add_unexpected(q, m1);
  t.add_unexpected(q, m2);
  t.add_unexpected(q, m3);
  EXPECT_EQ(t.find_unexpected(q, 1, 8, false), m3);  // probe leaves it queued
  EXPECT_EQ(t.find_unexpected(q, 1, 8, true), m3);
  EXPECT_EQ(t.find_unexpected(q, kAnySlot, 7, true), m1);  // non-overtaking: oldest first
  EXPECT_EQ(t.find_unexpected(q, 2, kAnyTag, true), m2);
  EXPECT_EQ(t.find_unexpected(q, kAnySlot, kAnyTag, true), nullptr);
  t.free_unexpected(m1);
  t.free_unexpected(m2);
  t.free_unexpected(m3);
}

TEST(Match, FreedUnexpectedComesBackEmptyWithItsBytes) {
  MatchTable t;
  Unexpected* u = msg(t, 4, 9);
  const uint8_t small[3] = {1, 2, 3};
  u->payload.assign(small, small + 3);
  EXPECT_EQ(u->payload.size(), 3u);
  EXPECT_EQ(u->payload.data()[2], 3);
  std::vector<uint8_t> big(1000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i);
  u->payload.assign(big.data(), big.data() + big.size());
  EXPECT_EQ(u->payload.size(), 1000u);
  EXPECT_EQ(u->payload.data()[999], static_cast<uint8_t>(999));
  u->stale = true;
  t.free_unexpected(u);
  Unexpected* v = t.new_unexpected();
  EXPECT_EQ(v, u);  // the last freed is reused first
  EXPECT_EQ(v->payload.size(), 0u);
  EXPECT_EQ(v->hdr.src_slot, 0);
  EXPECT_FALSE(v->stale);
  EXPECT_GE(v->payload.heap_capacity(), 1000u);  // kept for the next large one
  v->payload.assign(small, small + 2);
  EXPECT_EQ(v->payload.data()[1], 2);
  t.free_unexpected(v);
}

TEST(Match, ContextsAreSeparate) {
  MatchTable t;
  Request a = recv(kAnySlot, kAnyTag);
  a.ctx = 8;
  t.post(t.queues(8), &a);
  EXPECT_EQ(t.take_posted(t.queues(10), 1, 1), nullptr);
  EXPECT_EQ(t.take_posted(t.queues(8), 1, 1), &a);
}

TEST(Match, UnpostFromMiddleKeepsOrder) {
  MatchTable t;
  auto& q = t.queues(8);
  Request a = recv(kAnySlot, 1), b = recv(kAnySlot, 1), c = recv(kAnySlot, 1);
  t.post(q, &a);
  t.post(q, &b);
  t.post(q, &c);
  t.unpost(&b);
  EXPECT_EQ(t.take_posted(q, 0, 1), &a);
  EXPECT_EQ(t.take_posted(q, 0, 1), &c);
}

TEST(Match, EachSourceKeepsItsOwnOrderAcrossRemovals) {
  MatchTable t;
  auto& q = t.queues(8);
  // Interleaved arrivals of two sources, then one from a slot seen late.
  Unexpected* a1 = msg(t, 0, 1);
  Unexpected* b1 = msg(t, 2, 1);
  Unexpected* a2 = msg(t, 0, 2);
  Unexpected* b2 = msg(t, 2, 2);
  Unexpected* a3 = msg(t, 0, 1);
  Unexpected* c1 = msg(t, 5, 1);
  for (Unexpected* u : {a1, b1, a2, b2, a3, c1}) t.add_unexpected(q, u);
  // Taken from the middle of both chains: the rest stays in order in each.
  EXPECT_EQ(t.find_unexpected(q, 0, 2, true), a2);
  EXPECT_EQ(t.find_unexpected(q, 2, kAnyTag, false), b1);
  t.remove_unexpected(q, b1);  // as a cancel does
  EXPECT_EQ(t.find_unexpected(q, kAnySlot, 1, false), a1);
  EXPECT_EQ(t.find_unexpected(q, 5, kAnyTag, true), c1);
  EXPECT_EQ(t.find_unexpected(q, 0, 1, true), a1);
  EXPECT_EQ(t.find_unexpected(q, kAnySlot, kAnyTag, true), b2);  // oldest of all left
  EXPECT_EQ(t.find_unexpected(q, 2, kAnyTag, true), nullptr);
  EXPECT_EQ(t.find_unexpected(q, 0, kAnyTag, true), a3);
  EXPECT_EQ(q.unexp_head, nullptr);
  EXPECT_EQ(q.unexp_tail, nullptr);
  EXPECT_EQ(t.find_unexpected(q, 7, kAnyTag, true), nullptr);  // a slot never seen
  for (Unexpected* u : {a1, b1, a2, b2, a3, c1}) t.free_unexpected(u);
}
