// How a job ended, and the lines the launcher prints about it. Pure logic:
// the launcher feeds it reports as they arrive and asks at the end for the
// exit status.
//
// The first cause that ends the job decides the status: a signal to the
// launcher (128+sig: 130 for SIGINT, 143 for SIGTERM), MPI_Abort (its code),
// a rank failing in comm mode abort (its status, 128+signal, or 1), a lost
// daemon (1), the time limit (124). Without one, the status is that of the lowest rank that exited
// non-zero after finalizing, else 0; in the FT modes, 1 if no rank at all
// ended normally.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

inline constexpr int kTimeoutExitStatus = 124;

class JobOutcome {
 public:
  // The reason lines, e.g.
  //   ftmpirun: rank 3 (pid 4242 on host0) was killed by signal 9 (SIGKILL)
  //   ftmpirun: rank 3 (pid 4242 on host0) died: killed by signal 9; survivors notified
  // Transparent mode (`transparent`), by the leader's decision (`next`,
  // proto::FailureReport::Next): "...; restarting it", "...; not restarted:
  // its program had finished (it died in MPI_Finalize)", "...; not restarted".
  static std::string failure_line(const proto::ProcFailure& f, const std::string& host, bool job_continues,
                                  uint32_t epoch = 0, bool transparent = false,
                                  uint8_t next = proto::FailureReport::kRestart);
  //   ftmpirun: rank 3 caught up after 812 ms (incarnation 1: 40 determinants and 12 messages replayed, 5 re-sends suppressed)
  static std::string caught_up_line(const ProcId& who, uint64_t since_failure_ns, uint64_t determinants,
                                    uint64_t messages, uint64_t suppressed);
  //   ftmpirun: recovery round 1 done in 12.3 ms: epoch 1, 4 of 4 ranks alive; failed: 3.0; respawned: 3.1
  static std::string round_line(const proto::RecoveryReport& r, int round, int32_t world_size);
  static std::string abort_line(const proto::AbortReport& a, const std::string& host);

  void on_failure(const proto::ProcFailure& f, const std::string& host, bool job_continues);
  void on_abort(const proto::AbortReport& a, const std::string& host);
  void on_signal(int sig);
  // --timeout / MPIEXEC_TIMEOUT expired: exit status 124 (as timeout(1)).
  void on_timeout(int seconds);
  void on_daemon_lost(const std::string& host, const std::string& why);
  void on_startup_error(const std::string& line);
  // The leader ended the job because it cannot go on (all dead, no respawn).
  void on_job_failed(const proto::JobFailedReport& r);
  void on_rank_exit(const proto::RankExit& e);
  void on_round_done(uint64_t duration_ns);
  // Transparent mode: the summary speaks of replays, not rounds.
  void set_transparent(bool t) { transparent_ = t; }
  // A restarted rank's replay caught up after `duration_ns` of replaying.
  void on_replay_done(uint64_t duration_ns);

  int failures() const { return failures_; }
  int rounds() const { return rounds_; }
  uint64_t recovering_ns() const { return recovering_ns_; }
  int replays() const { return replays_; }
  uint64_t replaying_ns() const { return replaying_ns_; }
  // "ftmpirun: job survived 2 failures in 1 recovery rounds (15 ms recovering)";
  // transparent mode: "ftmpirun: job survived 2 failures (2 replays caught up, 830 ms replaying)"
  // for a job that ended well after failures; with `always`, also a line for
  // any other job. Empty when there is nothing to say.
  std::string summary_line(bool always) const;

  bool ending() const { return cause_.has_value(); }
  int exit_status() const;
  // Printed once the job is over (after all forwarded output).
  const std::vector<std::string>& final_lines() const { return final_lines_; }

 private:
  void set_cause(int status, std::string line);
  std::optional<int> cause_;
  std::vector<std::string> final_lines_;
  bool any_failure_ = false;
  int failures_ = 0;
  int rounds_ = 0;
  uint64_t recovering_ns_ = 0;
  bool transparent_ = false;
  int replays_ = 0;
  uint64_t replaying_ns_ = 0;
  bool any_normal_ = false;
  int32_t first_bad_slot_ = -1;
  int first_bad_status_ = 0;
};

}  // namespace ftmpi::rte
