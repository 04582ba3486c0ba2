#include "rte/launcher/options.hpp"

#include <cstddef>
#include <cstdlib>

#include "rte/common/shown.hpp"
#include "rte/launcher/hosts.hpp"

namespace ftmpi::rte {
namespace {

bool parse_positive(const std::string& s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  out = std::atoi(s.c_str());
  return out > 0;
}

// The mode options: name on the command line, environment variable, accepted values.
struct ModeOption {
  const char* option;
  const char* env;
  const char* values;
  std::function<bool(const std::string&, Modes&)> set;
};

const std::vector<ModeOption>& mode_options() {
  static const std::vector<ModeOption> opts = {
      {"--ft-comm-mode", "FTMPI_COMM_MODE", "abort, rebuild, blank or shrink",
       [](const std::string& v, Modes& m) { return parse_mode(v, m.comm); }},
      {"--ft-msg-mode", "FTMPI_MSG_MODE", "reset or cont",
       [](const std::string& v, Modes& m) { return parse_mode(v, m.msg); }},
      {"--ft-coll-mode", "FTMPI_COLL_MODE", "atomic or nonatomic",
       [](const std::string& v, Modes& m) { return parse_mode(v, m.coll); }},
      {"--ft-recovery-mode", "FTMPI_RECOVERY_MODE", "auto, manual or ignore",
       [](const std::string& v, Modes& m) { return parse_mode(v, m.recovery); }},
  };
  return opts;
}

}  // namespace

ParseOutcome parse_command_line(const std::vector<std::string>& args, const EnvLookup& env) {
  ParseOutcome out;
  LaunchOptions& o = out.opts;
  auto fail = [&](std::string msg) {
    out.ok = false;
    out.error = std::move(msg);
    return out;
  };
  // The first FT-MPI mode setting seen, for the refusal of transparent mode with it.
  std::string ft_mode_given;
  for (const ModeOption& m : mode_options()) {
    const char* v = env(m.env);
    if (v && *v && !m.set(v, o.modes))
      return fail(std::string(m.env) + "=" + shown(v, false) + " is not a mode; expected " + m.values);
    if (v && *v && ft_mode_given.empty()) ft_mode_given = std::string(m.env) + "=" + shown(v, false);
  }
  std::string transparent_given;
  if (const char* v = env("FTMPI_TRANSPARENT"); v && *v) {
    if (!parse_mode(v, o.modes.transparent))
      return fail("FTMPI_TRANSPARENT=" + shown(v, false) + " is not a protocol; expected pessimist (or 1)");
    transparent_given = "FTMPI_TRANSPARENT=" + shown(v, false);
  }
  if (const char* t = env("MPIEXEC_TIMEOUT"); t && *t && !parse_positive(t, o.timeout_s))
    return fail("MPIEXEC_TIMEOUT=" + shown(t, false) + " is not a number of seconds");
  bool have_hosts = false;
  size_t i = 0;
  // Splits "--opt=value" / "--opt value"; true if `a` is `name` in either form.
  auto takes = [&](const std::string& a, std::initializer_list<const char*> names, std::string& value,
                   bool& missing) {
    for (const char* n : names) {
      std::string name = n;
      if (a == name) {
        missing = i + 1 >= args.size();
        if (!missing) value = args[++i];
        return true;
      }
      if (a.compare(0, name.size() + 1, name + "=") == 0) {
        value = a.substr(name.size() + 1);
        missing = false;
        return true;
      }
    }
    return false;
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    std::string v;
    bool missing = false;
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (a == "--tag-output") {
      o.tag_output = true;
    } else if (takes(a, {"-np", "-n", "-c", "--np", "--n"}, v, missing)) {
      if (missing) return fail(a + " needs a number of processes");
      if (!parse_positive(v, o.np)) return fail("the number of processes must be a positive integer, not " + shown(v));
    } else if (takes(a, {"--host", "-H", "-host"}, v, missing)) {
      if (missing) return fail(a + " needs a host list");
      std::string err;
      std::vector<HostSpec> more;
      if (!parse_host_list(v, more, err)) return fail(err);
      o.hosts.insert(o.hosts.end(), more.begin(), more.end());
      have_hosts = true;
    } else if (takes(a, {"--hostfile", "-hostfile", "--machinefile", "-machinefile"}, v, missing)) {
      if (missing || v.empty()) return fail(a + " needs a file name");
      o.hostfile = v;
    } else if (takes(a, {"--inject"}, v, missing)) {
      if (missing) return fail("--inject needs a spec, e.g. 'kill rank=3 at=2.5s'");
      InjectSpec spec;
      std::string err;
      if (!parse_inject(v, spec, err)) return fail(err);
      o.injects.push_back(std::move(spec));
    } else if (takes(a, {"--inject-seed"}, v, missing)) {
      if (missing || v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
        return fail("--inject-seed needs a non-negative integer");
      o.inject_seed = std::strtoull(v.c_str(), nullptr, 10);
      o.inject_seed_set = true;
    } else if (takes(a, {"--timeline"}, v, missing)) {
      if (missing || v.empty()) return fail("--timeline needs a file name");
      o.timeline = v;
    } else if (takes(a, {"--launch-agent", "--mca-plm-rsh-agent"}, v, missing)) {
      if (missing || v.find_first_not_of(" \t") == std::string::npos) return fail("--launch-agent needs a command");
      o.launch_agent = v;
    } else if (takes(a, {"-x"}, v, missing)) {
      std::string name = v.substr(0, v.find('='));
      if (missing || name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        return fail("-x needs a variable name, NAME or NAME=value");
      o.export_env.push_back(v);
    } else if (takes(a, {"--heartbeat-ms"}, v, missing)) {
      if (missing || !parse_positive(v, o.heartbeat_ms)) return fail("--heartbeat-ms needs a positive number");
    } else if (takes(a, {"--heartbeat-timeout-ms"}, v, missing)) {
      if (missing || !parse_positive(v, o.heartbeat_timeout_ms))
        return fail("--heartbeat-timeout-ms needs a positive number");
    } else if (takes(a, {"--timeout"}, v, missing)) {
      if (missing || !parse_positive(v, o.timeout_s)) return fail("--timeout needs a positive number of seconds");
    } else if (a == "--ft-transparent" || a.rfind("--ft-transparent=", 0) == 0) {
      // The value is optional (a bare option means the default protocol), so
      // the next argument is never taken as it.
      std::string p = a.size() > 16 ? a.substr(17) : "pessimist";
      if (!parse_mode(p, o.modes.transparent))
        return fail("--ft-transparent=" + p + " is not a protocol; expected pessimist");
      transparent_given = shown(a, false);
    } else if (a == "--summary") {
      o.summary = true;
    } else if (takes(a, {"--kill"}, v, missing)) {
      if (missing || v.empty()) return fail("--kill needs [JOB:]RANK[,RANK...]");
      o.kill_target = v;
    } else if (a == "--jobs") {
      o.list_jobs = true;
    } else if (bool used_next = false; a.rfind("--ckpt-", 0) == 0 || a.rfind("--mtbf", 0) == 0) {
      std::string err;
      const std::string* next = i + 1 < args.size() ? &args[i + 1] : nullptr;
      if (!take_ckpt_option(a, next, o.ckpt, used_next, err)) return fail("unknown option " + shown(a));
      if (!err.empty()) return fail(err);
      if (used_next) ++i;
    } else {
      bool matched = false;
      for (const ModeOption& m : mode_options()) {
        if (!takes(a, {m.option}, v, missing)) continue;
        matched = true;
        if (missing) return fail(std::string(m.option) + " needs a value: " + m.values);
        if (!m.set(v, o.modes))
          return fail(std::string(m.option) + "=" + shown(v, false) + " is not a mode; expected " + m.values);
        ft_mode_given = std::string(m.option) + "=" + shown(v, false);
        break;
      }
      if (!matched) return fail("unknown option " + shown(a));
    }
  }
  if (have_hosts && !o.hostfile.empty()) return fail("use either --host or --hostfile, not both");
  if (o.modes.transparent_mode() && !ft_mode_given.empty())
    return fail(transparent_given + " and " + ft_mode_given +
                " exclude each other: transparent mode hides failures, the FT-MPI modes report them");
  if (std::string err = check_ckpt_options(o.ckpt, o.modes.transparent_mode()); !err.empty()) return fail(err);
  if (o.heartbeat_ms > 0 && o.heartbeat_timeout_ms > 0 && o.heartbeat_timeout_ms <= o.heartbeat_ms)
    return fail("--heartbeat-timeout-ms must be larger than --heartbeat-ms");
  if (o.help || o.version || !o.kill_target.empty() || o.list_jobs) {
    out.ok = true;
    return out;
  }
  if (i >= args.size()) return fail("no program to run");
  o.program = args[i];
  o.args.assign(args.begin() + static_cast<ptrdiff_t>(i) + 1, args.end());
  out.ok = true;
  return out;
}

int resolve_np(const LaunchOptions& o, const std::vector<HostSpec>& hosts) {
  if (o.np > 0) return o.np;
  int n = 0;
  for (const HostSpec& h : hosts) n += h.slots > 0 ? h.slots : 1;
  return n > 0 ? n : 1;
}

const char* usage_text() {
  return "usage: ftmpirun [options] [--] program [args...]\n"
         "  -np, -n, -c, --np N        number of processes (default: the hosts' slots, or 1)\n"
         "  --host h1[:slots],h2,...    hosts to run on (default: this host)\n"
         "  --hostfile FILE             hosts, one per line: 'name [slots=N]' or 'name:N'\n"
         "  --tag-output                prefix every output line with [rank]\n"
         "  --ft-comm-mode=MODE         abort (default), rebuild, blank or shrink  (FTMPI_COMM_MODE)\n"
         "  --ft-msg-mode=MODE          reset (default) or cont                   (FTMPI_MSG_MODE)\n"
         "  --ft-coll-mode=MODE         nonatomic (default) or atomic             (FTMPI_COLL_MODE)\n"
         "  --ft-recovery-mode=MODE     manual (default), auto or ignore          (FTMPI_RECOVERY_MODE)\n"
         "  --ft-transparent[=pessimist] transparent mode: dead processes are restarted and replayed,\n"
         "                                the program sees no failure (FTMPI_TRANSPARENT=1 or pessimist);\n"
         "                                not together with the --ft-*-mode options\n"
         "  --ckpt-interval=T|auto      transparent mode: checkpoint every process once per T (30s, 500ms,\n"
         "                                2m); auto: Daly's interval from the measured cost and --mtbf\n"
         "  --ckpt-store=STORE          where images are kept: local (default; a frozen copy of the\n"
         "                                process), memory (written by the process itself into this\n"
         "                                host's /dev/shm, no fork), buddy (also in another host's\n"
         "                                daemon's memory) or disk:DIR (also in DIR/JOB.rRANK.cN.img)\n"
         "  --ckpt-keep                 keep the disk images after a normal end (default: removed)\n"
         "  --ckpt-policy=POLICY        round-robin (default) or adaptive (received/sent ratio first)\n"
         "  --ckpt-log-trigger=SIZE     checkpoint a process whose peers hold SIZE (64m) logged for it\n"
         "  --ckpt-max-concurrent=N     processes checkpointing at once (default 2)\n"
         "  --ckpt-gc=on|off            after each checkpoint, drop the log entries and determinants its\n"
         "                                image no longer needs (default on; a process that dies after\n"
         "                                that with no image to wake cannot restart: the job ends)\n"
         "  --mtbf=T                    mean time between failures, for --ckpt-interval=auto (2h, 45m)\n"
         "  --inject SPEC               fault injection, repeatable; times count from the end of MPI_Init:\n"
         "                                'kill rank=R [at=T] [every=P count=N]', 'kill random [at=T]\n"
         "                                [every=P] [count=N]', 'kill host=NAME [at=T]' (T, P: 2.5s, 300ms)\n"
         "  --inject-seed N             seed for 'kill random' (default: chosen and recorded in the timeline)\n"
         "  --timeline FILE             every runtime event as JSON lines (t = seconds since start)\n"
         "  --summary                   always print the summary line (failures, rounds, time recovering)\n"
         "  --launch-agent CMD          how daemons start on other hosts: 'CMD HOST ftmpid ...' (default ssh)\n"
         "  -x NAME[=value]             export a variable to the processes (FTMPI_* are always exported)\n"
         "  --heartbeat-ms N            runtime heartbeat period (default 200, FTMPI_HEARTBEAT_MS)\n"
         "  --heartbeat-timeout-ms N    silence after which a host is lost (default 1000,\n"
         "                                FTMPI_HEARTBEAT_TIMEOUT_MS)\n"
         "  --timeout N                 end the job after N seconds, exit status 124 (MPIEXEC_TIMEOUT)\n"
         "  --kill [JOB:]RANK[,RANK...] SIGKILL ranks of a running job of yours, all at once (JOB: see\n"
         "                                --jobs); none if one of them is not running\n"
         "  --jobs                      list your running jobs\n"
         "  -h, --help                  this text\n"
         "  --version                   print the version\n"
         "Environment: FTMPI_SHM_SIZE (shared memory per host), FTMPI_KILL_GRACE_MS (SIGTERM to\n"
         "SIGKILL delay, default 1000), FTMPI_MAX_RESPAWN (REBUILD: failures of one rank without a\n"
         "completed recovery before the job gives up, default 10), FTMPI_DAEMON (path of ftmpid),\n"
         "FTMPI_DEBUG (0-3).\n";
}

}  // namespace ftmpi::rte
