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
Unexpected* msg(int32_t slot, int tag) {
  auto* u = new Unexpected;
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
  Unexpected* m1 = msg(1, 7);
  Unexpected* m2 = msg(2, 7);
  Unexpected* m3 = msg(1, 8);
  t.add_unexpected(q, m1);
  t.add_unexpected(q, m2);
  t.add_unexpected(q, m3);
  EXPECT_EQ(t.find_unexpected(q, 1, 8, false), m3);  // probe leaves it queued
  EXPECT_EQ(t.find_unexpected(q, 1, 8, true), m3);
  EXPECT_EQ(t.find_unexpected(q, kAnySlot, 7, true), m1);  // non-overtaking: oldest first
  EXPECT_EQ(t.find_unexpected(q, 2, kAnyTag, true), m2);
  EXPECT_EQ(t.find_unexpected(q, kAnySlot, kAnyTag, true), nullptr);
  delete m1;
  delete m2;
  delete m3;
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
