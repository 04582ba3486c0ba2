// The leader daemon's job logic: it alone sequences job events. It gathers
// cards and fence entries from all daemons and releases them together, turns
// a rank's failure into either the end of the job (comm mode abort) or a
// numbered PROC_FAILED event that every daemon passes to its survivors in the
// same order, runs recovery rounds and REBUILD respawns (spec/ft-semantics.md
// §5), and ends the job on MPI_Abort or when recovery is impossible.
//
// It talks only through LeaderOutput (frames), so it runs the same whether
// the daemons are remote or the leader is talking to itself, and it is
// unit-tested with a recording output. The leader is daemon 0 today; the
// design leaves room for "lowest-numbered live daemon" succession (the state
// it needs is JobState, which every daemon replicates) and for daemons that
// aggregate a subtree (CARDS_UP/FENCE_UP/RECOVER_UP already carry lists).
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

  // A frame from the daemon on `from_host` (CARDS_UP, FENCE_UP, RECOVER_UP,
  // PROC_EXIT, ABORT_UP, SUSPECT_UP). False if malformed or unexpected: close that link.
  bool on_frame(int32_t from_host, const proto::Frame& f);
  // That daemon is gone: all its live ranks are lost.
  void on_daemon_lost(int32_t host);
  bool ending() const { return ending_; }
  // The job is being ended from outside (launcher TERMINATE, lost launcher):
  // sequence nothing more.
  void stop() { ending_ = true; }
  bool round_active() const { return round_active_; }

  // Where a failed slot is respawned: its own host while that daemon lives,
  // else the next live host after it in host order; -1 if none is left.
  // Today a daemon can only host the slots it was given at start, so
  // `movable` is false and a slot whose host is gone cannot be respawned.
  static int32_t respawn_host(int32_t own_host, const std::vector<bool>& host_lost, bool movable);

 private:
  // ---- gathers and failures (leader.cpp) ----
  void on_cards(int32_t from_host, const proto::CardsUp& m);
  void on_fence(int32_t from_host, const proto::FenceUp& m);
  void on_proc_exit(int32_t from_host, const proto::ProcExit& m);
  void on_abort(int32_t from_host, const proto::AbortUp& m);
  void on_suspect(const proto::SuspectUp& m);
  void fail(const ProcId& who, int32_t pid, const proto::ExitInfo& exit, bool started);
  void end_job(int32_t exit_code);
  // Ends the job because it cannot go on; the launcher prints `why`.
  void job_failed(const std::string& why);
  void check_cards();
  void check_fence();
  // After any change of who is alive, asked, fenced or joined.
  void check_all();

  // ---- recovery rounds and respawn (leader_recovery.cpp) ----
  void on_recover(int32_t from_host, const proto::RecoverUp& m);
  // A respawned incarnation sent its card: it joins the next round.
  void on_restart_card(const Card& c);
  void begin_round();
  void check_round();
  void complete_round();
  // REBUILD: start slot `slot` again (or end the job if that is impossible).
  void respawn(int32_t slot);
  void forget_round_state(int32_t slot);

  JobState& state_;
  LeaderOutput& out_;
  std::vector<std::optional<Card>> cards_;
  bool cards_done_ = false;
  std::vector<bool> fenced_;
  bool fence_done_ = false;
  bool ending_ = false;
  std::vector<bool> host_lost_;

  // Recovery round state, per slot, for the slot's current incarnation.
  std::vector<bool> asked_;      // sent RECOVER_REQ in this round
  std::vector<bool> restarted_;  // a respawn that has not completed a round yet
  std::vector<bool> joined_;     // ...and whose card arrived
  std::vector<uint32_t> respawns_;  // respawns since the slot last completed a round
  std::vector<int32_t> respawn_waiting_;  // failed before the card exchange completed
  bool round_active_ = false;
  uint64_t round_start_ns_ = 0;
};

}  // namespace ftmpi::rte
