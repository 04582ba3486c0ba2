// How a collective waits (Xfer::wait, the agreement of src/coll/ft): poll
// for a moment, then keep polling but give the core away (sched_yield), and
// only then let the engine's own policy (spin while cores are free, then
// sleep) take over. Partners are inside the same collective, so the next
// message is usually microseconds away, and a sleep and wake-up costs tens
// of microseconds of CPU on a virtual machine (measured: 8 ranks on 2 cores,
// barrier ~200 us sleeping, ~60 us yielding). FTMPI_COLL_SPIN_US and
// FTMPI_COLL_YIELD_US set the phases (0 disables one).
#pragma once
#include <sched.h>

#include <cstdint>

#include "base/clock.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll {

struct WaitBudget {
  uint64_t spin_ns;
  uint64_t yield_ns;
};
// From FTMPI_COLL_SPIN_US / FTMPI_COLL_YIELD_US and whether local ranks
// outnumber cores; coll::State keeps the result (State::wait_budget).
WaitBudget make_wait_budget(const p2p::Engine& eng);

// Returns when done() holds.
template <class Done>
void wait_for(p2p::Engine& eng, const WaitBudget& budget, Done&& done) {
  // Spinning pays only while the partner runs on another core. The
  // scheduler often keeps two ranks that alternate on the same core (even
  // with a core per rank): then every microsecond of spin is a microsecond
  // of delay, so the spin phase is short (measured, 2 ranks sharing a core:
  // spin 50 us -> 56 us per barrier, spin 0 -> 4 us).
  if (done()) return;
  // Most waits of a small collective end within a few polls: the clock (4%
  // of an 8-byte MPI_Bcast at np 2) is first read after 16 of them.
  uint64_t start = 0;
  bool yielding = budget.spin_ns == 0;
  for (unsigned polls = 1;; ++polls) {
    if (eng.progress() > 0) {
      if (done()) return;
      continue;
    }
    if (done()) return;
    // The clock is read every 16 polls while spinning (a poll is far cheaper).
    if (yielding || (polls & 15) == 0) {
      const uint64_t t = now_ns();
      if (start == 0) start = t;
      const uint64_t waited = t - start;
      if (waited >= budget.spin_ns + budget.yield_ns) break;
      yielding = waited >= budget.spin_ns;
    }
    if (yielding) sched_yield();
  }
  eng.wait_until(done);
}

}  // namespace ftmpi::coll
