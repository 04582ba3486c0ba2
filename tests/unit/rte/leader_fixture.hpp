// Shared by the leader unit tests: a LeaderOutput that records frames, and a
// fixture with a two-host job (slots 0,1 on host 0 and 2,3 on host 1).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "rte/daemon/leader.hpp"

namespace ftmpi::rte {

using proto::EndKind;
using proto::ExitInfo;
using proto::Frame;
using proto::MsgType;

struct Recording : LeaderOutput {
  std::vector<Frame> all, launcher;
  std::vector<std::pair<int32_t, Frame>> one;
  static Frame split(const std::vector<uint8_t>& b) {
    Frame f;
    EXPECT_TRUE(proto::split_frame(b, f));
    return f;
  }
  void to_all_daemons(const std::vector<uint8_t>& b) override { all.push_back(split(b)); }
  void to_daemon(int32_t host, const std::vector<uint8_t>& b) override { one.emplace_back(host, split(b)); }
  void to_launcher(const std::vector<uint8_t>& b) override { launcher.push_back(split(b)); }
};

template <typename M>
M as(const Frame& f) {
  M m;
  EXPECT_TRUE(proto::parse(f, m)) << proto::msg_name(f.type);
  return m;
}

struct LeaderFixture : ::testing::Test {
  JobState state;
  Recording out;
  std::unique_ptr<Leader> leader;

  // Two hosts: slots 0,1 on host 0 and 2,3 on host 1.
  void start(CommMode mode, RecoveryMode recovery = RecoveryMode::kManual, uint32_t max_respawn = 10,
             Transparent transparent = Transparent::kNone) {
    proto::JobStart job;
    job.world_size = 4;
    job.modes.comm = mode;
    job.modes.recovery = recovery;
    job.modes.transparent = transparent;
    job.max_respawn = max_respawn;
    job.hosts = {proto::HostEntry{"a", "127.0.0.2", 1, {0, 1}, 0}, proto::HostEntry{"b", "127.0.0.3", 2, {2, 3}, 0}};
    job.program = "p";
    state.init(job);
    leader = std::make_unique<Leader>(state, out);
  }
  template <typename M>
  bool send(int32_t host, const M& m) {
    Frame f;
    EXPECT_TRUE(proto::split_frame(proto::make_frame(m), f));
    return leader->on_frame(host, f);
  }
  static Card card(int32_t slot, int32_t host, uint32_t incarnation = 0) {
    Card c;
    c.id = ProcId{slot, incarnation};
    c.host = host;
    c.pid = 100 + slot;
    c.tcp_addr = "127.0.0.1";
    c.tcp_port = static_cast<uint16_t>(5000 + slot);
    return c;
  }
  void fail(int32_t host, int32_t slot, ExitInfo e = {ExitInfo::kSignaled, 9}, uint32_t incarnation = 0,
            bool started = true) {
    ASSERT_TRUE(send(host, proto::ProcExit{ProcId{slot, incarnation}, 100 + slot, e, EndKind::kFailure, started}));
  }
  // Frames of type M sent to all daemons / the launcher so far.
  template <typename M>
  std::vector<M> all_of() const {
    return of<M>(out.all);
  }
  template <typename M>
  std::vector<M> launcher_of() const {
    return of<M>(out.launcher);
  }
  template <typename M>
  static std::vector<M> of(const std::vector<Frame>& frames) {
    std::vector<M> v;
    for (const Frame& f : frames)
      if (f.type == static_cast<uint16_t>(M::kType)) v.push_back(as<M>(f));
    return v;
  }
  // Both hosts send all their cards: MPI_Init done everywhere.
  void exchange() {
    ASSERT_TRUE(send(0, proto::CardsUp{{card(0, 0), card(1, 0)}}));
    ASSERT_TRUE(send(1, proto::CardsUp{{card(2, 1), card(3, 1)}}));
  }
};

}  // namespace ftmpi::rte
