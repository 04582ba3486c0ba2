// The leader in transparent mode: restarts without rounds or epoch changes,
// PROC_RESTARTED_DOWN with the current table, the respawn limit counted
// against replays that caught up, and a successor that knows who joined.
#include "leader_fixture.hpp"

namespace ftmpi::rte {
namespace {

using namespace proto;

struct LeaderTransparent : LeaderFixture {
  void start_transparent(uint32_t max_respawn = 10) {
    start(CommMode::kAbort, RecoveryMode::kManual, max_respawn, Transparent::kPessimist);
  }
};

TEST_F(LeaderTransparent, AFailedSlotRestartsAndJoinsWithoutARound) {
  start_transparent();
  exchange();
  fail(1, 3);
  auto failures = launcher_of<FailureReport>();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_TRUE(failures[0].job_continues) << "transparent mode goes on in comm mode abort";
  EXPECT_EQ(failures[0].next, FailureReport::kRestart);
  EXPECT_TRUE(all_of<EndJob>().empty());
  auto resp = all_of<Respawn>();
  ASSERT_EQ(resp.size(), 1u);
  EXPECT_EQ(resp[0].who, (ProcId{3, 1}));
  EXPECT_EQ(resp[0].host, 1);
  ASSERT_TRUE(send(1, CardsUp{{card(3, 1, 1)}}));
  auto joined = all_of<ProcRestartedDown>();
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].card, card(3, 1, 1));
  ASSERT_EQ(joined[0].table.size(), 4u);
  for (int32_t s = 0; s < 3; ++s) EXPECT_EQ(joined[0].table[static_cast<size_t>(s)], card(s, s < 2 ? 0 : 1));
  EXPECT_EQ(joined[0].table[3], card(3, 1, 1));
  EXPECT_EQ(state.epoch(), 0u) << "no epoch change";
  EXPECT_TRUE(all_of<RecoverDoneDown>().empty());
  EXPECT_TRUE(launcher_of<RecoveryReport>().empty());
  // A second card of the same incarnation changes nothing.
  ASSERT_TRUE(send(1, CardsUp{{card(3, 1, 1)}}));
  EXPECT_EQ(all_of<ProcRestartedDown>().size(), 1u);
}

TEST_F(LeaderTransparent, SlotsStillRestartingAppearUnreachableInTheTable) {
  start_transparent();
  exchange();
  fail(0, 1);
  fail(1, 2);
  ASSERT_TRUE(send(1, CardsUp{{card(2, 1, 1)}}));
  auto joined = all_of<ProcRestartedDown>();
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].table[1].host, -1);
  EXPECT_EQ(joined[0].table[1].id, (ProcId{1, 1})) << "its new id: PROC_RESTARTED for it follows";
  EXPECT_EQ(joined[0].last_event_seq, 2u) << "the table shows both failures";
  ASSERT_TRUE(send(0, CardsUp{{card(1, 0, 1)}}));
  joined = all_of<ProcRestartedDown>();
  ASSERT_EQ(joined.size(), 2u);
  EXPECT_EQ(joined[1].table[2], card(2, 1, 1));
}

// The table a new incarnation gets names the failures it shows: a failure
// the leader applies after building it (the leader's own daemon sees it in
// the shared state before it passes the table on) must still reach the new
// incarnation, which holds the dead process alive in its table.
TEST_F(LeaderTransparent, TheTableSaysWhichFailuresItShows) {
  start_transparent();
  exchange();
  fail(1, 2);
  ASSERT_TRUE(send(1, CardsUp{{card(2, 1, 1)}}));
  fail(0, 1);
  auto joined = all_of<ProcRestartedDown>();
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].last_event_seq, 1u);
  EXPECT_EQ(joined[0].table[1], card(1, 0)) << "slot 1 was alive when slot 2 joined";
  EXPECT_EQ(state.last_seq(), 2u);
}

TEST_F(LeaderTransparent, FailureBeforeTheExchangeRestartsAfterIt) {
  start_transparent();
  ASSERT_TRUE(send(0, CardsUp{{card(0, 0), card(1, 0)}}));
  fail(1, 2);
  EXPECT_TRUE(all_of<Respawn>().empty());
  ASSERT_TRUE(send(1, CardsUp{{card(3, 1)}}));
  ASSERT_EQ(all_of<CardTableDown>().size(), 1u);
  EXPECT_EQ(all_of<CardTableDown>()[0].cards[2].host, -1);
  ASSERT_EQ(all_of<Respawn>().size(), 1u);
  ASSERT_TRUE(send(1, CardsUp{{card(2, 1, 1)}}));
  EXPECT_EQ(all_of<ProcRestartedDown>().size(), 1u);
}

