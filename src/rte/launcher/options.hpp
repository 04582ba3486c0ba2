// ftmpirun's command line, parsed by a pure function (no I/O, environment
// passed in) so that every rule is unit-tested.
//
//   ftmpirun [-np|-n|-c|--np N] [--host h1[:slots],h2 | --hostfile F]
//            [--tag-output] [--ft-comm-mode=abort|rebuild|blank|shrink]
//            [--ft-msg-mode=reset|cont] [--ft-coll-mode=atomic|nonatomic]
//            [--ft-recovery-mode=auto|manual|ignore] [--ft-transparent[=pessimist]]
//            [--inject SPEC]...
//            [--inject-seed N] [--timeline FILE] [--summary] [--launch-agent CMD]
//            [-x VAR[=value]]... [--heartbeat-ms N] [--heartbeat-timeout-ms N]
//            [--timeout SECONDS] [--ckpt-interval=T|auto] [--ckpt-store=local|buddy|disk:DIR]
//            [--ckpt-policy=round-robin|adaptive] [--ckpt-log-trigger=SIZE]
//            [--ckpt-max-concurrent=N] [--mtbf=T] [--ckpt-keep] [--] prog [args...]
//   ftmpirun --kill [JOB:]RANK[,RANK...]        ftmpirun --jobs
//
// Options take their value as the next argument or after '='. The modes are
// also read from FTMPI_COMM_MODE, FTMPI_MSG_MODE, FTMPI_COLL_MODE and
// FTMPI_RECOVERY_MODE, transparent mode from FTMPI_TRANSPARENT, the time
// limit from MPIEXEC_TIMEOUT (as MPICH and Open MPI do); an option wins over
// the variable. Transparent mode together with any FT-MPI mode setting
// (option or variable) is refused.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "rte/launcher/ckpt_options.hpp"
#include "rte/launcher/inject.hpp"
#include "rte/proto/modes.hpp"

namespace ftmpi::rte {

struct HostSpec {
  std::string name;
  int slots = 0;  // 0: not given (counts as 1 for placement)
  friend bool operator==(const HostSpec&, const HostSpec&) = default;
};

struct LaunchOptions {
  int np = 0;  // 0: not given; see resolve_np()
  std::vector<HostSpec> hosts;  // from --host
  std::string hostfile;         // from --hostfile (read by the caller)
  bool tag_output = false;
  Modes modes;
  std::string program;
  std::vector<std::string> args;
  bool help = false;
  bool version = false;
  std::vector<InjectSpec> injects;  // --inject (repeatable)
  bool inject_seed_set = false;
  uint64_t inject_seed = 0;
  std::string timeline;  // --timeline FILE
  bool summary = false;  // --summary: always print the one-line summary
  // Remote hosts: `AGENT HOST ftmpid ...` starts the daemon there (default "ssh").
  std::string launch_agent = "ssh";
  std::vector<std::string> export_env;  // -x NAME or -x NAME=value, in order
  int heartbeat_ms = 0;                 // --heartbeat-ms (0: FTMPI_HEARTBEAT_MS or 200)
  int heartbeat_timeout_ms = 0;         // --heartbeat-timeout-ms (0: FTMPI_HEARTBEAT_TIMEOUT_MS or 1000)
  int timeout_s = 0;                    // --timeout or MPIEXEC_TIMEOUT: seconds the job may run (0: no limit)
  CkptOptions ckpt;                     // --ckpt-* and --mtbf (transparent mode; ckpt_options.hpp)
  // Commands about other jobs (no program is started).
  std::string kill_target;  // --kill [JOB:]RANK[,RANK...]
  bool list_jobs = false;   // --jobs
};

struct ParseOutcome {
  bool ok = false;
  std::string error;  // one line, without the "ftmpirun: " prefix
  LaunchOptions opts;
};

using EnvLookup = std::function<const char*(const char* name)>;

ParseOutcome parse_command_line(const std::vector<std::string>& args, const EnvLookup& env);
// np when -np was not given: the hosts' slot count, or 1 with no hosts.
int resolve_np(const LaunchOptions& o, const std::vector<HostSpec>& hosts);
const char* usage_text();

}  // namespace ftmpi::rte
