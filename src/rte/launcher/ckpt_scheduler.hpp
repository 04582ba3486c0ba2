// Who checkpoints when (DESIGN §8, spec/checkpoint-protocol.md §4): a pure
// state machine that the launcher feeds with the clock and with what the
// processes report, and that answers which slots to order now. No I/O, so
// every schedule is unit-tested against one computed by hand.
//
// Rounds: every `interval` a round starts in which each live slot is
// checkpointed once, in the policy's order, never more than `max_concurrent`
// at a time (the next one starts when one completes). A round that is still
// running when the next is due delays it: rounds never overlap, so a slow
// store throttles checkpointing instead of piling it up.
//   round-robin: slot order, starting after the last slot of the previous round;
//   adaptive (MPICH-V2): highest received/sent byte ratio since its last
//     checkpoint first: the peers of such a process hold much of its traffic
//     in their logs while its own log (inside its image) is small.
// Log-size trigger: a slot whose peers hold at least `log_trigger` bytes
// logged for it is ordered before the round's next slot, even between rounds.
// Interval `auto`: Daly's formula with the measured mean cost of a checkpoint
// and the mean time between failures; before the first measurement,
// `first_auto_ns`.
#pragma once
#include <cstdint>
#include <vector>

namespace ftmpi::rte {

enum class CkptPolicy : uint8_t { kRoundRobin, kAdaptive };

struct CkptScheduleConfig {
  CkptPolicy policy = CkptPolicy::kRoundRobin;
  bool interval_auto = false;
  uint64_t interval_ns = 0;        // fixed interval (not auto)
  uint64_t mtbf_ns = 0;            // auto: mean time between failures of the job
  uint64_t first_auto_ns = 1'000'000'000;  // auto: the first round, before any cost is known
  uint64_t log_trigger = 0;        // bytes held for one slot that trigger its checkpoint (0: off)
  int max_concurrent = 1;
};

// Young's interval refined by Daly (2006): with C the cost of a checkpoint
// and M the mean time between failures, for C < 2M
//   T = sqrt(2CM) * (1 + sqrt(C/2M)/3 + (C/2M)/9) - C,  else T = M.
uint64_t daly_interval_ns(uint64_t cost_ns, uint64_t mtbf_ns);

class CkptScheduler {
 public:
  CkptScheduler(const CkptScheduleConfig& cfg, int world_size, uint64_t start_ns);

  // --- what the runtime learns ---
  // Traffic of `slot` since its last checkpoint completed (messages), and
  // what its peers hold logged for it (the log-size trigger's figure). What
  // they held when its last checkpoint completed does not count: without
  // garbage collection it stays in their logs, and would trigger again.
  void set_traffic(int slot, uint64_t sent, uint64_t received);
  void set_held_for(int slot, uint64_t bytes);
  // A checkpoint ordered by due() ended; `cost_ns` is what it cost the job
  // (pause plus transfer): the auto interval's C. ok=false: it failed.
  void completed(int slot, bool ok, uint64_t cost_ns, uint64_t now_ns);
  // The slot died (its checkpoint in flight, if any, is over) / runs again.
  void slot_down(int slot);
  void slot_up(int slot);

  // --- what to do ---
  // Slots to order a checkpoint of now (each is then in flight).
  std::vector<int> due(uint64_t now_ns);
  // When due() may next have something to say (UINT64_MAX: only after an event).
  uint64_t next_check_ns() const;
  // The current interval between rounds.
  uint64_t interval_ns() const;
  int in_flight() const { return in_flight_; }
  uint64_t rounds() const { return rounds_; }

 private:
  struct Slot {
    bool alive = true;
    bool in_flight = false;
    bool in_round = false;  // still to be checkpointed in the current round
    uint64_t sent = 0, received = 0;
    uint64_t held_raw = 0, held_base = 0, held_for = 0;
  };
  void start_round(uint64_t now_ns);
  int next_of_round();
  bool round_open() const;

  CkptScheduleConfig cfg_;
  std::vector<Slot> slots_;
  uint64_t next_round_ns_;
  int cursor_ = 0;  // round-robin: the next round starts here
  int in_flight_ = 0;
  uint64_t rounds_ = 0;
  uint64_t cost_sum_ns_ = 0;
  uint64_t cost_count_ = 0;
};

}  // namespace ftmpi::rte
