#include "rte/common/limits.hpp"

#include <sys/resource.h>

namespace ftmpi::rte {
namespace {

// Descriptors of a process that do not depend on the job's size: stdio,
// epoll, listeners, the shared-memory segment, the runtime's links, and room
// for the application's own files.
constexpr long kFixedFds = 64;

}  // namespace

long raise_open_file_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return -1;
  if (r.rlim_cur < r.rlim_max) {
    rlimit up = r;
    up.rlim_cur = r.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &up) == 0) r = up;
  }
  return r.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long>(r.rlim_cur);
}

long daemon_fd_need(long local_ranks) { return 5 * local_ranks + kFixedFds; }

std::string fd_limit_problem(long local_ranks, const std::string& host, long limit) {
  if (limit < 0) return "";
  long need = daemon_fd_need(local_ranks);
  if (need <= limit) return "";
  return std::to_string(local_ranks) + " ranks on host " + host + " need about " + std::to_string(need) +
         " open files in its daemon, more than the limit of " + std::to_string(limit) +
         " (ulimit -n); use more hosts or fewer ranks per host";
}

}  // namespace ftmpi::rte
