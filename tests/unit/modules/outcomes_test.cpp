#include <gtest/gtest.h>

#include "modules/logging/outcomes.hpp"

namespace ftmpi::logging {
namespace {

// Runs a scripted live incarnation, then replays its flushed determinants.
std::vector<Determinant> flushed(Outcomes& o) {
  std::vector<uint8_t> bytes;
  o.take_batch(bytes);
  std::vector<Determinant> dets;
  EXPECT_EQ(decode_batches(bytes.data(), bytes.size(), dets), Err::kOk);
  return dets;
}

TEST(Outcomes, NamedTrafficRecordsNothingAndNeverBlocksSends) {
  Outcomes o;
  EXPECT_TRUE(o.may_send());
  EXPECT_EQ(o.poll_verdict(), PollVerdict::kLive);
  o.polled(true);  // a successful poll is no determinant
  EXPECT_TRUE(o.may_send());
  std::vector<uint8_t> b;
  EXPECT_FALSE(o.take_batch(b));
}

TEST(Outcomes, PessimismHoldsSendsUntilTheBatchIsAcked) {
  Outcomes o;
  o.matched(o.next_wildcard(), 2, 5);
  EXPECT_FALSE(o.may_send());
  std::vector<uint8_t> b;
  ASSERT_TRUE(o.take_batch(b));
  o.batch_sent();
  EXPECT_FALSE(o.may_send());
  o.polled(false);  // a failure recorded while the batch flies
  o.batch_acked();
  EXPECT_FALSE(o.may_send());  // the run is not logged yet
  b.clear();
  ASSERT_TRUE(o.take_batch(b));
  o.batch_sent();
  o.batch_acked();
  EXPECT_TRUE(o.may_send());
}

TEST(Outcomes, ReplayForcesEveryKindInOrder) {
  Outcomes live;
  live.matched(live.next_wildcard(), 3, 1);
  EXPECT_EQ(live.wtime(10.5), 10.5);
  live.polled(false);
  live.polled(false);
  live.polled(true);   // polls 0,1 failed, 2 succeeded
  live.polled(true);   // 3 succeeded
  live.polled(false);  // 4 failed, then a Wait (no poll)
  live.matched(live.next_wildcard(), 1, 1);
  live.completed({2, 0});
  live.cancel_outcome(live.next_cancel(), true);
  EXPECT_EQ(live.wtick(1e-6), 1e-6);
  live.polled(false);  // 5: lost with the process (never flushed)?  no: flushed below
  auto dets = flushed(live);
  ASSERT_EQ(dets.size(), 9u);

  Outcomes r;
  r.load(dets);
  EXPECT_TRUE(r.replaying());
  uint64_t w0 = r.next_wildcard();
  ASSERT_TRUE(r.forced_match(w0));
  EXPECT_EQ(r.forced_match(w0)->slot, 3);
  EXPECT_TRUE(r.matched(w0, 3, 1));
  EXPECT_EQ(r.wtime(99.0), 10.5);  // the logged value, not the new clock
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kFail);
  r.polled(false);
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kFail);
  r.polled(false);
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kSucceed);
  r.polled(true);
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kSucceed);
  r.polled(true);
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kFail);
  r.polled(false);
  uint64_t w1 = r.next_wildcard();
  EXPECT_EQ(r.forced_match(w1)->slot, 1);
  EXPECT_TRUE(r.matched(w1, 1, 1));
  EXPECT_EQ(r.forced_completion(), (std::vector<int32_t>{2, 0}));
  EXPECT_TRUE(r.completed({2, 0}));
  uint64_t c0 = r.next_cancel();
  EXPECT_EQ(r.forced_cancel(c0), true);
  EXPECT_TRUE(r.cancel_outcome(c0, true));
  EXPECT_EQ(r.wtick(5.0), 1e-6);
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kFail);
  r.polled(false);
  EXPECT_FALSE(r.replaying());
  EXPECT_FALSE(r.diverged());
  EXPECT_EQ(r.replayed(), 9u);
  EXPECT_TRUE(r.may_send());  // nothing replayed is logged again
  // Live again: new events are recorded with the counters where they are.
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kLive);
  r.polled(false);
  EXPECT_EQ(r.wtime(7.0), 7.0);
  auto more = flushed(r);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(more[0].kind, DetKind::kPolls);
  EXPECT_EQ(more[0].index, 6u);
  EXPECT_EQ(more[1].kind, DetKind::kWtime);
  EXPECT_EQ(more[1].index, 1u);
}

TEST(Outcomes, WrongMatchIsADivergence) {
  Outcomes live;
  live.matched(live.next_wildcard(), 2, 4);
  Outcomes r;
  r.load(flushed(live));
  EXPECT_FALSE(r.matched(r.next_wildcard(), 2, 5));
  EXPECT_TRUE(r.diverged());
  EXPECT_NE(r.divergence().find("slot 2 seq 4"), std::string::npos) << r.divergence();
}

