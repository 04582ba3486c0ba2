// What a completed recovery round tells each process (spec/ft-semantics.md
// §5 step 3). Defined in the protocol layer because daemons carry it without
// knowing what it means; rte/client/client.hpp re-exports it.
#pragma once
#include <cstdint>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"

namespace ftmpi::rte {

struct RecoveryResult {
  uint32_t epoch = 0;           // the new epoch (old + 1)
  std::vector<Card> cards;      // every slot, indexed by slot; host < 0: slot is dead
  std::vector<ProcId> failed;   // every process that failed in the episode this round handled
  uint64_t last_event_seq = 0;  // highest failure event the round includes
  friend bool operator==(const RecoveryResult&, const RecoveryResult&) = default;
};

}  // namespace ftmpi::rte
