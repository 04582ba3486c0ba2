// The leader daemon's job logic: it alone sequences job events. It gathers
// cards and fence entries from all daemons and releases them together, turns
// a rank's failure into either the end of the job (comm mode abort) or a
// numbered PROC_FAILED event that every daemon passes to its survivors in the
// same order, and ends the job on MPI_Abort.
//
// It talks only through LeaderOutput (frames), so it runs the same whether
// the daemons are remote or the leader is talking to itself, and it is
// unit-tested with a recording output. The leader is daemon 0 today; the
// design leaves room for "lowest-numbered live daemon" succession (the state
// it needs is JobState, which every daemon replicates) and for daemons that
// aggregate a subtree (CARDS_UP/FENCE_UP already carry lists).
#pragma once
#include <optional>
#include <vector>

#include "rte/daemon/job_state.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

class LeaderOutput {
 public:
  virtual ~LeaderOutput() = default;
  virtual void to_all_daemons(const std::vector<uint8_t>& frame) = 0;  // this daemon included
  virtual void to_daemon(int32_t host, const std::vector<uint8_t>& frame) = 0;
  virtual void to_launcher(const std::vector<uint8_t>& frame) = 0;
};

class Leader {
 public:
  // `state` is this daemon's JobState (already init()ed); the leader is its writer.
  Leader(JobState& state, LeaderOutput& out);

  // A frame from the daemon on `from_host` (CARDS_UP, FENCE_UP, PROC_EXIT,
  // ABORT_UP, SUSPECT_UP). False if malformed or unexpected: close that link.
  bool on_frame(int32_t from_host, const proto::Frame& f);
  // That daemon is gone: all its live ranks are lost.
  void on_daemon_lost(int32_t host);
  bool ending() const { return ending_; }

 private:
  void on_cards(int32_t from_host, const proto::CardsUp& m);
  void on_fence(int32_t from_host, const proto::FenceUp& m);
  void on_proc_exit(int32_t from_host, const proto::ProcExit& m);
  void on_abort(int32_t from_host, const proto::AbortUp& m);
  void on_suspect(const proto::SuspectUp& m);
  void fail(const ProcId& who, int32_t pid, const proto::ExitInfo& exit);
  void end_job(int32_t exit_code);
  void check_cards();
  void check_fence();

  JobState& state_;
  LeaderOutput& out_;
  std::vector<std::optional<Card>> cards_;
  bool cards_done_ = false;
  std::vector<bool> fenced_;
  bool fence_done_ = false;
  bool ending_ = false;
};

}  // namespace ftmpi::rte