TEST_F(LeaderTransparent, RespawnLimitCountsFailuresWithoutCatchingUp) {
  start_transparent(/*max_respawn=*/2);
  exchange();
  fail(1, 3);
  ASSERT_TRUE(send(1, CardsUp{{card(3, 1, 1)}}));
  // Caught up: the count starts again, and the launcher hears of it.
  ASSERT_TRUE(send(1, ReplayUp{ProcId{3, 1}, 2, 7, 3, 1, 123}));
  auto notes = launcher_of<ReplayNote>();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].determinants, 7u);
  fail(1, 3, {ExitInfo::kSignaled, 9}, 1);
  fail(1, 3, {ExitInfo::kSignaled, 9}, 2);
  EXPECT_TRUE(launcher_of<JobFailedReport>().empty());
  fail(1, 3, {ExitInfo::kSignaled, 9}, 3);
  auto failed = launcher_of<JobFailedReport>();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].message.find("without its replay catching up"), std::string::npos) << failed[0].message;
  // A report from a host that does not run the slot is ignored.
  ASSERT_TRUE(send(0, ReplayUp{ProcId{2, 0}, 1, 0, 0, 0, 1}));
  EXPECT_EQ(launcher_of<ReplayNote>().size(), 1u);
}

TEST_F(LeaderTransparent, EveryProcessDyingRestartsThemAll) {
  // No survivor is needed (np 1 included): each restarted process re-creates
  // its messages and fetches its determinants from the event logger.
  start_transparent();
  exchange();
  for (int32_t s = 0; s < 4; ++s) fail(s < 2 ? 0 : 1, s);
  EXPECT_TRUE(launcher_of<JobFailedReport>().empty());
  EXPECT_TRUE(all_of<EndJob>().empty());
  auto resp = all_of<Respawn>();
  ASSERT_EQ(resp.size(), 4u);
  for (int32_t s = 0; s < 4; ++s) EXPECT_EQ(resp[static_cast<size_t>(s)].who, (ProcId{s, 1}));
}

TEST_F(LeaderTransparent, AProcessThatExitsByItselfEndsTheJob) {
  start_transparent();
  exchange();
  fail(0, 1, {ExitInfo::kExited, 3});
  auto failures = launcher_of<FailureReport>();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_FALSE(failures[0].job_continues) << "its replay would exit again";
  ASSERT_EQ(all_of<EndJob>().size(), 1u);
  EXPECT_EQ(all_of<EndJob>()[0].exit_code, 3);
  EXPECT_TRUE(all_of<Respawn>().empty());
}

TEST_F(LeaderTransparent, ADeathInsideTheFenceRestartsUntilTheFenceIsDone) {
  start_transparent();
  exchange();
  ASSERT_TRUE(send(1, FenceUp{{ProcId{2, 0}}}));
  fail(1, 2, {ExitInfo::kSignaled, 9}, 0, true);
  ASSERT_EQ(all_of<Respawn>().size(), 1u) << "its sender log is gone; a replaying peer may need it";
  EXPECT_TRUE(all_of<FenceDown>().empty());
  ASSERT_TRUE(send(1, CardsUp{{card(2, 1, 1)}}));
  ASSERT_TRUE(send(0, FenceUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  ASSERT_TRUE(send(1, FenceUp{{ProcId{3, 0}}}));
  EXPECT_TRUE(all_of<FenceDown>().empty()) << "waits for the restarted incarnation's fence";
  ASSERT_TRUE(send(1, FenceUp{{ProcId{2, 1}}}));
  ASSERT_EQ(all_of<FenceDown>().size(), 1u);
  // After the fence every program has finished: a death now restarts nothing,
  // and the launcher is told so (not "restarting it").
  ASSERT_TRUE(send(0, ProcExit{ProcId{0, 0}, 100, ExitInfo{ExitInfo::kSignaled, 9}, EndKind::kFailure, true, true}));
  EXPECT_EQ(all_of<Respawn>().size(), 1u);
  auto failures = launcher_of<FailureReport>();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].next, FailureReport::kRestart) << "died inside the fence before it was done";
  EXPECT_EQ(failures[1].next, FailureReport::kFinished);
}

TEST_F(LeaderTransparent, RecoveryRequestsAreRefused) {
  start_transparent();
  exchange();
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}}}));
  EXPECT_TRUE(launcher_of<RecoveryReport>().empty());
}

TEST_F(LeaderTransparent, ASuccessorKnowsWhoJoinedAndRestartsWhoDidNot) {
  start_transparent();
  exchange();
  fail(1, 3);
  ASSERT_TRUE(send(1, CardsUp{{card(3, 1, 1)}}));
  fail(1, 2);
  // Host 1's daemon took over as leader with the broadcast log of host 0's.
  std::vector<Frame> log = out.all;
  JobState successor_state = state;
  struct LogOutput : Recording {
    std::vector<Frame> log;
    std::vector<Frame> logged_broadcasts() const override { return log; }
  } out2;
  out2.log = log;
  Leader successor(successor_state, out2);
  successor.begin_takeover(1, {true, false});
  HostSync sync;
  sync.term = 1;
  sync.cards = {card(3, 1, 1), card(2, 1, 1)};  // 2.1 sent its card, the old leader never saw it
  Frame f;
  ASSERT_TRUE(split_frame(make_frame(sync), f));
  successor.on_host_sync(1, as<HostSync>(f));
  auto joined = of<ProcRestartedDown>(out2.all);
  ASSERT_EQ(joined.size(), 1u) << "only 2.1 joins now; 3.1 had joined";
  EXPECT_EQ(joined[0].card, card(2, 1, 1));
  // Host 0's slots are lost with it: restarted on host 1.
  auto resp = of<Respawn>(out2.all);
  ASSERT_EQ(resp.size(), 2u);
  for (const Respawn& r : resp) EXPECT_EQ(r.host, 1);
}

}  // namespace
}  // namespace ftmpi::rte
