// ftmpirun entry point: parse, place ranks on hosts, start the launcher.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "rte/common/limits.hpp"
#include "rte/common/process.hpp"
#include "rte/common/shown.hpp"
#include "rte/launcher/contact.hpp"
#include "rte/launcher/hosts.hpp"
#include "rte/launcher/launch_agent.hpp"
#include "rte/launcher/launcher.hpp"
#include "rte/launcher/options.hpp"
#include "rte/launcher/slurm_alloc.hpp"
#include "rte/launcher/srun_agent.hpp"

namespace {

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "ftmpirun: %s\nRun 'ftmpirun --help' for usage.\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ftmpi::rte;
  ftmpi::log::set_identity("ftmpirun");
  std::vector<std::string> args(argv + 1, argv + argc);
  ParseOutcome parsed = parse_command_line(args, [](const char* n) { return std::getenv(n); });
  if (!parsed.ok) return usage_error(parsed.error);
  const LaunchOptions& o = parsed.opts;
  if (o.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  if (o.version) {
    std::puts("ftmpirun (ftmpi) 0.1.0");
    return 0;
  }
  if (!o.kill_target.empty()) return run_kill_command(o.kill_target);
  if (o.list_jobs) return run_jobs_command();
  std::vector<HostSpec> hosts = o.hosts;
  std::string err;
  if (!o.hostfile.empty() && !read_hostfile(o.hostfile, hosts, err)) return usage_error(err);
  // Inside a Slurm allocation: its nodes and slots unless --host/--hostfile
  // say otherwise, and the daemons through srun when every host is one of its
  // nodes (FTMPI_SLURM=0: never).
  SlurmAllocation alloc;
  const char* use_slurm = std::getenv("FTMPI_SLURM");
  if (!(use_slurm && std::string(use_slurm) == "0") &&
      !read_slurm_allocation([](const char* n) { return std::getenv(n); }, alloc, err))
    return usage_error(err);
  if (alloc.inside && hosts.empty()) hosts = alloc.hosts;
  bool through_srun = alloc.inside && !hosts.empty();
  for (const HostSpec& h : hosts) {
    bool in_alloc = false;
    for (const HostSpec& a : alloc.hosts) in_alloc |= a.name == h.name;
    through_srun &= in_alloc;
  }
  int np = resolve_np(o, hosts);
  std::string me = my_hostname();
  std::vector<HostPlan> plans;
  for (PlacedHost& p : place_ranks(hosts, np, me)) {
    bool remote = !is_local_host(p.name, me);
    plans.push_back(HostPlan{p.name, remote ? p.name : local_bind_address(p.name), remote, std::move(p.slots)});
  }
  for (const InjectSpec& spec : o.injects) {
    if (spec.target == InjectSpec::Target::kRank && spec.rank >= np)
      return usage_error("--inject " + shown(spec.text) + ": there is no rank " + std::to_string(spec.rank) +
                         " in a job of " + std::to_string(np));
    if (spec.target == InjectSpec::Target::kHost) {
      bool found = false;
      for (const HostPlan& p : plans) found |= p.name == spec.host;
      if (!found) return usage_error("--inject " + shown(spec.text) + ": no host " + shown(spec.host) + " in this job");
    }
  }
  // On this machine's hosts the ranks would fail to start: say it once,
  // before anything starts (remote hosts report per rank, from their daemon).
  bool any_local = false;
  long fd_limit = ftmpi::rte::raise_open_file_limit();
  for (const HostPlan& p : plans) {
    if (p.remote) continue;
    any_local = true;
    std::string problem = fd_limit_problem(static_cast<long>(p.slots.size()), p.name, fd_limit);
    if (!problem.empty()) {
      std::fprintf(stderr, "ftmpirun: %s\n", problem.c_str());
      return 1;
    }
  }
  if (any_local) {
    const char* path = std::getenv("PATH");
    std::string rank_path = path ? path : "";
    for (const std::string& x : o.export_env)
      if (x.rfind("PATH=", 0) == 0) rank_path = x.substr(5);
    std::string why = exec_problem(o.program, rank_path);
    if (!why.empty()) {
      std::fprintf(stderr, "ftmpirun: cannot execute %s: %s\n", shown(o.program).c_str(), why.c_str());
      return 127;
    }
  }
  std::string daemon = find_daemon_executable();
  if (access(daemon.c_str(), X_OK) != 0) return usage_error("cannot find the daemon at '" + daemon + "'");
  LocalAgent local(daemon);
  RemoteAgent remote(o.launch_agent, daemon);
  HostAgents agent(local, remote);
  std::string srun = through_srun ? find_srun() : "";
  if (through_srun && srun.empty())
    return usage_error("inside Slurm job " + alloc.job_id + " but srun is not on PATH (FTMPI_SRUN names it)");
  SrunAgent srun_agent(srun, daemon);
  Launcher launcher(o, std::move(plans), np, through_srun ? static_cast<LaunchAgent&>(srun_agent) : agent);
  return launcher.run();
}
