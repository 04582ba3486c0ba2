// The job state that the leader daemon owns and every daemon replicates:
// process table (slot, incarnation, host, pid, state), epoch, modes, and the
// ordered log of failure events. Followers learn failures from EVENT_DOWN,
// respawns from RESPAWN and completed rounds (epoch, incarnations) from
// RECOVER_DONE_DOWN; a later leader succession takes over from a replica.
#pragma once
#include <cstdint>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/proto/recovery.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

enum class ProcState : uint8_t {
  kAlive,     // started (or about to be); counts in card exchange and fence
  kFinished,  // ended normally (after its fence, or never joined and exited 0)
  kDead,      // failed: a sequenced event exists for it (or the job was ending)
};

struct ProcEntry {
  ProcId id;
  int32_t host = -1;
  int32_t pid = 0;
  ProcState state = ProcState::kAlive;
};

class JobState {
 public:
  void init(const proto::JobStart& job);
  int32_t world_size() const { return static_cast<int32_t>(procs_.size()); }
  const Modes& modes() const { return modes_; }
  uint32_t epoch() const { return epoch_; }
  bool valid_slot(int32_t slot) const { return slot >= 0 && slot < world_size(); }
  ProcEntry& proc(int32_t slot) { return procs_[static_cast<size_t>(slot)]; }
  const ProcEntry& proc(int32_t slot) const { return procs_[static_cast<size_t>(slot)]; }
  bool alive(int32_t slot) const { return proc(slot).state == ProcState::kAlive; }
  // Is `id` the current incarnation of its slot?
  bool current(const ProcId& id) const { return valid_slot(id.slot) && proc(id.slot).id == id; }

  // Rounds happen (and REBUILD respawns) only in these modes (spec §5).
  bool recovers() const { return modes_.comm != CommMode::kAbort && modes_.recovery != RecoveryMode::kIgnore; }
  // Transparent mode (DESIGN §8): failed slots restart without rounds.
  bool transparent() const { return modes_.transparent_mode(); }
  bool respawns() const { return (recovers() && modes_.comm == CommMode::kRebuild) || transparent(); }
  // A failure does not end the job (survivors are told, or the slot restarts;
  // in transparent mode only a killed or lost process restarts).
  bool continues_after_failure() const { return modes_.comm != CommMode::kAbort || transparent(); }
  uint32_t max_respawn() const { return max_respawn_; }
  int32_t count_alive() const;

  // Garbage collection happened for `slot` (spec/checkpoint-protocol.md §5):
  // its senders may have dropped messages and the event logger its
  // determinants up to a checkpoint, so a restart of the slot from the
  // program's start is no longer correct; only a restart from an image is.
  // Set (for good) by CKPT_KEPT_DOWN, before anything is dropped. The
  // number of the latest checkpoint of the slot that allowed it (0: none).
  uint64_t collected(int32_t slot) const {
    return valid_slot(slot) && collected_.size() > static_cast<size_t>(slot) ? collected_[static_cast<size_t>(slot)] : 0;
  }
  void mark_collected(int32_t slot, uint64_t number) {
    if (!valid_slot(slot)) return;
    collected_.resize(procs_.size(), 0);
    uint64_t& c = collected_[static_cast<size_t>(slot)];
    if (number > c) c = number;
  }

  uint64_t next_seq() const { return events_.size() + 1; }
  uint64_t last_seq() const { return events_.size(); }
  // Applies a sequenced failure; false if it was applied before (replays are harmless).
  bool apply_failure(const proto::ProcFailure& f);
  const std::vector<proto::ProcFailure>& events() const { return events_; }
  // Slot `who.slot` lives on as incarnation `who.incarnation` on `host`;
  // false if that is not newer than what the table holds.
  bool apply_respawn(const ProcId& who, int32_t host);
  // A completed round: its epoch, and the incarnation of every live slot
  // (nothing if the table already holds that epoch).
  void apply_recovery(const RecoveryResult& r);
  // The leader installs a round it completed.
  void set_epoch(uint32_t epoch, uint64_t round_seq) {
    epoch_ = epoch;
    round_seq_ = round_seq;
  }
  // Highest failure event the last completed round included (0: none yet).
  uint64_t round_seq() const { return round_seq_; }

 private:
  Modes modes_;
  uint32_t max_respawn_ = 10;
  uint64_t round_seq_ = 0;
  uint32_t epoch_ = 0;
  std::vector<ProcEntry> procs_;
  std::vector<proto::ProcFailure> events_;  // events_[i].seq == i + 1
  std::vector<uint64_t> collected_;          // by slot: checkpoint number
};

}  // namespace ftmpi::rte
