// Child processes of the runtime: fork/exec (daemons started by the launcher, ranks
// started by a daemon) with exactly the fds, process group and parent-death
// signal we intend. Everything the child needs is prepared before fork, so
// the child only makes system calls.
#pragma once
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

struct SpawnRequest {
  std::vector<std::string> argv;  // argv[0]: program, searched in PATH if it has no '/'
  std::vector<std::string> env;   // the complete environment, "NAME=value"
  std::vector<std::pair<int, int>> dup_to;  // parent fd -> child fd (e.g. pipe ends -> 0, 1, 2)
  std::vector<int> inherit;  // fds kept open at the same number; every other fd >= 3 is closed
  std::string cwd;           // empty: the parent's
  int parent_death_signal = 0;
  enum class Group { kInherit, kOwnGroup, kOwnSession } group = Group::kInherit;
  std::string who;  // for the exec-failure message, e.g. "ftmpid"
  // personality(ADDR_NO_RANDOMIZE) before exec: the program's mappings land
  // at the same addresses in every run (transparent mode, DESIGN §8).
  bool no_aslr = false;
};

// Returns the child's pid or -1 (err says why). If exec fails the child
// writes "<who>: cannot execute '<prog>': <reason>" to its stderr and exits 127.
pid_t spawn(const SpawnRequest& req, std::string& err);

// Why spawn() would fail to execute `prog` (searched in `path`, the PATH the
// child gets, as execvp does), or "" if it would find an executable file.
std::string exec_problem(const std::string& prog, const std::string& path);

// A pidfd for a child (readable once it exited), or -1.
int open_pidfd(pid_t pid);
// Reaps an exited child without blocking; false if it has not exited yet.
bool reap(pid_t pid, proto::ExitInfo& out);
// The current environment with `overrides` ("NAME=value") replacing or added.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides);

// "was killed by signal 9 (SIGKILL)" / "exited with status 3".
std::string describe_exit(const proto::ExitInfo& e);
// The job's exit status when this ending ends it: the status itself, 128+signal,
// and 1 for an exit 0 that came too early or a lost process.
int failure_exit_code(const proto::ExitInfo& e);
std::string signal_name(int sig);  // "SIGKILL", or "signal 64"

}  // namespace ftmpi::rte
