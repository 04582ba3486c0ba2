// ftmpid entry point. Started by ftmpirun (or, later, by a launch agent such as
// ssh) as
//     ftmpid --launcher ADDR:PORT --host-index N --bind ADDR [--job ID]
// or, when one command starts the daemons of every node (srun), with
// --host-by-node NAME0,NAME1,... instead of --host-index: the index of this
// node's Slurm name (SLURMD_NODENAME) in that list.
// with the job secret as one hex line on stdin: never on the command line or
// in the environment, where other users could read it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/auth.hpp"
#include "base/log.hpp"
#include "rte/daemon/daemon.hpp"

namespace {

bool read_secret_line(ftmpi::auth::Secret& out) {
  std::string line;
  for (;;) {
    pollfd p{0, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    char c;
    ssize_t r = ::read(0, &c, 1);
    if (r <= 0) return false;
    if (c == '\n') break;
    line.push_back(c);
    if (line.size() > 128) return false;
  }
  return ftmpi::auth::from_hex(line, out);
}

// Index of $SLURMD_NODENAME in the comma-separated list, -1 if absent.
int host_index_by_node(const std::string& names) {
  const char* me = std::getenv("SLURMD_NODENAME");
  if (!me || !*me) return -1;
  int i = 0;
  size_t start = 0;
  for (;;) {
    size_t comma = names.find(',', start);
    if (names.compare(start, comma - start, me) == 0) return i;
    if (comma == std::string::npos) return -1;
    start = comma + 1;
    ++i;
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: ftmpid --launcher ADDR:PORT --host-index N --bind ADDR [--job ID]\n"
               "  (started by ftmpirun; reads the job secret from stdin)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  ftmpi::rte::DaemonArgs args;
  bool have_launcher = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    std::string v = argv[++i];
    if (a == "--launcher") {
      size_t colon = v.rfind(':');
      if (colon == std::string::npos) return usage();
      args.launcher_addr = v.substr(0, colon);
      args.launcher_port = static_cast<uint16_t>(std::atoi(v.c_str() + colon + 1));
      have_launcher = args.launcher_port != 0;
    } else if (a == "--host-index") {
      args.host = std::atoi(v.c_str());
    } else if (a == "--host-by-node") {
      args.host = host_index_by_node(v);
      if (args.host < 0) {
        std::fprintf(stderr, "ftmpid: this node (SLURMD_NODENAME=%s) is not in the job's node list %s\n",
                     std::getenv("SLURMD_NODENAME") ? std::getenv("SLURMD_NODENAME") : "", v.c_str());
        return 1;
      }
    } else if (a == "--bind") {
      args.bind_addr = v;
    } else if (a == "--job") {
      // Only for people and tests looking at process lists.
    } else {
      return usage();
    }
  }
  if (!have_launcher || args.host < 0) return usage();
  std::string ident = "ftmpid@host" + std::to_string(args.host);
  ftmpi::log::set_identity(ident.c_str());

  ftmpi::auth::Secret secret;
  if (!read_secret_line(secret)) {
    FTMPI_LOG(kError, "ftmpid", "no job secret on stdin");
    return 1;
  }
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull >= 0) {
    dup2(devnull, 0);
    close(devnull);
  }
  signal(SIGPIPE, SIG_IGN);
  ftmpi::rte::Daemon daemon(args, secret);
  return daemon.run();
}
