// ftmpid entry point. Started by ftmpirun (or, later, by a launch agent such as
// ssh) as
//     ftmpid --launcher ADDR:PORT --host-index N --bind ADDR [--job ID]
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
