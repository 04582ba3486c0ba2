// The job state that the leader daemon owns and every daemon replicates:
// process table (slot, incarnation, host, pid, state), epoch, modes, and the
// ordered log of failure events. Today followers learn failures from
// EVENT_DOWN; a later leader succession takes over from a replica, and
// recovery rounds / respawn extend the table (incarnation + 1, new state).
#pragma once
#include <cstdint>
#include <vector>

#include "base/proc_id.hpp"
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

  uint64_t next_seq() const { return events_.size() + 1; }
  // Applies a sequenced failure; false if it was applied before (replays are harmless).
  bool apply_failure(const proto::ProcFailure& f);
  const std::vector<proto::ProcFailure>& events() const { return events_; }

 private:
  Modes modes_;
  uint32_t epoch_ = 0;
  std::vector<ProcEntry> procs_;
  std::vector<proto::ProcFailure> events_;  // events_[i].seq == i + 1
};

}  // namespace ftmpi::rte
