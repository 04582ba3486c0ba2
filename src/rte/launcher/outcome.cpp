#include "rte/launcher/outcome.hpp"

#include <cstdio>

#include "rte/common/process.hpp"

namespace ftmpi::rte {
namespace {

std::string who(const ProcId& id, int32_t pid, const std::string& host) {
  return "rank " + std::to_string(id.slot) + " (pid " + std::to_string(pid) + " on " + host + ")";
}

}  // namespace

std::string JobOutcome::failure_line(const proto::ProcFailure& f, const std::string& host, bool job_continues,
                                     uint32_t epoch, bool transparent, uint8_t next) {
  std::string line = "ftmpirun: " + who(f.who, f.pid, host);
  if (!job_continues) {
    line += " " + describe_exit(f.exit);
    if (f.exit.how == proto::ExitInfo::kExited) line += " before MPI_Finalize";
    return line;
  }
  line += " died: ";
  switch (f.exit.how) {
    case proto::ExitInfo::kExited:
      line += "exited with status " + std::to_string(f.exit.value) + " before MPI_Finalize";
      break;
    case proto::ExitInfo::kSignaled: line += "killed by signal " + std::to_string(f.exit.value); break;
    default: line += "lost with its daemon"; break;
  }
  if (f.who.incarnation > 0) line += " (incarnation " + std::to_string(f.who.incarnation) + ")";
  if (transparent) {
    if (next == proto::FailureReport::kRestart) return line + "; restarting it";
    if (next == proto::FailureReport::kFinished)
      return line + "; not restarted: its program had finished (it died in MPI_Finalize)";
    return line + "; not restarted";
  }
  return line + " in epoch " + std::to_string(epoch) + "; survivors notified";
}

std::string JobOutcome::caught_up_line(const ProcId& who, uint64_t since_failure_ns, uint64_t determinants,
                                       uint64_t messages, uint64_t suppressed) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.0f", static_cast<double>(since_failure_ns) / 1e6);
  return "ftmpirun: rank " + std::to_string(who.slot) + " caught up after " + ms + " ms (incarnation " +
         std::to_string(who.incarnation) + ": " + std::to_string(determinants) + " determinants and " +
         std::to_string(messages) + " messages replayed, " + std::to_string(suppressed) + " re-sends suppressed)";
}

namespace {
std::string proc_list(const std::vector<ProcId>& v) {
  if (v.empty()) return "none";
  std::string out;
  for (const ProcId& p : v)
    out += (out.empty() ? "" : " ") + std::to_string(p.slot) + "." + std::to_string(p.incarnation);
  return out;
}
}  // namespace

std::string JobOutcome::round_line(const proto::RecoveryReport& r, int round, int32_t world_size) {
  if (r.kind == proto::RecoveryReport::kBegin)
    return "ftmpirun: recovery round " + std::to_string(round) + " started (epoch " + std::to_string(r.epoch - 1) +
           " -> " + std::to_string(r.epoch) + "; failed so far: " + proc_list(r.failed) + ")";
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", static_cast<double>(r.duration_ns) / 1e6);
  return "ftmpirun: recovery round " + std::to_string(round) + " done in " + ms + " ms: epoch " +
         std::to_string(r.epoch) + ", " + std::to_string(r.alive) + " of " + std::to_string(world_size) +
         " ranks alive; failed: " + proc_list(r.failed) + "; respawned: " + proc_list(r.respawned);
}

std::string JobOutcome::abort_line(const proto::AbortReport& a, const std::string& host) {
  std::string line = "ftmpirun: " + who(a.who, a.pid, host) + " called MPI_Abort with code " + std::to_string(a.code);
  if (!a.message.empty()) line += ": " + a.message;
  return line;
}

void JobOutcome::set_cause(int status, std::string line) {
  if (cause_) return;
  cause_ = status;
  if (!line.empty()) final_lines_.push_back(std::move(line));
}

void JobOutcome::on_failure(const proto::ProcFailure& f, const std::string& host, bool job_continues) {
  any_failure_ = true;
  ++failures_;
  if (!job_continues) set_cause(failure_exit_code(f.exit), failure_line(f, host, false));
}

void JobOutcome::on_abort(const proto::AbortReport& a, const std::string& host) {
  int status = a.code & 0xff;
  if (status == 0 && a.code != 0) status = 1;  // never report success for a non-zero code
  set_cause(status, abort_line(a, host));
}

void JobOutcome::on_signal(int sig) { set_cause(128 + sig, ""); }

void JobOutcome::on_timeout(int seconds) {
  set_cause(kTimeoutExitStatus, "ftmpirun: the job did not end within its time limit of " + std::to_string(seconds) +
                                    " s (--timeout, MPIEXEC_TIMEOUT); it was ended");
}

void JobOutcome::on_daemon_lost(const std::string& host, const std::string& why) {
  set_cause(1, "ftmpirun: lost the daemon on " + host + " (" + why + "); its ranks are gone");
}

void JobOutcome::on_startup_error(const std::string& line) { set_cause(1, line); }

void JobOutcome::on_job_failed(const proto::JobFailedReport& r) {
  set_cause(r.exit_code == 0 ? 1 : r.exit_code, "ftmpirun: " + r.message);
}

void JobOutcome::on_round_done(uint64_t duration_ns) {
  ++rounds_;
  recovering_ns_ += duration_ns;
}

void JobOutcome::on_replay_done(uint64_t duration_ns) {
  ++replays_;
  replaying_ns_ += duration_ns;
}

std::string JobOutcome::summary_line(bool always) const {
  char ms[32];
  if (transparent_) {
    std::snprintf(ms, sizeof ms, "%.0f", static_cast<double>(replaying_ns_) / 1e6);
    std::string what = std::to_string(failures_) + (failures_ == 1 ? " failure" : " failures") + " (" +
                       std::to_string(replays_) + (replays_ == 1 ? " replay" : " replays") + " caught up, " + ms +
                       " ms replaying)";
    int status = exit_status();
    if (status == 0 && failures_ > 0) return "ftmpirun: job survived " + what;
    if (!always) return "";
    if (status == 0) return "ftmpirun: job ended normally after " + what;
    return "ftmpirun: job ended with status " + std::to_string(status) + " after " + what;
  }
  std::snprintf(ms, sizeof ms, "%.0f", static_cast<double>(recovering_ns_) / 1e6);
  std::string what = std::to_string(failures_) + (failures_ == 1 ? " failure" : " failures") + " in " +
                     std::to_string(rounds_) + (rounds_ == 1 ? " recovery round" : " recovery rounds") + " (" +
                     ms + " ms recovering)";
  int status = exit_status();
  if (status == 0 && failures_ > 0) return "ftmpirun: job survived " + what;
  if (!always) return "";
  if (status == 0) return "ftmpirun: job ended normally after " + what;
  return "ftmpirun: job ended with status " + std::to_string(status) + " after " + what;
}

void JobOutcome::on_rank_exit(const proto::RankExit& e) {
  if (e.end != proto::EndKind::kNormal) return;
  any_normal_ = true;
  int status = e.exit.how == proto::ExitInfo::kSignaled ? 128 + e.exit.value : e.exit.value;
  if (status != 0 && (first_bad_slot_ < 0 || e.who.slot < first_bad_slot_)) {
    first_bad_slot_ = e.who.slot;
    first_bad_status_ = status;
  }
}

int JobOutcome::exit_status() const {
  if (cause_) return *cause_;
  if (first_bad_slot_ >= 0) return first_bad_status_;
  if (any_failure_ && !any_normal_) return 1;
  return 0;
}

}  // namespace ftmpi::rte
