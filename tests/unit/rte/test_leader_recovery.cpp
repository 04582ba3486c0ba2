// The leader's recovery rounds and REBUILD respawns, without sockets: when a
// round begins and completes, what RECOVER_DONE_DOWN says, failures during a
// round, fenced processes, respawn decisions and the ways a job gives up.
#include "leader_fixture.hpp"

namespace ftmpi::rte {
namespace {

using LeaderRounds = LeaderFixture;
using proto::RecoverDoneDown;
using proto::RecoveryReport;
using proto::RecoverUp;
using proto::Respawn;

TEST_F(LeaderRounds, BlankRoundCompletesWhenEveryLiveProcessAsked) {
  start(CommMode::kBlank);
  exchange();
  fail(1, 3);
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  EXPECT_TRUE(leader->round_active());
  auto reports = launcher_of<RecoveryReport>();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kind, RecoveryReport::kBegin);
  EXPECT_EQ(reports[0].epoch, 1u);
  EXPECT_EQ(reports[0].failed, (std::vector<ProcId>{ProcId{3, 0}}));
  EXPECT_TRUE(all_of<RecoverDoneDown>().empty()) << "rank 2 has not asked yet";
  ASSERT_TRUE(send(1, RecoverUp{{ProcId{2, 0}}}));
  auto done = all_of<RecoverDoneDown>();
  ASSERT_EQ(done.size(), 1u);
  const RecoveryResult& r = done[0].result;
  EXPECT_EQ(r.epoch, 1u);
  EXPECT_EQ(r.last_event_seq, 1u);
  EXPECT_EQ(r.failed, (std::vector<ProcId>{ProcId{3, 0}}));
  ASSERT_EQ(r.cards.size(), 4u);
  for (int s = 0; s < 3; ++s) EXPECT_EQ(r.cards[static_cast<size_t>(s)], card(s, s / 2));
  EXPECT_EQ(r.cards[3].host, -1);
  EXPECT_EQ(r.cards[3].id, (ProcId{3, 0}));
  EXPECT_EQ(state.epoch(), 1u);
  EXPECT_EQ(state.round_seq(), 1u);
  EXPECT_FALSE(leader->round_active());
  reports = launcher_of<RecoveryReport>();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1].kind, RecoveryReport::kDone);
  EXPECT_EQ(reports[1].alive, 3u);
  EXPECT_TRUE(reports[1].respawned.empty());
  EXPECT_TRUE(all_of<Respawn>().empty()) << "no respawn outside REBUILD";

  // The next episode: only failures after the previous round.
  fail(0, 1);
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}}}));
  ASSERT_TRUE(send(1, RecoverUp{{ProcId{2, 0}}}));
  done = all_of<RecoverDoneDown>();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].result.epoch, 2u);
  EXPECT_EQ(done[1].result.failed, (std::vector<ProcId>{ProcId{1, 0}}));
  EXPECT_EQ(done[1].result.last_event_seq, 2u);
}

TEST_F(LeaderRounds, FailuresDuringARoundShrinkWhatItWaitsFor) {
  start(CommMode::kShrink);
  exchange();
  fail(1, 3);
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  fail(1, 2);  // the last one the round waited for
  auto done = all_of<RecoverDoneDown>();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].result.failed, (std::vector<ProcId>{ProcId{3, 0}, ProcId{2, 0}}));
  EXPECT_EQ(done[0].result.last_event_seq, 2u);
  EXPECT_EQ(done[0].result.cards[2].host, -1);
}

TEST_F(LeaderRounds, ProcessesInTheirFenceAreNotWaitedFor) {
  start(CommMode::kBlank);
  exchange();
  fail(1, 3);
  ASSERT_TRUE(send(1, proto::FenceUp{{ProcId{2, 0}}}));
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  ASSERT_EQ(all_of<RecoverDoneDown>().size(), 1u);
  EXPECT_EQ(all_of<RecoverDoneDown>()[0].result.cards[2], card(2, 1)) << "a fenced process is still alive";
}

TEST_F(LeaderRounds, RequestsThatDoNotCountAreIgnored) {
  start(CommMode::kBlank);
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}}}));
  EXPECT_FALSE(leader->round_active()) << "before MPI_Init is done everywhere";
  exchange();
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{2, 0}}}));
  EXPECT_FALSE(leader->round_active()) << "host 0 cannot ask for slot 2";
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 4}}}));
  EXPECT_FALSE(leader->round_active()) << "not the current incarnation";
  for (auto [comm, rec] : {std::pair{CommMode::kAbort, RecoveryMode::kManual},
                           std::pair{CommMode::kBlank, RecoveryMode::kIgnore}}) {
    out = Recording{};
    start(comm, rec);
    exchange();
    ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}, ProcId{1, 0}}}));
    ASSERT_TRUE(send(1, RecoverUp{{ProcId{2, 0}, ProcId{3, 0}}}));
    EXPECT_TRUE(all_of<RecoverDoneDown>().empty()) << "no rounds in this mode";
    EXPECT_TRUE(launcher_of<RecoveryReport>().empty());
  }
}

