#include "rte/launcher/launch_agent.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "base/fd.hpp"
#include "rte/common/process.hpp"

namespace ftmpi::rte {

std::string find_daemon_executable() {
  const char* env = std::getenv("FTMPI_DAEMON");
  if (env && *env) return env;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "ftmpid";
  std::string self(buf, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/') + 1) + "ftmpid";
}

std::vector<std::string> daemon_argv(const std::string& daemon_path, const DaemonLaunch& d) {
  return {daemon_path,
          "--launcher",
          d.launcher_addr + ":" + std::to_string(d.launcher_port),
          "--host-index",
          std::to_string(d.host),
          "--bind",
          d.bind_addr,
          "--job",
          d.job_id};
}

pid_t LaunchAgent::start_all(const std::vector<DaemonLaunch>&, std::string& err) {
  err = "this launch agent starts daemons one by one";
  return -1;
}

pid_t spawn_with_secret(std::vector<std::string> argv, const auth::Secret& secret, std::string& err) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    err = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  SpawnRequest req;
  req.argv = std::move(argv);
  req.env = environment_with({});
  req.dup_to = {{p[0], 0}};
  req.parent_death_signal = SIGTERM;
  req.group = SpawnRequest::Group::kOwnSession;
  req.who = "ftmpirun";
  pid_t pid = spawn(req, err);
  ::close(p[0]);
  if (pid > 0) {
    // 65 bytes always fit in an empty pipe, so this cannot block.
    std::string line = auth::to_hex(secret) + "\n";
    if (!fd::write_all(p[1], line.data(), line.size())) err = "cannot pass the secret to ftmpid";
  }
  ::close(p[1]);
  return pid;
}

pid_t LocalAgent::start(const DaemonLaunch& d, std::string& err) {
  return spawn_with_secret(daemon_argv(daemon_path_, d), d.secret, err);
}

RemoteAgent::RemoteAgent(std::string agent_command, std::string daemon_path) : daemon_path_(std::move(daemon_path)) {
  std::istringstream words(agent_command);
  std::string w;
  while (words >> w) agent_.push_back(w);
}

pid_t RemoteAgent::start(const DaemonLaunch& d, std::string& err) {
  if (agent_.empty()) {
    err = "empty launch agent";
    return -1;
  }
  std::vector<std::string> argv = agent_;
  argv.push_back(d.host_name);
  for (const std::string& a : daemon_argv(daemon_path_, d)) argv.push_back(a);
  return spawn_with_secret(std::move(argv), d.secret, err);
}

}  // namespace ftmpi::rte
