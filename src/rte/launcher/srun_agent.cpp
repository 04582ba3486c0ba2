#include "rte/launcher/srun_agent.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace ftmpi::rte {

std::vector<std::string> srun_daemon_argv(const std::string& srun_path, const std::string& daemon_path,
                                          const std::vector<DaemonLaunch>& all) {
  std::string nodes;
  for (const DaemonLaunch& d : all) nodes += (nodes.empty() ? "" : ",") + d.host_name;
  const std::string n = std::to_string(all.size());
  // One command for every node: a common bind address, or each daemon's own
  // address towards the launcher.
  std::string bind = all.front().bind_addr;
  for (const DaemonLaunch& d : all)
    if (d.bind_addr != bind) bind = "auto";
  const DaemonLaunch& first = all.front();
  return {srun_path,
          "--nodes=" + n,
          "--ntasks=" + n,
          "--ntasks-per-node=1",
          "--nodelist=" + nodes,
          "--kill-on-bad-exit=0",  // a daemon's death is a lost host, not the end of the step
          "--no-kill",             // nor is a node's
          "--input=all",           // the secret line reaches every daemon
          "--mpi=none",            // the daemons are not MPI processes
          "--cpu-bind=none",       // the ranks they fork use the whole node
          "--whole",
          "--overlap",             // and leave the allocation's CPUs to other steps
          "--quiet",
          "--job-name=ftmpid",
          daemon_path,
          "--launcher",
          first.launcher_addr + ":" + std::to_string(first.launcher_port),
          "--host-by-node",
          nodes,
          "--bind",
          bind,
          "--job",
          first.job_id};
}

std::string find_srun() {
  const char* env = std::getenv("FTMPI_SRUN");
  if (env && *env) return env;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string p = (dir.empty() ? "." : dir) + "/srun";
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

pid_t SrunAgent::start(const DaemonLaunch& d, std::string& err) { return start_all({d}, err); }

pid_t SrunAgent::start_all(const std::vector<DaemonLaunch>& all, std::string& err) {
  if (all.empty()) {
    err = "no hosts";
    return -1;
  }
  return spawn_with_secret(srun_daemon_argv(srun_, daemon_path_, all), all.front().secret, err);
}

}  // namespace ftmpi::rte
