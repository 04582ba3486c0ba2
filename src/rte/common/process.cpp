#include "rte/common/process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "rte/common/event_loop.hpp"
#include "rte/common/shown.hpp"

extern char** environ;

namespace ftmpi::rte {
namespace {

std::vector<char*> c_array(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// One write(), so that a signal cannot leave half a line behind. The
// program's name is cut (shown.hpp) before the fork: the child only formats.
[[noreturn]] void child_fail(const SpawnRequest& req, const std::string& prog, const char* what) {
  int saved = errno;
  char msg[512];
  int n = snprintf(msg, sizeof msg, "%s: %s %s: %s\n", req.who.c_str(), what, prog.c_str(), strerror(saved));
  if (n > static_cast<int>(sizeof msg) - 1) {
    n = static_cast<int>(sizeof msg) - 1;
    msg[n - 1] = '\n';
  }
  ssize_t ignored = ::write(2, msg, static_cast<size_t>(n));
  (void)ignored;
  _exit(127);
}

}  // namespace

pid_t spawn(const SpawnRequest& req, std::string& err) {
  if (req.argv.empty()) {
    err = "empty command";
    return -1;
  }
  std::vector<char*> argv = c_array(req.argv);
  std::vector<char*> envp = c_array(req.env);
  const std::string prog = shown(req.argv[0]);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    err = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid > 0) {
    // Also set the group from the parent so that a kill(-pid) right after
    // spawn() cannot miss the child.
    if (req.group == SpawnRequest::Group::kOwnGroup) setpgid(pid, pid);
    return pid;
  }
  // ---- child ----
  reset_signals_in_child();
  if (req.group == SpawnRequest::Group::kOwnGroup) setpgid(0, 0);
  if (req.group == SpawnRequest::Group::kOwnSession) setsid();
  if (req.parent_death_signal) {
    prctl(PR_SET_PDEATHSIG, req.parent_death_signal);
    if (getppid() != parent) _exit(1);  // the parent died before prctl took effect
  }
  for (auto [from, to] : req.dup_to) {
    if (from == to) {
      fcntl(to, F_SETFD, 0);
    } else if (dup2(from, to) < 0) {
      child_fail(req, prog, "cannot set up fds for");
    }
  }
  close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
  for (int fd : req.inherit) fcntl(fd, F_SETFD, 0);
  if (!req.cwd.empty() && chdir(req.cwd.c_str()) != 0) child_fail(req, prog, "cannot change to the directory of");
  if (req.no_aslr) {
    int cur = personality(0xffffffff);
    if (cur == -1 || personality(static_cast<unsigned long>(cur) | ADDR_NO_RANDOMIZE) == -1)
      child_fail(req, prog, "cannot turn address randomisation off for");
  }
  execvpe(argv[0], argv.data(), envp.data());
  child_fail(req, prog, "cannot execute");
}

std::string exec_problem(const std::string& prog, const std::string& path) {
  auto check = [](const std::string& file) {
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EACCES;
    return access(file.c_str(), X_OK) == 0 ? 0 : errno;
  };
  if (prog.empty()) return std::strerror(ENOENT);
  if (prog.find('/') != std::string::npos) {
    int e = check(prog);
    return e ? std::strerror(e) : "";
  }
  // execvp: an entry that exists but cannot run is EACCES unless a later one runs.
  int found = ENOENT;
  std::string dirs = path.empty() ? "/bin:/usr/bin" : path;
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(at, end - at);
    int e = check((dir.empty() ? "." : dir) + "/" + prog);
    if (e == 0) return "";
    if (e == EACCES) found = EACCES;
    at = end + 1;
  }
  return std::strerror(found);
}

int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

bool reap(pid_t pid, proto::ExitInfo& out) {
  siginfo_t si{};
  for (;;) {
    if (waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG) == 0) break;
    if (errno != EINTR) return false;
  }
  if (si.si_pid == 0) return false;
  if (si.si_code == CLD_EXITED) {
    out.how = proto::ExitInfo::kExited;
    out.value = si.si_status;
  } else {
    out.how = proto::ExitInfo::kSignaled;
    out.value = si.si_status;
  }
  return true;
}

std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    std::string name = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const auto& o : overrides)
      if (o.compare(0, name.size() + 1, name + "=") == 0) replaced = true;
    if (!replaced) env.push_back(std::move(kv));
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::string describe_exit(const proto::ExitInfo& e) {
  switch (e.how) {
    case proto::ExitInfo::kExited: return "exited with status " + std::to_string(e.value);
    case proto::ExitInfo::kSignaled:
      return "was killed by signal " + std::to_string(e.value) + " (" + signal_name(e.value) + ")";
    default: return "was lost with its daemon";
  }
}

int failure_exit_code(const proto::ExitInfo& e) {
  if (e.how == proto::ExitInfo::kSignaled) return 128 + e.value;
  if (e.how == proto::ExitInfo::kExited && e.value != 0) return e.value;
  return 1;
}

}  // namespace ftmpi::rte