TEST(Outcomes, PollThatFailsWhereTheLogSucceededIsADivergence) {
  Outcomes live;
  live.polled(true);
  live.wtime(1.0);
  Outcomes r;
  r.load(flushed(live));
  EXPECT_EQ(r.poll_verdict(), PollVerdict::kSucceed);
  r.polled(false);
  EXPECT_TRUE(r.diverged());
}

TEST(Outcomes, DifferentCompletionSetIsADivergence) {
  Outcomes live;
  live.completed({1});
  Outcomes r;
  r.load(flushed(live));
  EXPECT_FALSE(r.completed({0}));
  EXPECT_TRUE(r.diverged());
}

TEST(Outcomes, UnflushedTailIsLiveAgain) {
  Outcomes live;
  live.matched(live.next_wildcard(), 0, 1);
  auto dets = flushed(live);
  live.matched(live.next_wildcard(), 1, 1);  // never flushed: nobody saw its consequences
  Outcomes r;
  r.load(dets);
  EXPECT_TRUE(r.matched(r.next_wildcard(), 0, 1));
  uint64_t w = r.next_wildcard();
  EXPECT_FALSE(r.forced_match(w));
  EXPECT_TRUE(r.matched(w, 2, 1));  // a different choice is fine now
  EXPECT_FALSE(r.diverged());
}

TEST(Outcomes, WildcardsAreKeyedByPostingOrderNotMatchOrder) {
  Outcomes live;
  uint64_t a = live.next_wildcard(), b = live.next_wildcard();
  live.matched(b, 4, 1);  // the later receive matched first (another tag)
  live.matched(a, 2, 7);
  live.probed(5, 3);
  Outcomes r;
  r.load(flushed(live));
  uint64_t ra = r.next_wildcard(), rb = r.next_wildcard();
  EXPECT_EQ(r.forced_match(ra)->slot, 2);
  EXPECT_EQ(r.forced_match(rb)->slot, 4);
  EXPECT_TRUE(r.matched(ra, 2, 7));
  EXPECT_TRUE(r.replaying());
  ASSERT_TRUE(r.forced_probe());
  EXPECT_EQ(r.forced_probe()->seq, 3u);
  EXPECT_FALSE(r.probed(5, 4));  // found another message
  EXPECT_TRUE(r.diverged());
  EXPECT_TRUE(r.matched(rb, 4, 1));
  EXPECT_FALSE(r.replaying());
}

TEST(Outcomes, CancelsAreKeyedByCallOrderNotCompletionOrder) {
  Outcomes live;
  uint64_t a = live.next_cancel(), b = live.next_cancel();
  live.cancel_outcome(b, false);  // the later cancel's request completed first
  live.cancel_outcome(a, true);
  Outcomes r;
  r.load(flushed(live));
  uint64_t ra = r.next_cancel(), rb = r.next_cancel();
  EXPECT_EQ(r.forced_cancel(ra), true);
  EXPECT_EQ(r.forced_cancel(rb), false);
  EXPECT_TRUE(r.cancel_outcome(ra, true));
  EXPECT_FALSE(r.cancel_outcome(rb, true));  // came out otherwise than forced
  EXPECT_TRUE(r.diverged());
  EXPECT_FALSE(r.replaying());
  EXPECT_FALSE(r.forced_cancel(r.next_cancel()));  // past the log: live
}

// A send withdrawn before it left had its number skipped: the replay must
// withhold that one message (and only it) and not record it again when its
// cancel withdraws it anew; a withdrawal new in the replay is recorded with
// a number of its own.
TEST(Outcomes, WithdrawnSendsAreWithheldInTheReplay) {
  Outcomes live;
  live.withdrew(3, 7);
  live.withdrew(3, 7);  // told twice (request and message): one determinant
  EXPECT_FALSE(live.may_send());
  auto dets = flushed(live);
  ASSERT_EQ(dets.size(), 1u);
  EXPECT_EQ(dets[0].kind, DetKind::kWithdrawn);
  Outcomes r;
  r.load(dets);
  EXPECT_TRUE(r.replaying());
  EXPECT_FALSE(r.withhold(3, 6));
  EXPECT_FALSE(r.withhold(2, 7));
  EXPECT_TRUE(r.withhold(3, 7));
  EXPECT_FALSE(r.replaying());
  r.withdrew(3, 7);  // its replayed cancel: already in the log
  std::vector<uint8_t> none;
  EXPECT_FALSE(r.take_batch(none));
  r.withdrew(1, 2);
  auto fresh = flushed(r);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_NE(fresh[0].index, dets[0].index);  // a third incarnation tells them apart
  dets.insert(dets.end(), fresh.begin(), fresh.end());
  Outcomes third;
  third.load(dets);
  EXPECT_TRUE(third.withhold(1, 2));
  EXPECT_TRUE(third.withhold(3, 7));
  EXPECT_FALSE(third.replaying());
}

