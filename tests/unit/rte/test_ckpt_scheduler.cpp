// The checkpoint scheduler against schedules computed by hand
// (src/rte/launcher/ckpt_scheduler.hpp).
#include <gtest/gtest.h>

#include "rte/launcher/ckpt_scheduler.hpp"

namespace ftmpi::rte {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000 * kMs;

using Slots = std::vector<int>;

TEST(CkptScheduler, DalyIntervalMatchesTheFormula) {
  // sqrt(2*10*7200) * (1 + sqrt(10/14400)/3 + (10/14400)/9) - 10 = 372.836 s
  EXPECT_NEAR(static_cast<double>(daly_interval_ns(10 * kS, 7200 * kS)) / kS, 372.836, 0.001);
  EXPECT_NEAR(static_cast<double>(daly_interval_ns(1 * kS, 3600 * kS)) / kS, 84.187, 0.001);
  EXPECT_NEAR(static_cast<double>(daly_interval_ns(50 * kMs, 60 * kS)) / kS, 2.416, 0.001);
  // C >= 2M: checkpoint once per mean time between failures.
  EXPECT_EQ(daly_interval_ns(300 * kS, 100 * kS), 100 * kS);
  EXPECT_EQ(daly_interval_ns(0, 100 * kS), 1 * kMs);  // never zero
  EXPECT_EQ(daly_interval_ns(5 * kS, 0), 0u);
}

TEST(CkptScheduler, RoundRobinOneAtATime) {
  CkptScheduleConfig c;
  c.interval_ns = 10 * kS;
  CkptScheduler s(c, 3, 0);
  EXPECT_EQ(s.due(9 * kS), Slots{});
  EXPECT_EQ(s.next_check_ns(), 10 * kS);
  EXPECT_EQ(s.due(10 * kS), Slots{0});
  EXPECT_EQ(s.due(11 * kS), Slots{});  // 0 still in flight
  s.completed(0, true, 5 * kMs, 11 * kS);
  EXPECT_EQ(s.due(11 * kS), Slots{1});
  s.completed(1, true, 5 * kMs, 12 * kS);
  EXPECT_EQ(s.due(12 * kS), Slots{2});
  s.completed(2, true, 5 * kMs, 13 * kS);
  EXPECT_EQ(s.due(13 * kS), Slots{});
  // The next round is due one interval after this one started (t = 10 s).
  EXPECT_EQ(s.next_check_ns(), 20 * kS);
  EXPECT_EQ(s.due(20 * kS), Slots{0});
  EXPECT_EQ(s.rounds(), 2u);
}

TEST(CkptScheduler, BoundedConcurrencyAndLateRounds) {
  CkptScheduleConfig c;
  c.interval_ns = 1 * kS;
  c.max_concurrent = 2;
  CkptScheduler s(c, 5, 0);
  EXPECT_EQ(s.due(1 * kS), (Slots{0, 1}));
  EXPECT_EQ(s.in_flight(), 2);
  s.completed(1, true, 0, 1100 * kMs);
  EXPECT_EQ(s.due(1100 * kMs), Slots{2});
  s.completed(0, true, 0, 1200 * kMs);
  s.completed(2, true, 0, 1200 * kMs);
  EXPECT_EQ(s.due(1200 * kMs), (Slots{3, 4}));
  // Round 2 was due at 2 s but round 1 still runs at 2.5 s: it waits.
  EXPECT_EQ(s.due(2500 * kMs), Slots{});
  s.completed(3, true, 0, 2600 * kMs);
  s.completed(4, true, 0, 2700 * kMs);
  EXPECT_EQ(s.due(2700 * kMs), (Slots{0, 1}));
  EXPECT_EQ(s.next_check_ns(), UINT64_MAX);  // a round is open
}

TEST(CkptScheduler, DeadSlotsAreSkippedAndTheirCheckpointEnds) {
  CkptScheduleConfig c;
  c.interval_ns = 1 * kS;
  CkptScheduler s(c, 3, 0);
  EXPECT_EQ(s.due(1 * kS), Slots{0});
  s.slot_down(0);  // died while checkpointing
  EXPECT_EQ(s.in_flight(), 0);
  s.slot_down(1);
  EXPECT_EQ(s.due(1 * kS), Slots{2});
  s.completed(2, true, 0, 1 * kS);
  s.slot_up(0);
  s.slot_up(1);
  EXPECT_EQ(s.due(2 * kS), Slots{0});
}

TEST(CkptScheduler, AdaptiveOrdersByReceivedOverSent) {
  CkptScheduleConfig c;
  c.policy = CkptPolicy::kAdaptive;
  c.interval_ns = 1 * kS;
  CkptScheduler s(c, 4, 0);
  s.set_traffic(0, 100, 100);  // ratio 1
  s.set_traffic(1, 100, 400);  // 4
  s.set_traffic(2, 0, 10);     // sent nothing, received: first
  s.set_traffic(3, 200, 400);  // 2
  Slots order;
  for (int k = 0; k < 4; ++k) {
    Slots d = s.due(1 * kS);
    ASSERT_EQ(d.size(), 1u);
    order.push_back(d[0]);
    s.completed(d[0], true, 0, 1 * kS);
  }
  EXPECT_EQ(order, (Slots{2, 1, 3, 0}));
  // Completed checkpoints reset the traffic: all ratios 0, slot order.
  s.set_traffic(3, 1, 1);
  EXPECT_EQ(s.due(2 * kS), Slots{3});
  s.completed(3, true, 0, 2 * kS);
  EXPECT_EQ(s.due(2 * kS), Slots{0});
}

TEST(CkptScheduler, LogTriggerGoesFirstEvenBetweenRounds) {
  CkptScheduleConfig c;
  c.interval_ns = 10 * kS;
  c.log_trigger = 1000;
  c.max_concurrent = 1;
  CkptScheduler s(c, 3, 0);
  s.set_held_for(1, 999);
  EXPECT_EQ(s.due(1 * kS), Slots{});
  s.set_held_for(1, 1000);
  s.set_held_for(2, 5000);
  EXPECT_EQ(s.due(1 * kS), Slots{2});  // the largest holding first
  s.completed(2, true, 0, 1 * kS);
  EXPECT_EQ(s.due(1 * kS), Slots{1});
  s.completed(1, true, 0, 1 * kS);
  EXPECT_EQ(s.due(1 * kS), Slots{});  // held_for was reset by the checkpoint
  s.set_held_for(2, 5500);             // still held (no garbage collection): 500 new
  EXPECT_EQ(s.due(1 * kS), Slots{});
  s.set_held_for(2, 6000);             // 1000 bytes since its checkpoint
  EXPECT_EQ(s.due(1 * kS), Slots{2});
  s.completed(2, true, 0, 1 * kS);
  s.set_held_for(2, 900);              // collected: all 900 are newer, under the trigger
  EXPECT_EQ(s.due(1 * kS), Slots{});
  s.set_held_for(2, 1000);
  EXPECT_EQ(s.due(1 * kS), Slots{2});
  s.completed(2, true, 0, 1 * kS);
  // Trigger only (interval 0): no rounds at all.
  CkptScheduleConfig t;
  t.log_trigger = 10;
  CkptScheduler only(t, 2, 0);
  EXPECT_EQ(only.due(100 * kS), Slots{});
  EXPECT_EQ(only.next_check_ns(), UINT64_MAX);
}

TEST(CkptScheduler, AutoIntervalUsesTheMeasuredCost) {
  CkptScheduleConfig c;
  c.interval_auto = true;
  c.mtbf_ns = 60 * kS;
  c.first_auto_ns = 1 * kS;
  CkptScheduler s(c, 2, 0);
  EXPECT_EQ(s.interval_ns(), 1 * kS);
  EXPECT_EQ(s.due(1 * kS), Slots{0});
  s.completed(0, true, 40 * kMs, 1 * kS);
  EXPECT_EQ(s.due(1 * kS), Slots{1});
  s.completed(1, true, 60 * kMs, 1 * kS);
  // Mean cost 50 ms, M = 60 s: T = 2.416 s (Daly).
  EXPECT_NEAR(static_cast<double>(s.interval_ns()) / kS, 2.416, 0.001);
  // Round 2 was set when round 1 started (1 s + 1 s); round 3 follows it by T.
  EXPECT_EQ(s.due(2 * kS), Slots{0});
  const uint64_t t = s.interval_ns();
  s.completed(0, false, 900 * kMs, 2 * kS);  // a failed one is no measurement
  EXPECT_EQ(s.interval_ns(), t);
  EXPECT_EQ(s.due(2 * kS), Slots{1});
  s.completed(1, true, 50 * kMs, 2 * kS);
  EXPECT_EQ(s.next_check_ns(), 2 * kS + t);
}

}  // namespace
}  // namespace ftmpi::rte
