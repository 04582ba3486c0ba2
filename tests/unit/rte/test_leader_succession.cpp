// A new leader takes over from the replicated JobState and the broadcast log,
// waits for every live daemon's HOST_SYNC, and goes on where its predecessor
// stopped (rte/daemon/leader_succession.cpp).
#include "leader_fixture.hpp"
#include "rte/proto/tree_messages.hpp"

namespace ftmpi::rte {
namespace {

// A follower daemon's view: its replica of JobState (from the broadcasts it
// applied) and its broadcast log.
struct Follower : Recording {
  std::vector<Frame> log;
  std::vector<Frame> logged_broadcasts() const override { return log; }
};

struct Succession : LeaderFixture {
  JobState replica;
  Follower next;
  std::unique_ptr<Leader> successor;

  // Host 1 applies what the leader on host 0 broadcast so far, like from_leader() does.
  void replicate() {
    for (const Frame& f : out.all) {
      next.log.push_back(f);
      if (f.type == static_cast<uint16_t>(MsgType::kEventDown)) replica.apply_failure(as<proto::EventDown>(f).failure);
      if (f.type == static_cast<uint16_t>(MsgType::kRespawn)) {
        auto r = as<proto::Respawn>(f);
        replica.apply_respawn(r.who, r.host);
      }
    }
  }
  void take_over(CommMode mode) {
    proto::JobStart job;
    job.world_size = 4;
    job.modes.comm = mode;
    job.hosts = {proto::HostEntry{"a", "127.0.0.2", 1, {0, 1}, 0}, proto::HostEntry{"b", "127.0.0.3", 2, {2, 3}, 0}};
    job.program = "p";
    replica.init(job);
    replicate();
    successor = std::make_unique<Leader>(replica, next);
    successor->begin_takeover(1, {true, false});
  }
  template <typename M>
  bool send_next(int32_t host, const M& m) {
    Frame f;
    EXPECT_TRUE(proto::split_frame(proto::make_frame(m), f));
    return successor->on_frame(host, f);
  }
};

TEST_F(Succession, NothingIsSequencedBeforeEveryLiveHostSynced) {
  start(CommMode::kRebuild);
  exchange();
  take_over(CommMode::kRebuild);
  EXPECT_TRUE(successor->syncing());
  EXPECT_EQ(successor->unsynced_hosts(), (std::vector<int32_t>{1}));
  // A failure report that arrives meanwhile waits.
  ASSERT_TRUE(send_next(1, proto::ProcExit{ProcId{3, 0}, 103, ExitInfo{ExitInfo::kSignaled, 9}, EndKind::kFailure, true}));
  EXPECT_TRUE(next.all.empty());
  proto::HostSync s;
  s.term = 1;
  s.cards = {card(2, 1), card(3, 1)};
  successor->on_host_sync(1, s);
  EXPECT_FALSE(successor->syncing());
  // Host 0's ranks fail first (the lost host), then the queued report; every
  // one is respawned on the only live host, in sequence after the old leader's.
  auto events = of<proto::EventDown>(next.all);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].failure.who.slot, 3);  // the queued report
  EXPECT_EQ(events[0].failure.seq, 1u);
  std::vector<int32_t> lost_slots = {events[1].failure.who.slot, events[2].failure.who.slot};
  EXPECT_EQ(lost_slots, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(events[2].failure.seq, 3u);
  EXPECT_EQ(events[1].failure.exit.how, ExitInfo::kLost);
  auto respawns = of<proto::Respawn>(next.all);
  ASSERT_EQ(respawns.size(), 3u);
  for (const auto& r : respawns) EXPECT_EQ(r.host, 1);
}

TEST_F(Succession, APredecessorsRespawnIsNotRepeatedAndItsEventsKeepTheirNumbers) {
  start(CommMode::kRebuild);
  exchange();
  fail(1, 2);  // the old leader sequenced it (seq 1) and respawned slot 2 on host 1
  ASSERT_EQ(all_of<proto::Respawn>().size(), 1u);
  take_over(CommMode::kRebuild);
  EXPECT_EQ(replica.last_seq(), 1u);
  proto::HostSync s;
  s.term = 1;
  s.cards = {card(3, 1), card(2, 1, 1)};  // the respawn already runs and sent its card
  successor->on_host_sync(1, s);
  auto respawns = of<proto::Respawn>(next.all);
  ASSERT_EQ(respawns.size(), 2u) << "slots 0 and 1 only";
  EXPECT_EQ(respawns[0].who.slot, 0);
  EXPECT_EQ(respawns[1].who.slot, 1);
  auto events = of<proto::EventDown>(next.all);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].failure.seq, 2u);
}

TEST_F(Succession, AnAbortModeJobEndsWhenTheLeadersHostIsLost) {
  start(CommMode::kAbort);
  exchange();
  take_over(CommMode::kAbort);
  proto::HostSync s;
  s.term = 1;
  s.cards = {card(2, 1), card(3, 1)};
  successor->on_host_sync(1, s);
  EXPECT_EQ(of<proto::EndJob>(next.all).size(), 1u);
}

TEST_F(Succession, SyncsOfAnOlderViewOrFromLostHostsDoNotCount) {
  start(CommMode::kBlank);
  exchange();
  take_over(CommMode::kBlank);
  proto::HostSync old;
  old.term = 0;
  successor->on_host_sync(1, old);
  EXPECT_TRUE(successor->syncing());
  proto::HostSync s;
  s.term = 1;
  successor->on_host_sync(0, s);  // host 0 is lost
  EXPECT_TRUE(successor->syncing());
  successor->on_host_sync(1, s);
  EXPECT_FALSE(successor->syncing());
}

}  // namespace
}  // namespace ftmpi::rte