// Nonblocking collectives' later rounds start wherever progress finds their
// input: live, each is logged with the sends numbered before it; a replay
// keeps the program's sends from taking numbers before a logged round has
// started, and starts no round before its logged point or out of turn.
TEST(Outcomes, RoundsStartWhereTheDeadIncarnationStartedThem) {
  Outcomes live;
  EXPECT_TRUE(live.may_number());
  EXPECT_TRUE(live.may_number());
  EXPECT_TRUE(live.round_may_start(0, 1));  // after 2 sends
  EXPECT_FALSE(live.may_send());            // pessimism: its sends wait for the ack
  EXPECT_TRUE(live.may_number());           // the round's own send
  live.round_started();
  EXPECT_TRUE(live.may_number());
  EXPECT_TRUE(live.round_may_start(1, 1));  // after 4 sends
  live.round_started();
  EXPECT_TRUE(live.round_may_start(0, 2));  // after 4 sends too (no send between)
  live.round_started();
  auto dets = flushed(live);
  ASSERT_EQ(dets.size(), 3u);
  EXPECT_EQ(dets[0].kind, DetKind::kRound);
  EXPECT_EQ(dets[0].seq, 2u);
  EXPECT_EQ(dets[1].count, 1u);
  EXPECT_EQ(dets[2].seq, 4u);

  Outcomes r;
  r.load(dets);
  EXPECT_FALSE(r.round_may_start(0, 1));  // its input came at once: too early
  EXPECT_TRUE(r.may_number());
  EXPECT_TRUE(r.may_number());
  EXPECT_FALSE(r.may_number());           // the program's 3rd send waits for the round
  EXPECT_FALSE(r.round_may_start(1, 1));  // not its turn
  EXPECT_TRUE(r.round_may_start(0, 1));
  EXPECT_TRUE(r.may_number());  // the round's send
  r.round_started();
  EXPECT_TRUE(r.may_number());   // the kept send goes on
  EXPECT_FALSE(r.may_number());  // two rounds due before the next one
  EXPECT_FALSE(r.round_may_start(0, 2));
  EXPECT_TRUE(r.round_may_start(1, 1));
  r.round_started();
  EXPECT_FALSE(r.may_number());
  EXPECT_TRUE(r.round_may_start(0, 2));
  r.round_started();
  EXPECT_FALSE(r.replaying());
  EXPECT_FALSE(r.diverged());
  EXPECT_TRUE(r.may_number());
  EXPECT_TRUE(r.round_may_start(2, 1));  // past the log: live again, recorded
  r.round_started();
  auto fresh = flushed(r);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].index, 3u);
  EXPECT_EQ(fresh[0].seq, 5u);
}

// A replay's due round whose schedule was never started, has ended, or is
// asked to start a later round first can no longer come: a divergence, not
// a wait. A running schedule whose round is merely not ready is a wait.
TEST(Outcomes, RoundThatCannotComeIsADivergence) {
  Outcomes live;
  live.schedule_started(0);
  EXPECT_TRUE(live.may_number());
  EXPECT_TRUE(live.round_may_start(0, 1));  // after 1 send
  live.round_started();
  auto dets = flushed(live);
  ASSERT_EQ(dets.size(), 1u);

  Outcomes waits;  // the schedule runs, its input has not come yet
  waits.load(dets);
  waits.schedule_started(0);
  EXPECT_TRUE(waits.may_number());
  EXPECT_FALSE(waits.may_number());
  waits.check_round_comes();
  EXPECT_FALSE(waits.diverged());

  Outcomes never;  // the replay skipped the collective's call
  never.load(dets);
  EXPECT_TRUE(never.may_number());
  EXPECT_FALSE(never.may_number());  // the 2nd send: the collective was due first
  never.check_round_comes();
  EXPECT_TRUE(never.diverged());
  EXPECT_NE(never.divergence().find("only 0 nonblocking collectives were started"), std::string::npos);

  Outcomes ended;  // the collective completed without that round
  ended.load(dets);
  ended.schedule_started(0);
  ended.schedule_started(1);
  ended.schedule_ended(1);  // another one: nothing said
  EXPECT_FALSE(ended.diverged());
  EXPECT_TRUE(ended.may_number());
  ended.schedule_ended(0);
  EXPECT_TRUE(ended.diverged());
  EXPECT_NE(ended.divergence().find("has ended"), std::string::npos);

  Outcomes skipped;  // the schedule reached a later round first
  skipped.load(dets);
  skipped.schedule_started(0);
  EXPECT_TRUE(skipped.may_number());
  EXPECT_FALSE(skipped.round_may_start(0, 2));
  EXPECT_TRUE(skipped.diverged());
  EXPECT_NE(skipped.divergence().find("comes first"), std::string::npos);
}

}  // namespace
}  // namespace ftmpi::logging
