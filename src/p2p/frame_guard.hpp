// Which arriving frames a process accepts, drops or holds back
// (spec/wire-p2p.md "Acceptance", spec/ft-semantics.md §6): one pure
// function for every frame kind, so the rule exists once and is unit-tested
// (tests/unit/p2p/frame_guard_test.cpp).
#pragma once
#include <cstdint>

namespace ftmpi::p2p {

enum class Verdict : uint8_t {
  kAccept,
  kDrop,  // meant for a predecessor of this process, from a replaced or dead sender, or too old
  kHold,  // from an incarnation or epoch this process has not installed yet: replayed after it does
};

enum class FrameClass : uint8_t {
  kMatch,    // EAGER, RTS: matched traffic, subject to epochs
  kReply,    // CTS, DATA, FIN, ACK, CANCEL, CANCEL_REPLY: name a request; only dst_inc counts
  kControl,  // CONTROL: an upper layer's protocol; incarnations count, epochs and deaths do not
};

// What the frame says about itself.
struct FrameStamp {
  FrameClass cls = FrameClass::kMatch;
  uint32_t dst_inc = 0;        // the incarnation the sender meant
  uint32_t src_inc = 0;        // kMatch, kControl
  uint32_t epoch = 0;          // kMatch
  bool coll_context = false;   // kMatch: a collective context
};

// What this process knows of the sender and of itself.
struct GuardState {
  bool sender_known = false;  // the slot exists
  uint32_t sender_inc = 0;    // the sender slot's incarnation installed here
  bool sender_alive = false;
  uint32_t self_inc = 0;
  uint32_t epoch = 0;           // installed epoch
  bool discard_old_epochs = false;  // message mode RESET after a recovery
  // Frames of the sender slot's next incarnation wait here for its card:
  // every later frame on the link is that incarnation's too.
  bool successor_held = false;
};

constexpr Verdict guard_frame(const FrameStamp& f, const GuardState& g) {
  if (f.dst_inc != g.self_inc) return Verdict::kDrop;  // meant for the process this one replaced
  // A reply carries no sender incarnation. Behind held frames of the
  // sender's successor it is the successor's, and may depend on them: a
  // CANCEL names the message copy sent just before it (spec/wire-p2p.md).
  if (f.cls == FrameClass::kReply) return g.successor_held ? Verdict::kHold : Verdict::kAccept;
  if (!g.sender_known || f.src_inc < g.sender_inc) return Verdict::kDrop;  // unknown, or replaced
  if (f.src_inc > g.sender_inc) return Verdict::kHold;  // a successor we have not installed yet
  if (f.cls == FrameClass::kControl) return Verdict::kAccept;  // even from a dead sender: the handler judges
  // The sender finished a recovery round before we did.
  if (f.epoch > g.epoch) return Verdict::kHold;
  if (!g.sender_alive) return Verdict::kDrop;
  // RESET: an older generation. Collective traffic of an older epoch goes in
  // every message mode: collectives never span a recovery (FT-MPI §5 rule 2),
  // and call numbers, so tags, start again from 0 in each epoch.
  if (f.epoch < g.epoch && (g.discard_old_epochs || f.coll_context)) return Verdict::kDrop;
  return Verdict::kAccept;
}

}  // namespace ftmpi::p2p
