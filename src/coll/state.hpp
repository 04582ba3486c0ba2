// Everything the collective layer of one process keeps from one call to the
// next: call numbers (the tags are built from them), the algorithm chosen
// last, scratch memory, buffers of abandoned runs, the agreement and its
// decision log, and the settings read from the environment. The library's
// Runtime owns the one State of the process (src/api/runtime.hpp) and every
// Team points at it; nothing in src/coll keeps state anywhere else, so a
// checkpoint finds it all there and a new State is a new collective layer.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "coll/ft/inject.hpp"
#include "coll/select.hpp"
#include "coll/wait.hpp"
#include "coll/xfer.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll {

class State {
 public:
  // Reads FTMPI_COLL and FTMPI_INJECT_AGREE. `eng` may still be
  // uninitialised: nothing here asks it anything before the first call.
  explicit State(p2p::Engine& eng);
  ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  p2p::Engine& engine() const { return *eng_; }

  // The number of the next collective call on collective context `ctx` in
  // job epoch `epoch`, counted from 0 per (context, epoch): members call
  // collectives on a communicator in the same order, so they all draw the
  // same number (Team::begin_call).
  uint32_t next_call(uint64_t ctx, uint32_t epoch) {
    const Key key{ctx, epoch};
    if (!last_count_ || key != last_key_) {
      last_count_ = &calls_[key];  // map nodes never move
      last_key_ = key;
    }
    return (*last_count_)++;
  }

  // The last choice per collective (dispatch.cpp): programs repeat calls.
  struct Choice {
    CallInfo info{-1, 0, false};
    int index = 0;
  };
  Choice& last_choice(CollOp op) { return choices_[static_cast<int>(op)]; }
  // FTMPI_COLL, and whether its unknown algorithm name was reported.
  const Forced& forced() const { return forced_; }
  bool warn_once(CollOp op) { return !std::exchange(warned_[static_cast<int>(op)], true); }

  // How long a collective spins and yields before it sleeps (wait.hpp);
  // decided at the first wait, when the engine knows its local ranks.
  const WaitBudget& wait_budget() {
    if (!budget_) budget_ = make_wait_budget(*eng_);
    return *budget_;
  }

  // FTMPI_INJECT_AGREE (ft/inject.hpp); empty without it.
  const std::vector<ft::InjectPoint>& inject_points() const { return inject_; }

  // Scratch blocks, run lists and orphaned buffers of Xfer and TempArea.
  XferState& xfer() { return xfer_; }

  // The agreement of atomic collectives with its decision log, made and
  // registered with the engine on first use; its type is private to
  // ft/agreement.cpp.
  std::unique_ptr<p2p::ControlHandler>& agreement_slot() { return agreement_; }

 private:
  using Key = std::pair<uint64_t, uint32_t>;  // (collective context, epoch)

  p2p::Engine* eng_;
  std::map<Key, uint32_t> calls_;
  Key last_key_{~uint64_t{0}, 0};
  uint32_t* last_count_ = nullptr;
  Choice choices_[static_cast<int>(CollOp::kCount)];
  Forced forced_;
  bool warned_[static_cast<int>(CollOp::kCount)] = {};
  std::optional<WaitBudget> budget_;
  std::vector<ft::InjectPoint> inject_;
  XferState xfer_;
  std::unique_ptr<p2p::ControlHandler> agreement_;
};

}  // namespace ftmpi::coll
