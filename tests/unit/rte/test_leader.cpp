// The leader's sequencing, without sockets: what it sends to daemons and to
// the launcher for card exchange, fences, failures in each comm mode, aborts,
// suspicions and lost daemons. Recovery rounds and respawns: test_leader_recovery.cpp.
#include <gtest/gtest.h>

#include "leader_fixture.hpp"

namespace ftmpi::rte {
namespace {

using proto::EndKind;
using proto::ExitInfo;
using proto::Frame;
using proto::MsgType;
using LeaderTest = LeaderFixture;

TEST_F(LeaderTest, CardsAreReleasedOnlyWhenEveryLiveRankSentOne) {
  start(CommMode::kAbort);
  ASSERT_TRUE(send(0, proto::CardsUp{{card(0, 0), card(1, 0)}}));
  EXPECT_TRUE(out.all.empty());
  ASSERT_TRUE(send(1, proto::CardsUp{{card(2, 1), card(3, 1)}}));
  ASSERT_EQ(out.all.size(), 1u);
  auto table = as<proto::CardTableDown>(out.all[0]);
  ASSERT_EQ(table.cards.size(), 4u);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(table.cards[static_cast<size_t>(s)], card(s, s / 2));
}

TEST_F(LeaderTest, ADaemonCannotSpeakForAnotherHostsSlots) {
  start(CommMode::kAbort);
  ASSERT_TRUE(send(0, proto::CardsUp{{card(0, 0), card(1, 0), card(2, 1), card(3, 1)}}));
  EXPECT_TRUE(out.all.empty()) << "host 0 must not complete slots 2 and 3";
  Card stale = card(2, 1);
  stale.id.incarnation = 5;
  ASSERT_TRUE(send(1, proto::CardsUp{{stale, card(3, 1)}}));
  EXPECT_TRUE(out.all.empty()) << "a card of another incarnation does not count";
}

TEST_F(LeaderTest, AbortModeFailureEndsTheJob) {
  start(CommMode::kAbort);
  fail(1, 3, {ExitInfo::kExited, 7});
  ASSERT_EQ(out.launcher.size(), 1u);
  auto r = as<proto::FailureReport>(out.launcher[0]);
  EXPECT_FALSE(r.job_continues);
  EXPECT_EQ(r.failure.who, (ProcId{3, 0}));
  EXPECT_EQ(r.failure.host, 1);
  EXPECT_EQ(r.failure.pid, 103);
  EXPECT_EQ(r.failure.exit, (ExitInfo{ExitInfo::kExited, 7}));
  ASSERT_EQ(out.all.size(), 1u);
  EXPECT_EQ(as<proto::EndJob>(out.all[0]).exit_code, 7);
  EXPECT_TRUE(leader->ending());
  // The deaths that follow are consequences, not news.
  fail(0, 0);
  EXPECT_EQ(out.launcher.size(), 1u);
  EXPECT_EQ(out.all.size(), 1u);
}

TEST_F(LeaderTest, BlankModeSequencesFailuresAndCompletesGathers) {
  start(CommMode::kBlank);
  ASSERT_TRUE(send(0, proto::CardsUp{{card(0, 0), card(1, 0)}}));
  ASSERT_TRUE(send(1, proto::CardsUp{{card(2, 1)}}));  // rank 3 died before its card
  fail(1, 3);
  fail(0, 1);
  // Events 1 and 2 in the order the leader learnt them; the card exchange
  // completed as soon as rank 3 no longer counted.
  ASSERT_EQ(out.all.size(), 3u);
  auto e1 = as<proto::EventDown>(out.all[0]);
  EXPECT_EQ(e1.failure.seq, 1u);
  EXPECT_EQ(e1.failure.who, (ProcId{3, 0}));
  auto table = as<proto::CardTableDown>(out.all[1]);
  EXPECT_EQ(table.cards[3].host, -1);
  EXPECT_EQ(table.cards[3].id, (ProcId{3, 0}));
  EXPECT_EQ(table.cards[2], card(2, 1));
  auto e2 = as<proto::EventDown>(out.all[2]);
  EXPECT_EQ(e2.failure.seq, 2u);
  EXPECT_EQ(e2.failure.who, (ProcId{1, 0}));
  ASSERT_EQ(out.launcher.size(), 3u);  // failure, MPI_Init done, failure
  EXPECT_TRUE(as<proto::FailureReport>(out.launcher[0]).job_continues);
  EXPECT_EQ(out.launcher[1].type, static_cast<uint16_t>(MsgType::kInitReport));
  EXPECT_EQ(state.events().size(), 2u);
  EXPECT_EQ(state.proc(3).state, ProcState::kDead);
  EXPECT_FALSE(leader->ending());
  // The survivors' fence completes without the dead.
  ASSERT_TRUE(send(0, proto::FenceUp{{ProcId{0, 0}}}));
  EXPECT_EQ(out.all.size(), 3u);
  ASSERT_TRUE(send(1, proto::FenceUp{{ProcId{2, 0}}}));
  ASSERT_EQ(out.all.size(), 4u);
  EXPECT_EQ(out.all[3].type, static_cast<uint16_t>(MsgType::kFenceDown));
}

TEST_F(LeaderTest, FenceWaitsForRanksThatHaveNotEndedAndIgnoresFinishedOnes) {
  start(CommMode::kAbort);
  ASSERT_TRUE(send(0, proto::FenceUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  ASSERT_TRUE(send(1, proto::FenceUp{{ProcId{2, 0}}}));
  EXPECT_TRUE(out.all.empty());
  // Rank 3 never joined and exited 0: a normal end, no longer awaited.
  ASSERT_TRUE(send(1, proto::ProcExit{ProcId{3, 0}, 103, ExitInfo{ExitInfo::kExited, 0}, EndKind::kNormal}));
  ASSERT_EQ(out.all.size(), 1u);
  EXPECT_EQ(out.all[0].type, static_cast<uint16_t>(MsgType::kFenceDown));
  EXPECT_TRUE(out.launcher.empty());
}

TEST_F(LeaderTest, AbortRequestEndsTheJobWithItsCode) {
  start(CommMode::kShrink);
  ASSERT_TRUE(send(1, proto::AbortUp{ProcId{2, 0}, 102, 42, "no"}));
  ASSERT_EQ(out.launcher.size(), 1u);
  auto a = as<proto::AbortReport>(out.launcher[0]);
  EXPECT_EQ(a.who, (ProcId{2, 0}));
  EXPECT_EQ(a.host, 1);
  EXPECT_EQ(a.code, 42);
  EXPECT_EQ(a.message, "no");
  ASSERT_EQ(out.all.size(), 1u);
  EXPECT_EQ(as<proto::EndJob>(out.all[0]).exit_code, 42);
  ASSERT_TRUE(send(0, proto::AbortUp{ProcId{0, 0}, 100, 1, "second"}));
  EXPECT_EQ(out.launcher.size(), 1u) << "only the first abort counts";
}

TEST_F(LeaderTest, SuspicionAsksTheSuspectsDaemon) {
  start(CommMode::kBlank);
  ASSERT_TRUE(send(0, proto::SuspectUp{ProcId{0, 0}, ProcId{3, 0}}));
  ASSERT_EQ(out.one.size(), 1u);
  EXPECT_EQ(out.one[0].first, 1);
  EXPECT_EQ(as<proto::CheckProc>(out.one[0].second).who, (ProcId{3, 0}));
  EXPECT_TRUE(out.all.empty());
  fail(1, 3);
  ASSERT_TRUE(send(0, proto::SuspectUp{ProcId{0, 0}, ProcId{3, 0}}));
  EXPECT_EQ(out.one.size(), 1u) << "a known death needs no check";
}

TEST_F(LeaderTest, LostDaemonFailsAllItsLiveRanks) {
  start(CommMode::kBlank);
  ASSERT_TRUE(send(1, proto::ProcExit{ProcId{2, 0}, 102, ExitInfo{ExitInfo::kExited, 0}, EndKind::kNormal}));
  leader->on_daemon_lost(1);
  ASSERT_EQ(out.all.size(), 1u) << "rank 2 had ended normally; only rank 3 is lost";
  auto e = as<proto::EventDown>(out.all[0]);
  EXPECT_EQ(e.failure.who, (ProcId{3, 0}));
  EXPECT_EQ(e.failure.exit.how, ExitInfo::kLost);
}

TEST_F(LeaderTest, MalformedOrMisdirectedFramesAreRefused) {
  start(CommMode::kAbort);
  Frame f{static_cast<uint16_t>(MsgType::kCardsUp), {1, 2, 3}};
  EXPECT_FALSE(leader->on_frame(0, f));
  EXPECT_FALSE(send(0, proto::Shutdown{}));
}

TEST(RteJobState, FailureEventsApplyOnceAndInOrder) {
  proto::JobStart job;
  job.world_size = 2;
  job.hosts = {proto::HostEntry{"a", "127.0.0.1", 0, {0, 1}, 0}};
  job.program = "p";
  JobState s;
  s.init(job);
  proto::ProcFailure f;
  f.who = ProcId{1, 0};
  f.seq = 2;
  EXPECT_FALSE(s.apply_failure(f)) << "a gap in the sequence";
  f.seq = 1;
  EXPECT_TRUE(s.apply_failure(f));
  EXPECT_FALSE(s.apply_failure(f)) << "a replay";
  EXPECT_EQ(s.events().size(), 1u);
  EXPECT_EQ(s.proc(1).state, ProcState::kDead);
  EXPECT_TRUE(s.alive(0));
}

}  // namespace
}  // namespace ftmpi::rte
