// How the launcher starts one daemon per host. The local agent forks ftmpid
// directly; a remote agent (ssh, later) will run the same command line on the
// other host and feed the secret through ssh's stdin. Either way the daemon
// connects back to the launcher and authenticates, so the launcher does not
// care how it was started beyond watching the local process it got.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/auth.hpp"

namespace ftmpi::rte {

struct DaemonLaunch {
  int32_t host = 0;
  std::string host_name;
  std::string bind_addr;      // address the daemon listens on for other daemons
  std::string launcher_addr;  // where to connect back
  uint16_t launcher_port = 0;
  std::string job_id;         // shows in process lists only
  auth::Secret secret{};
  bool remote = false;        // not this machine: through the remote agent
};

class LaunchAgent {
 public:
  virtual ~LaunchAgent() = default;
  // Starts the daemon; returns a local process to watch (the daemon itself,
  // or e.g. its ssh), or -1 with err filled.
  virtual pid_t start(const DaemonLaunch& d, std::string& err) = 0;
  // An agent that starts every daemon with one command (srun: one job step,
  // one task per node) says so; the launcher then calls start_all() once, and
  // the returned process stands for all daemons (its end is not a host's loss:
  // each daemon's link is watched as usual).
  virtual bool starts_all_at_once() const { return false; }
  virtual pid_t start_all(const std::vector<DaemonLaunch>& all, std::string& err);
};

// Forks ftmpid on this machine, in its own session (so the terminal's Ctrl-C
// reaches only ftmpirun, which then ends the job in order) and with
// PR_SET_PDEATHSIG(SIGTERM) as a second line of defence behind the TCP link.
class LocalAgent : public LaunchAgent {
 public:
  explicit LocalAgent(std::string daemon_path) : daemon_path_(std::move(daemon_path)) {}
  pid_t start(const DaemonLaunch& d, std::string& err) override;

 private:
  std::string daemon_path_;
};

// Runs `AGENT... HOST ftmpid ARGS...` (ssh by default, or e.g. a wrapper
// around `ip netns exec`), with the secret on the agent's stdin, which ssh
// carries to the daemon. The daemon path is the same on every host (as
// with Open MPI's prefix); FTMPI_DAEMON overrides it.
class RemoteAgent : public LaunchAgent {
 public:
  RemoteAgent(std::string agent_command, std::string daemon_path);
  pid_t start(const DaemonLaunch& d, std::string& err) override;

 private:
  std::vector<std::string> agent_;
  std::string daemon_path_;
};

// Local hosts through `local`, the others through `remote`.
class HostAgents : public LaunchAgent {
 public:
  HostAgents(LaunchAgent& local, LaunchAgent& remote) : local_(local), remote_(remote) {}
  pid_t start(const DaemonLaunch& d, std::string& err) override {
    return d.remote ? remote_.start(d, err) : local_.start(d, err);
  }

 private:
  LaunchAgent& local_;
  LaunchAgent& remote_;
};

// $FTMPI_DAEMON, else "ftmpid" next to this executable (/proc/self/exe).
std::string find_daemon_executable();
// The daemon's command line (shared by all agents).
std::vector<std::string> daemon_argv(const std::string& daemon_path, const DaemonLaunch& d);
// Starts argv in its own session with the secret as one hex line on its
// stdin (what every agent does with its command).
pid_t spawn_with_secret(std::vector<std::string> argv, const auth::Secret& secret, std::string& err);

}  // namespace ftmpi::rte
