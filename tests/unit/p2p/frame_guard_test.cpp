// The frame guard (src/p2p/frame_guard.hpp): every rule of spec/wire-p2p.md
// "Acceptance" and spec/ft-semantics.md §6, one case each.
#include <gtest/gtest.h>

#include "p2p/frame_guard.hpp"

namespace ftmpi::p2p {
namespace {

// This process: incarnation 2, epoch 5; the sender's slot: incarnation 3, alive.
GuardState state() {
  GuardState g;
  g.sender_known = true;
  g.sender_inc = 3;
  g.sender_alive = true;
  g.self_inc = 2;
  g.epoch = 5;
  return g;
}

FrameStamp match(uint32_t dst_inc = 2, uint32_t src_inc = 3, uint32_t epoch = 5, bool coll = false) {
  return FrameStamp{FrameClass::kMatch, dst_inc, src_inc, epoch, coll};
}

TEST(FrameGuard, AcceptsCurrentTraffic) {
  EXPECT_EQ(guard_frame(match(), state()), Verdict::kAccept);
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kReply, 2, 0, 0, false}, state()), Verdict::kAccept);
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kControl, 2, 3, 0, false}, state()), Verdict::kAccept);
}

TEST(FrameGuard, DropsFramesMeantForAPredecessor) {
  for (FrameClass c : {FrameClass::kMatch, FrameClass::kReply, FrameClass::kControl})
    EXPECT_EQ(guard_frame(FrameStamp{c, 1, 3, 5, false}, state()), Verdict::kDrop);
}

TEST(FrameGuard, DropsReplacedAndUnknownSenders) {
  EXPECT_EQ(guard_frame(match(2, 2), state()), Verdict::kDrop);
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kControl, 2, 2, 0, false}, state()), Verdict::kDrop);
  GuardState g = state();
  g.sender_known = false;
  EXPECT_EQ(guard_frame(match(), g), Verdict::kDrop);
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kControl, 2, 3, 0, false}, g), Verdict::kDrop);
}

TEST(FrameGuard, HoldsWhatComesFromTheFuture) {
  EXPECT_EQ(guard_frame(match(2, 4), state()), Verdict::kHold);      // successor not installed
  EXPECT_EQ(guard_frame(match(2, 3, 6), state()), Verdict::kHold);   // later epoch
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kControl, 2, 4, 0, false}, state()), Verdict::kHold);
  GuardState dead = state();
  dead.sender_alive = false;
  EXPECT_EQ(guard_frame(match(2, 3, 6), dead), Verdict::kHold);  // its death may be older than that epoch
}

TEST(FrameGuard, RepliesWaitBehindTheirSendersHeldFrames) {
  // A restarted image re-sends a message, then CANCELs it: the CANCEL must
  // not overtake the held copy it names (p2p.cancel with checkpoints hung).
  GuardState g = state();
  g.successor_held = true;
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kReply, 2, 0, 0, false}, g), Verdict::kHold);
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kReply, 1, 0, 0, false}, g), Verdict::kDrop);
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kReply, 2, 0, 0, false}, state()), Verdict::kAccept);
}

TEST(FrameGuard, DeadSenders) {
  GuardState g = state();
  g.sender_alive = false;
  EXPECT_EQ(guard_frame(match(), g), Verdict::kDrop);
  // Control frames of a dead sender still reach their handler.
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kControl, 2, 3, 0, false}, g), Verdict::kAccept);
}

TEST(FrameGuard, OlderEpochs) {
  // CONT: point-to-point of an older epoch is delivered, collective traffic is not.
  EXPECT_EQ(guard_frame(match(2, 3, 4), state()), Verdict::kAccept);
  EXPECT_EQ(guard_frame(match(2, 3, 4, true), state()), Verdict::kDrop);
  // RESET: nothing of an older epoch.
  GuardState g = state();
  g.discard_old_epochs = true;
  EXPECT_EQ(guard_frame(match(2, 3, 4), g), Verdict::kDrop);
  EXPECT_EQ(guard_frame(match(2, 3, 5), g), Verdict::kAccept);
  // Epochs do not concern replies or control frames.
  EXPECT_EQ(guard_frame(FrameStamp{FrameClass::kControl, 2, 3, 1, false}, g), Verdict::kAccept);
}

static_assert(guard_frame(FrameStamp{FrameClass::kMatch, 0, 0, 0, false}, GuardState{true, 0, true, 0, 0, false}) ==
              Verdict::kAccept);

}  // namespace
}  // namespace ftmpi::p2p
