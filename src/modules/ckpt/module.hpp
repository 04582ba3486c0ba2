// Checkpoints in transparent mode, library side (DESIGN §8,
// spec/checkpoint-protocol.md): the runtime asks for a checkpoint
// (rte::Client::checkpoint_wanted), the module waits for a safe point
// inside an MPI call, freezes a copy of the process as the image
// (local_image.hpp), or with the memory store writes the image itself, and
// reports it with what the image had received. It
// also reports the sender log's figures now and then (the runtime's
// log-size trigger and memory report).
//
// Garbage collection: once the runtime says it holds an image (CKPT_KEPT),
// the receive state that image had goes to the senders (logging's COLLECT).
//
// Safe point: the end of a progress pass (never inside a transport poll),
// no transfer of this process in progress (Engine::quiescent), not
// replaying, every determinant acknowledged by the event logger.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "modules/ckpt/local_image.hpp"
#include "modules/logging/module.hpp"
#include "p2p/engine.hpp"
#include "rte/client/client.hpp"

namespace ftmpi::ckpt {

class Module final : public logging::CheckpointHook, public RestoredHook {
 public:
  Module(p2p::Engine& engine, rte::Client& client, logging::Module& logging);
  ~Module() override;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  void on_progress() override;
  // In a process restored from this module's buddy or disk image.
  void resume_restored() override;

 private:
  void take(uint64_t number);
  // The memory store: this process writes its image itself (store_copy.hpp)
  // and fills the facts. False in a process restored from that image, once
  // it is the slot's next incarnation.
  bool write_own_image(rte::proto::CkptFacts& f);
  void wake_up(int ctrl_fd);  // in the woken image
  void report_figures(uint64_t now);
  void messages(uint64_t& sent, uint64_t& received) const;  // over all channels, ever
  void collect(uint64_t kept);

  p2p::Engine& engine_;
  rte::Client& client_;
  logging::Module& logging_;
  uint64_t figures_at_ns_ = 0;    // last LOG_STATS
  uint64_t figures_bytes_ = 0;    // log bytes then
  uint64_t sent_at_ckpt_ = 0;      // messages() at the last checkpoint
  uint64_t received_at_ckpt_ = 0;
  unsigned tick_ = 0;
  static uint64_t kill_point(int32_t slot);
  uint64_t kill_at_ckpt_ = 0;  // FTMPI_INJECT_CKPT_KILL (tests), first incarnation only
  uint64_t taken_ = 0;         // checkpoints this incarnation forked
  StoreTarget store_;          // where the frozen copy also writes its image
  DeltaTracker delta_;         // the memory store's incremental images
  PageRuns unused_;            // the sender log's pages an image leaves out
  bool told_no_delta_ = false;
  // Per checkpoint reported and not yet held by the runtime: what its image
  // had received from each slot, and sent to each.
  struct Counts {
    std::vector<uint64_t> received, sent;
  };
  std::map<uint64_t, Counts> unkept_;
  uint64_t kept_ = 0;  // the last CKPT_KEPT acted on
};

}  // namespace ftmpi::ckpt
