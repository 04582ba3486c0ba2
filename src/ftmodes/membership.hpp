// Pure functions of the communicator modes (no I/O): what MPI_COMM_WORLD
// looks like after a recovery, given who is alive. The runtime's table says,
// per slot, which incarnation is live (or none).
#pragma once
#include <cstdint>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/client/client.hpp"

namespace ftmpi::ft {

// slot -> live process (ProcId with slot < 0 when the slot is dead).
using LiveTable = std::vector<ProcId>;

// REBUILD: every slot, with its current incarnation (all must be live).
// BLANK: every slot; dead ones are blanks (comm::blank_member(slot), not
// valid()) at their rank.
// SHRINK: only live slots, in slot order (survivors keep their order).
std::vector<ProcId> world_after(rte::CommMode mode, const LiveTable& live);

// The world rank a slot has under `mode` after recovery, or -1.
int rank_after(rte::CommMode mode, const LiveTable& live, int32_t slot);

// Live table from the runtime's cards (host < 0 marks a dead slot).
LiveTable live_from_cards(const std::vector<rte::Card>& cards);

}  // namespace ftmpi::ft
