// The leader daemon's job logic: it alone sequences job events. It gathers
// cards and fence entries from all daemons and releases them together, turns
// a rank's failure into either the end of the job (comm mode abort) or a
// numbered PROC_FAILED event that every daemon passes to its survivors in the
// same order, runs recovery rounds and REBUILD respawns (spec/ft-semantics.md
// §5), and ends the job on MPI_Abort or when recovery is impossible.
//
// It talks only through LeaderOutput (frames), so it runs the same whether
// the daemons are remote or the leader is talking to itself, and it is
// unit-tested with a recording output. The leader is the lowest live host of
// the launcher's view. A daemon that becomes leader when its predecessor's
// host is lost (leader_succession.cpp) builds its Leader from the replicated
// JobState and the broadcast log, and from every live daemon's HOST_SYNC,
// before it sequences anything.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "rte/daemon/job_state.hpp"
#include "rte/proto/event_log_messages.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/gc_messages.hpp"
#include "rte/proto/runtime_messages.hpp"
#include "rte/proto/tree_messages.hpp"

namespace ftmpi::rte {

class LeaderOutput {
 public:
  virtual ~LeaderOutput() = default;
  virtual void to_all_daemons(const std::vector<uint8_t>& frame) = 0;  // this daemon included
  virtual void to_daemon(int32_t host, const std::vector<uint8_t>& frame) = 0;
  virtual void to_launcher(const std::vector<uint8_t>& frame) = 0;
  // Every logged broadcast so far, in order (the daemon's broadcast log):
  // what a new leader rebuilds its gathers from.
  virtual std::vector<proto::Frame> logged_broadcasts() const { return {}; }
};

class Leader {
 public:
  // `state` is this daemon's JobState (already init()ed); the leader is its writer.
  Leader(JobState& state, LeaderOutput& out);

  // A frame from the daemon on `from_host` (CARDS_UP, FENCE_UP, RECOVER_UP,
  // PROC_EXIT, ABORT_UP, SUSPECT_UP). False if malformed or unexpected: close that link.
  bool on_frame(int32_t from_host, const proto::Frame& f);
  // That daemon is gone: all its live ranks are lost (ranks already past
  // the job's finalize fence end normally).
  void on_daemon_lost(int32_t host);

  // ---- succession and views (leader_succession.cpp) ----
  // This daemon leads from view `term` on, its predecessor's host being lost:
  // until every live host sent a HOST_SYNC of that term or later, frames are
  // queued and nothing is sequenced. `lost[h]`: host h is gone.
  void begin_takeover(uint32_t term, const std::vector<bool>& lost);
  bool syncing() const { return syncing_; }
  // Live hosts whose HOST_SYNC a takeover still waits for.
  std::vector<int32_t> unsynced_hosts() const;
  // The takeover's wait for HOST_SYNCs timed out: goes on without the hosts
  // that did not answer (returned); a sync of theirs that comes later is
  // applied as outside a takeover.
  std::vector<int32_t> give_up_waiting();
  // A new view from the launcher: the ranks of newly lost hosts are lost.
  void on_view(const std::vector<bool>& lost);
  // A daemon's local facts (after every view change). Idempotent.
  void on_host_sync(int32_t from_host, const proto::HostSync& m);
  bool ending() const { return ending_; }
  // The job is being ended from outside (launcher TERMINATE, lost launcher):
  // sequence nothing more.
  void stop() { ending_ = true; }
  bool round_active() const { return round_active_; }

  // Where a failed slot is respawned: its own host while that daemon lives,
  // else (`movable`) the next live host after it in host order; -1 if none is left.
  static int32_t respawn_host(int32_t own_host, const std::vector<bool>& host_lost, bool movable);

 private:
  // ---- gathers and failures (leader.cpp) ----
  void on_cards(int32_t from_host, const proto::CardsUp& m);
  void on_fence(int32_t from_host, const proto::FenceUp& m);
  void on_proc_exit(int32_t from_host, const proto::ProcExit& m);
  void on_abort(int32_t from_host, const proto::AbortUp& m);
  void on_suspect(const proto::SuspectUp& m);
  // in_fence: it died inside MPI_Finalize, before the fence released it; a
  // failure like any other, but REBUILD does not respawn it.
  void fail(const ProcId& who, int32_t pid, const proto::ExitInfo& exit, bool started, bool in_fence = false);
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
  // ---- transparent mode (leader_transparent.cpp) ----
  // A restarted incarnation sent its card: it joins at once (no round, same
  // epoch); every daemon hears PROC_RESTARTED_DOWN with the current table.
  void on_transparent_card(const Card& c);
  // A restarted rank's replay report: caught up resets the slot's respawn
  // count (FTMPI_MAX_RESPAWN counts failures without catching up); passed
  // to the launcher.
  void on_replay(int32_t from_host, const proto::ReplayUp& m);
  // Garbage collection (spec/checkpoint-protocol.md §5): a daemon holds a
  // checkpoint image; a collected slot cannot restart from the start.
  void on_ckpt_kept(int32_t from_host, const proto::CkptKeptUp& m);
  void on_restart_refused(int32_t from_host, const proto::RestartRefusedUp& m);
  void begin_round();
  void check_round();
  void complete_round();
  // REBUILD: start slot `slot` again (or end the job if that is impossible).
  void respawn(int32_t slot);
  void forget_round_state(int32_t slot);

  // ---- succession (leader_succession.cpp) ----
  void finish_takeover();
  // Rebuilds the gathers' state from the broadcast log (JobState already holds its effects).
  void restore(const std::vector<proto::Frame>& log);
  void apply_sync(int32_t from_host, const proto::HostSync& m);

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

  // Takeover: waiting for HOST_SYNC from every live host.
  bool syncing_ = false;
  uint32_t takeover_term_ = 0;
  std::vector<std::optional<proto::HostSync>> syncs_;       // by host
  std::vector<std::pair<int32_t, proto::Frame>> queued_;  // frames that arrived meanwhile
};

}  // namespace ftmpi::rte
