// Transparent mode's logging module as p2p and the runtime see it
// (DESIGN §8): the p2p module seam (p2p/module_seam.hpp) on one side, the
// Logger protocol on the other, and the runtime client as event logger.
// Created by MPI_Init when the job runs with --ft-transparent.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "modules/logging/logger.hpp"
#include "p2p/engine.hpp"
#include "p2p/module_seam.hpp"

namespace ftmpi::logging {

// p2p control handler id of the logging module (the agreement uses 1).
inline constexpr uint8_t kControlId = 2;

// The checkpoint module (src/modules/ckpt) watches every progress pass for
// its safe point through this; null when checkpoints are off.
class CheckpointHook {
 public:
  virtual ~CheckpointHook() = default;
  virtual void on_progress() = 0;
};

class Module final : public p2p::ModuleSeam, public p2p::ControlHandler, private Wire {
 public:
  Module(p2p::Engine& engine, rte::Client& client, uint64_t log_limit);
  ~Module() override;

  // MPI_Init of a restarted incarnation: fetch the determinants, tell the
  // runtime the replay starts.
  void start_replay();
  // A checkpoint image became the next incarnation (resume.cpp): fetch the
  // determinants and replay those after the image's point, then, once the
  // engine has its peers back, resume_peer() for each live one re-sends the
  // whole sender log to it (it drops what it has by sequence number).
  void resume_replay();
  void resume_peer(ProcId who) { logger_.peer_back(who.slot); }
  // MPI_Wtime / MPI_Wtick values (logged, or forced in a replay).
  double wtime(double live);
  double wtick(double live);
  // MPI_Cancel of `r`, in its place: cancels it live; in a replay forces the
  // dead incarnation's outcome (logged when the request completed).
  void cancel(p2p::Request* r);
  // MPI_Finalize: every determinant acknowledged before the fence.
  void finalize();

  // p2p::ModuleSeam
  p2p::SendVerdict on_send(p2p::Envelope& e, p2p::TypedBuffer& data) override;
  uint64_t checksum(const p2p::Envelope& e, const uint8_t* payload) override;
  p2p::ArrivalVerdict on_arrival(const p2p::Envelope& e) override;
  bool force_source(uint64_t ctx, int tag, bool probe, int32_t* src_slot, uint64_t* seq) override;
  void on_matched(const p2p::Envelope& e, const p2p::Request* r, bool probe) override;
  void on_delivered(const p2p::Request* r) override;
  bool sends_go() const override;
  void on_poll(p2p::PollKind kind, uint8_t* pick, size_t n) override;
  p2p::FailurePolicy on_failure(ProcId who) override;
  void on_peer_back(ProcId who) override;
  void on_determinants_acked(uint64_t batch) override;
  void on_withdrawn(int32_t dst_slot, uint64_t seq) override;
  bool may_number() override {
    if (logger_.outcomes().may_number()) return true;
    logger_.outcomes().check_round_comes();
    logger_.check_divergence();
    return false;
  }
  bool round_may_start(uint64_t sched, uint32_t round) override;
  void round_started() override { logger_.outcomes().round_started(); }
  void schedule_started(uint64_t sched) override { logger_.outcomes().schedule_started(sched); }
  void schedule_ended(uint64_t sched) override {
    logger_.outcomes().schedule_ended(sched);
    logger_.check_divergence();
  }

  // p2p::ControlHandler
  void on_control(ProcId from, const uint8_t* data, size_t len) override;

  const Logger& logger() const { return logger_; }

  // --- checkpoints (src/modules/ckpt; spec/checkpoint-protocol.md) ---
  void set_checkpoint_hook(CheckpointHook* h) { ckpt_ = h; }
  void on_progress() override {
    if (engine_.has_deferred_cancels()) answer_cancels();
    if (ckpt_) ckpt_->on_progress();
  }
  bool on_idle() override { return logger_.prepare_log(); }
  // A replaying process answers CANCELs once it has caught up: a message
  // its dead incarnation matched is matched again by then, or was never
  // matched before anything the dead incarnation showed its peers.
  bool defer_cancels() override { return logger_.replaying(); }
  // May a checkpoint be taken now, as far as logging goes? Not during a
  // replay, and only with every determinant acknowledged: determinants
  // not yet flushed are flushed now, so that a later call says yes.
  bool ready_for_checkpoint();
  // The runtime holds a checkpoint whose image accepted `received[s]`
  // messages from each slot s and had sent it `sent[s]`: the senders may
  // drop the first from their logs, the receivers the checksums of the second.
  void checkpoint_kept(const std::vector<uint64_t>& received, const std::vector<uint64_t>& sent) {
    logger_.checkpoint_kept(received, sent);
  }

 private:
  // Wire
  bool send_frame(int32_t slot, const std::vector<uint8_t>& bytes) override;
  bool inject(int32_t slot, const LogEntry& e) override;
  bool log_determinants(const std::vector<uint8_t>& batch) override;
  [[noreturn]] void fatal(const std::string& msg) override;

  // A wildcard probe found a message. An Iprobe's first look counts if the
  // call reports it (on_poll); any later find (a forced Iprobe waiting, a
  // blocking Probe) counts at the next event.
  void settle_probe(bool reported) {
    if (probe_found_) settle_found(reported);
  }
  void settle_found(bool reported);
  void after_event() {  // divergence check, caught-up report
    logger_.check_divergence();
    if (logger_.take_caught_up()) report_caught_up();
  }
  void report_caught_up();
  void answer_cancels() {
    after_event();
    if (!logger_.replaying()) engine_.answer_deferred_cancels();
  }

  p2p::Engine& engine_;
  rte::Client& client_;
  Logger logger_;
  // Wildcard receives posted and not matched yet, in posting order.
  struct Wild {
    uint64_t ctx;
    int tag;
    uint64_t index;
    bool forced;
    int32_t slot;
    uint64_t seq;
  };
  std::vector<Wild> wild_;
  // Requests MPI_Cancel was called on, not completed yet: their cancel number.
  std::unordered_map<const p2p::Request*, uint64_t> cancels_;
  bool probe_found_ = false;
  int32_t probe_slot_ = -1;
  uint64_t probe_seq_ = 0;
  std::deque<uint64_t> batch_ends_;  // runtime batch number ending each Logger batch, unacked
  uint64_t replay_start_ns_ = 0;
  static uint64_t kill_point(int32_t slot);
  static constexpr uint64_t kFinalizeKill = UINT64_MAX;  // "slot:finalize"
  uint64_t kill_at_send_ = 0;  // FTMPI_INJECT_SEND_KILL (tests), first incarnation only
  uint64_t sends_seen_ = 0;
  CheckpointHook* ckpt_ = nullptr;
};

}  // namespace ftmpi::logging
