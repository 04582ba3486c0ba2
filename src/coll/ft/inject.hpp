// Fault injection for the tests of fault-tolerant collectives
// (tests/mpi/ft, spec/ft-collectives.md §6). Compiled in always; a no-op
// unless FTMPI_INJECT_AGREE is set:
//
//   FTMPI_INJECT_AGREE=phase:rank:call[:epoch][,phase:rank:call[:epoch]...]
//
// kills (SIGKILL) the process of communicator rank `rank` when it reaches
// `phase` of collective call number `call` (Team::call_seq(), counted from 0
// per communicator and epoch) on any communicator, in job epoch `epoch`
// (default 0: before the first recovery). So a point fires once: after a
// recovery the call numbers start again, but the epoch has changed. Phases:
//   start   entering the collective, before any message
//   data    with the algorithm's first batch of messages posted
//   vote    after the algorithm ended, before sending its vote
//   coord   (coordinator) with every vote in, before any decision is sent
//   commit  coordinator: having sent the decision to half of the members;
//           any other member: having received the decision, before copy-out
#pragma once
#include <cstdint>
#include <vector>

#include "coll/team.hpp"

namespace ftmpi::coll::ft {

enum class Phase { kStart, kData, kVote, kCoord, kCommit };

struct InjectPoint {
  Phase phase;
  int rank;
  uint32_t call;
  uint32_t epoch;
};
// The points of FTMPI_INJECT_AGREE (read by coll::State when it is made).
std::vector<InjectPoint> inject_points_from_env();

// Dies here if FTMPI_INJECT_AGREE names this phase, rank and call.
void maybe_die(Phase p, const Team& t);

}  // namespace ftmpi::coll::ft
