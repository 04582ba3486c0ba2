// The fault-tolerance state machine of one process (spec/ft-semantics.md §4):
// NO_FAILURES -> FAILURE_RECOGNIZED -> RECOVERING -> NO_FAILURES.
//
// It hears failures and round results from the p2p engine (rte::EventSink),
// interrupts blocking calls in recovery modes MANUAL and AUTO, runs the
// recovery round with the runtime (§5) and installs its outcome: the engine's
// peers and queues (message mode), MPI_COMM_WORLD's membership (communicator
// mode), then the API layer's part through WorldHooks (invalidate handles,
// run MPI_COMM_WORLD's delete callbacks), in that order.
#pragma once
#include <cstdint>
#include <vector>

#include "base/err.hpp"
#include "comm/model/communicator.hpp"
#include "ftmodes/episode.hpp"
#include "p2p/engine.hpp"
#include "rte/client/client.hpp"

namespace ftmpi::ft {

// What only the API layer can do at the end of a recovery (it owns handles).
class WorldHooks {
 public:
  virtual ~WorldHooks() = default;
  // MPI_COMM_WORLD already has its new membership: drop every other
  // communicator and group handle (spec §4.3).
  virtual void invalidate_derived_objects() = 0;
  // Last step of a recovery: MPI_COMM_WORLD's delete callbacks in the order
  // the attributes were set; the attributes are gone afterwards.
  virtual void run_world_delete_callbacks() = 0;
};

enum class FtState : uint8_t { kNoFailures, kFailureRecognized, kRecovering };

class Controller final : public rte::EventSink {
 public:
  Controller(p2p::Engine& eng, rte::Client& client, const rte::Modes& modes, comm::Communicator& world);

  const rte::Modes& modes() const { return modes_; }
  FtState state() const { return state_; }
  const Episodes& episodes() const { return episodes_; }
  void set_hooks(WorldHooks* h) { hooks_ = h; }

  // MANUAL/AUTO with an unrecovered failure: communication calls must fail
  // with MPI_ERR_OTHER (AUTO: after recovering, see recover_if_auto()).
  bool communication_blocked() const { return state_ != FtState::kNoFailures && recovers(); }
  // Runs the recovery round (MANUAL: MPI_Comm_dup(MPI_COMM_WORLD)). Returns
  // kOk, or an error if recovery is impossible in this mode.
  Err recover();
  // AUTO mode with a pending failure: recover now. True if it did.
  bool recover_if_auto();
  // A respawned process: install what the round that started it decided.
  void adopt_restart(const rte::RecoveryResult& r);

  // rte::EventSink (passed on by the engine)
  void on_proc_failed(ProcId who, uint64_t event_seq) override;
  void on_recovery_done(const rte::RecoveryResult& r) override;

 private:
  bool recovers() const {
    return modes_.comm != rte::CommMode::kAbort && modes_.recovery != rte::RecoveryMode::kIgnore;
  }
  void install(const rte::RecoveryResult& r);

  p2p::Engine& eng_;
  rte::Client& client_;
  rte::Modes modes_;
  comm::Communicator& world_;
  WorldHooks* hooks_ = nullptr;
  FtState state_ = FtState::kNoFailures;
  Episodes episodes_;
  uint64_t last_seq_ = 0;  // highest failure event seen
  struct Seen {
    ProcId who;
    uint64_t seq;
  };
  std::vector<Seen> seen_;  // failures of the current episode, for replay after a round
  bool round_done_ = false;
  rte::RecoveryResult result_;
};

}  // namespace ftmpi::ft