TEST_F(LeaderRounds, RebuildRespawnsAndTheRespawnJoinsWithItsCard) {
  start(CommMode::kRebuild);
  exchange();
  fail(1, 3);
  auto resp = all_of<Respawn>();
  ASSERT_EQ(resp.size(), 1u);
  EXPECT_EQ(resp[0].who, (ProcId{3, 1}));
  EXPECT_EQ(resp[0].host, 1);
  EXPECT_TRUE(state.alive(3));
  EXPECT_EQ(state.proc(3).id, (ProcId{3, 1}));
  // The notice goes out before the respawn.
  ASSERT_GE(out.all.size(), 2u);
  EXPECT_EQ(out.all[out.all.size() - 2].type, static_cast<uint16_t>(MsgType::kEventDown));
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  ASSERT_TRUE(send(1, RecoverUp{{ProcId{2, 0}}}));
  EXPECT_TRUE(all_of<RecoverDoneDown>().empty()) << "waits for the respawned process";
  ASSERT_TRUE(send(1, proto::CardsUp{{card(3, 0)}}));
  EXPECT_TRUE(all_of<RecoverDoneDown>().empty()) << "a card of the dead incarnation does not count";
  ASSERT_TRUE(send(1, proto::CardsUp{{card(3, 1, 1)}}));
  auto done = all_of<RecoverDoneDown>();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].result.cards[3], card(3, 1, 1));
  EXPECT_EQ(done[0].result.failed, (std::vector<ProcId>{ProcId{3, 0}}));
  auto reports = launcher_of<RecoveryReport>();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1].respawned, (std::vector<ProcId>{ProcId{3, 1}}));
  EXPECT_EQ(reports[1].alive, 4u);
}

TEST_F(LeaderRounds, ARespawnCardAloneCompletesARoundWhileTheOthersAreInTheirFence) {
  start(CommMode::kRebuild);
  exchange();
  ASSERT_TRUE(send(0, proto::FenceUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  ASSERT_TRUE(send(1, proto::FenceUp{{ProcId{2, 0}}}));
  fail(1, 3);
  EXPECT_TRUE(all_of<proto::FenceDown>().empty()) << "the fence waits for the respawned rank 3";
  ASSERT_TRUE(send(1, proto::CardsUp{{card(3, 1, 1)}}));
  ASSERT_EQ(all_of<RecoverDoneDown>().size(), 1u);
  EXPECT_TRUE(all_of<proto::FenceDown>().empty());
  ASSERT_TRUE(send(1, proto::FenceUp{{ProcId{3, 1}}}));
  EXPECT_EQ(all_of<proto::FenceDown>().size(), 1u);
}

TEST_F(LeaderRounds, FailureBeforeTheExchangeIsRespawnedAfterIt) {
  start(CommMode::kRebuild);
  ASSERT_TRUE(send(0, proto::CardsUp{{card(0, 0), card(1, 0)}}));
  fail(1, 3);
  EXPECT_TRUE(all_of<Respawn>().empty());
  ASSERT_TRUE(send(1, proto::CardsUp{{card(2, 1)}}));
  auto table = all_of<proto::CardTableDown>();
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].cards[3].host, -1) << "the exchange completes without it";
  auto resp = all_of<Respawn>();
  ASSERT_EQ(resp.size(), 1u);
  EXPECT_EQ(resp[0].who, (ProcId{3, 1}));
}

TEST_F(LeaderRounds, RepeatedFailuresAreRespawnedUntilTheLimit) {
  start(CommMode::kRebuild, RecoveryMode::kAuto, /*max_respawn=*/2);
  exchange();
  fail(1, 3, {ExitInfo::kSignaled, 9}, 0);
  fail(1, 3, {ExitInfo::kSignaled, 9}, 1);
  auto resp = all_of<Respawn>();
  ASSERT_EQ(resp.size(), 2u);
  EXPECT_EQ(resp[1].who, (ProcId{3, 2}));
  EXPECT_FALSE(leader->ending());
  fail(1, 3, {ExitInfo::kSignaled, 9}, 2);
  EXPECT_EQ(all_of<Respawn>().size(), 2u);
  auto failed = launcher_of<proto::JobFailedReport>();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message,
            "rank 3 failed 3 times without completing a recovery round (FTMPI_MAX_RESPAWN=2); giving up");
  EXPECT_EQ(all_of<proto::EndJob>().size(), 1u);
  EXPECT_TRUE(leader->ending());
}

TEST_F(LeaderRounds, ACompletedRoundResetsTheRespawnCount) {
  start(CommMode::kRebuild, RecoveryMode::kManual, /*max_respawn=*/1);
  exchange();
  fail(1, 3);
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}, ProcId{1, 0}}}));
  ASSERT_TRUE(send(1, RecoverUp{{ProcId{2, 0}}}));
  ASSERT_TRUE(send(1, proto::CardsUp{{card(3, 1, 1)}}));
  ASSERT_EQ(all_of<RecoverDoneDown>().size(), 1u);
  fail(1, 3, {ExitInfo::kSignaled, 9}, 1);
  EXPECT_EQ(all_of<Respawn>().size(), 2u) << "incarnation 1 completed a round: counted afresh";
  EXPECT_FALSE(leader->ending());
}

