// Daemons started by one command (srun, srun_agent.hpp): one local process
// stands for all of them. A daemon's death is seen on its link as with any
// other agent; the step process only tells us about a start that failed
// (srun could not create the step) and must be gone before ftmpirun exits.
#include <signal.h>
#include <sys/epoll.h>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/common/process.hpp"
#include "rte/launcher/launcher.hpp"

namespace ftmpi::rte {

namespace {
// Once every daemon link is closed, the step has this long to end before it
// is asked to (SIGTERM, which srun passes on), and twice this before SIGKILL.
constexpr uint64_t kStepExitTimeoutMs = 5000;
constexpr uint64_t kStepCheckMs = 500;
}  // namespace

void Launcher::start_step(const std::string& job_id) {
  std::vector<DaemonLaunch> all;
  for (size_t h = 0; h < daemons_.size(); ++h) all.push_back(daemon_launch(h, job_id));
  std::string err;
  step_pid_ = agent_.start_all(all, err);
  if (step_pid_ < 0) {
    outcome_.on_startup_error("ftmpirun: cannot start the daemons: " + err);
    end_job(1, false);
    return;
  }
  step_pidfd_ = open_pidfd(step_pid_);
  step_watch_ = loop_.watch(step_pidfd_, EPOLLIN, [this](uint32_t) { on_step_process(); });
  loop_.after_ms(kStepCheckMs, [this] { step_watchdog(); });
}

void Launcher::on_step_process() {
  proto::ExitInfo e;
  if (step_reaped_ || !reap(step_pid_, e)) return;
  step_reaped_ = true;
  loop_.unwatch(step_watch_);
  step_watch_ = 0;
  fd::close_quietly(step_pidfd_);
  FTMPI_LOG(kDebug, "ftmpirun", "daemon step %s", describe_exit(e).c_str());
  std::string missing;
  for (const DaemonEntry& d : daemons_)
    if (!d.hello) missing += (missing.empty() ? "" : ", ") + d.plan.name;
  if (!missing.empty()) {
    outcome_.on_startup_error("ftmpirun: the daemon step (srun) " + describe_exit(e) +
                              " before the daemons of " + missing + " connected");
    end_job(1, false);
  }
}

void Launcher::step_watchdog() {
  if (!step_running()) return;
  bool links_gone = true;
  for (const DaemonEntry& d : daemons_)
    if (d.conn ? !d.link_closed : !outcome_.ending()) links_gone = false;
  const uint64_t now = now_ns();
  if (!links_gone) {
    step_links_gone_ns_ = 0;
  } else if (step_links_gone_ns_ == 0) {
    step_links_gone_ns_ = now;
  } else {
    // A daemon that lost its link exits by itself; one that does not (frozen,
    // or its node unreachable) must not keep ftmpirun waiting for srun.
    uint64_t waited_ms = (now - step_links_gone_ns_) / 1000000ull;
    if (waited_ms >= 2 * kStepExitTimeoutMs && step_signals_ < 2) {
      step_signals_ = 2;
      kill(step_pid_, SIGKILL);
    } else if (waited_ms >= kStepExitTimeoutMs && step_signals_ < 1) {
      step_signals_ = 1;
      FTMPI_LOG(kInfo, "ftmpirun", "the daemon step outlives its daemons' links; ending it");
      kill(step_pid_, SIGTERM);
    }
  }
  loop_.after_ms(kStepCheckMs, [this] { step_watchdog(); });
}

}  // namespace ftmpi::rte