TEST_F(LeaderRounds, ARespawnThatCannotStartEndsTheJob) {
  start(CommMode::kRebuild);
  exchange();
  fail(1, 3);
  fail(1, 3, {ExitInfo::kExited, 127}, 1, /*started=*/false);
  auto failed = launcher_of<proto::JobFailedReport>();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message, "rank 3 could not be respawned: incarnation 1 exited with status 127 before it started");
  EXPECT_EQ(failed[0].exit_code, 1);
}

TEST_F(LeaderRounds, EveryProcessDeadEndsTheJob) {
  start(CommMode::kShrink);
  exchange();
  for (int s = 0; s < 4; ++s) fail(s / 2, s);
  auto failed = launcher_of<proto::JobFailedReport>();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message, "every process of the job has died; nothing is left to recover");
  EXPECT_EQ(launcher_of<proto::FailureReport>().size(), 4u);
}

TEST_F(LeaderRounds, ASlotOfALostHostMovesToTheNextLiveHost) {
  start(CommMode::kRebuild);
  exchange();
  leader->on_daemon_lost(1);
  auto respawns = all_of<Respawn>();
  ASSERT_EQ(respawns.size(), 2u);
  EXPECT_EQ(respawns[0].who, (ProcId{2, 1}));
  EXPECT_EQ(respawns[0].host, 0);
  EXPECT_EQ(respawns[1].who, (ProcId{3, 1}));
  EXPECT_EQ(respawns[1].host, 0);
  EXPECT_TRUE(launcher_of<proto::JobFailedReport>().empty());
}

TEST_F(LeaderRounds, StopEndsSequencing) {
  start(CommMode::kBlank);
  exchange();
  ASSERT_TRUE(send(0, RecoverUp{{ProcId{0, 0}}}));
  leader->stop();
  for (int s = 1; s < 4; ++s)
    ASSERT_TRUE(send(s / 2, proto::ProcExit{ProcId{s, 0}, 100 + s, ExitInfo{ExitInfo::kSignaled, 15},
                                            EndKind::kTerminated, true}));
  EXPECT_TRUE(all_of<RecoverDoneDown>().empty()) << "no round completes while the job is ending";
  EXPECT_TRUE(all_of<proto::EventDown>().empty());
}

TEST(RteLeaderRespawnHost, OwnHostWhileItLivesThenTheNextLiveOne) {
  std::vector<bool> lost = {false, true, false, true};
  EXPECT_EQ(Leader::respawn_host(0, lost, false), 0);
  EXPECT_EQ(Leader::respawn_host(1, lost, false), -1);
  EXPECT_EQ(Leader::respawn_host(1, lost, true), 2);
  EXPECT_EQ(Leader::respawn_host(3, lost, true), 0);
  EXPECT_EQ(Leader::respawn_host(3, {true, true, true, true}, true), -1);
  EXPECT_EQ(Leader::respawn_host(7, lost, true), -1);
}

TEST(RteJobState, RespawnAndRecoveryUpdateTheTableOnce) {
  proto::JobStart job;
  job.world_size = 3;
  job.modes.comm = CommMode::kRebuild;
  job.hosts = {proto::HostEntry{"a", "127.0.0.1", 0, {0, 1, 2}, 0}};
  job.program = "p";
  JobState s;
  s.init(job);
  EXPECT_TRUE(s.recovers());
  EXPECT_TRUE(s.respawns());
  s.proc(2).state = ProcState::kDead;
  EXPECT_EQ(s.count_alive(), 2);
  EXPECT_TRUE(s.apply_respawn(ProcId{2, 1}, 0));
  EXPECT_FALSE(s.apply_respawn(ProcId{2, 1}, 0)) << "not newer";
  EXPECT_TRUE(s.alive(2));
  RecoveryResult r;
  r.epoch = 1;
  r.last_event_seq = 1;
  for (int slot = 0; slot < 3; ++slot) {
    Card c;
    c.id = ProcId{slot, slot == 2 ? 1u : 0u};
    c.host = 0;
    c.pid = 50 + slot;
    r.cards.push_back(c);
  }
  s.apply_recovery(r);
  EXPECT_EQ(s.epoch(), 1u);
  EXPECT_EQ(s.round_seq(), 1u);
  EXPECT_EQ(s.proc(2).pid, 52);
  s.proc(2).state = ProcState::kDead;  // a newer failure than the round
  s.apply_recovery(r);
  EXPECT_FALSE(s.alive(2)) << "an old round must not bring a slot back";
  job.modes.recovery = RecoveryMode::kIgnore;
  s.init(job);
  EXPECT_FALSE(s.recovers());
  EXPECT_FALSE(s.respawns());
}

}  // namespace
}  // namespace ftmpi::rte
