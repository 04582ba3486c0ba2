// The buddy checkpoint server with real processes (spec/checkpoint-image.md
// §6): ckpt_victim streams its image to a CheckpointServer run here in an
// EventLoop, is SIGKILLed, and is restored twice: by a restorer this process
// starts with the held image as an inherited memfd (make_restorer, the way
// the daemon starts one), and by a restorer that fetched it over the network
// (buddy_get, the way a daemon on another host would). A corrupt and a torn
// stream are refused and do not replace the held image.
//
//   ckpt_buddy_test VICTIM
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "base/fd.hpp"
#include "modules/ckpt/image_buddy.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/common/process.hpp"
#include "rte/daemon/ckpt_server.hpp"

using namespace ftmpi;

namespace {

int g_failures = 0;
#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);     \
      std::fprintf(stderr, __VA_ARGS__);                            \
      std::fprintf(stderr, "\n");                                   \
      ++g_failures;                                                 \
    }                                                               \
  } while (0)

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs the loop until `pid` exits; returns its wait status.
int serve_until_exit(rte::EventLoop& loop, pid_t pid) {
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    loop.run_once(20);
  }
}

pid_t start(const std::vector<std::string>& argv, const std::vector<std::string>& env_over, int stdout_fd,
            int extra_fd = -1) {
  rte::SpawnRequest req;
  req.argv = argv;
  req.env = rte::environment_with(env_over);
  if (stdout_fd >= 0) req.dup_to.emplace_back(stdout_fd, 1);
  if (extra_fd >= 0) rte::make_restorer(req, extra_fd);
  req.who = "ckpt_buddy_test";
  std::string err;
  pid_t pid = rte::spawn(req, err);
  if (pid < 0) {
    std::fprintf(stderr, "spawn: %s\n", err.c_str());
    std::exit(2);
  }
  return pid;
}

// A child that sends `bytes` as image `number` of slot 0 and reports whether
// the server confirmed it (exit 0: STORED, 1: refused or unconfirmed).
pid_t put_raw(const std::string& bytes, uint16_t port, const auth::Secret& secret, uint64_t number) {
  pid_t pid = ::fork();
  if (pid == 0) {
    auto r = ckpt::buddy_put_begin("127.0.0.1", port, secret, 0, number, 5000);
    if (!r.ok()) ::_exit(3);
    fd::write_all(r.value(), bytes.data(), bytes.size());
    ::shutdown(r.value(), SHUT_WR);
    ::_exit(ckpt::buddy_put_finish(r.value(), 5000).ok() ? 0 : 1);
  }
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ckpt_buddy_test VICTIM\n");
    return 2;
  }
  std::string victim = argv[1];
  char tmpl[] = "/tmp/ckpt-buddy-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::string expected_path = dir + "/expected.txt", out = dir + "/out.txt", log = dir + "/stdout.txt";
  ::signal(SIGPIPE, SIG_IGN);

  rte::EventLoop loop;
  auth::Secret secret = auth::make_secret();
  rte::CheckpointServer server(loop, secret);
  if (!server.listen("127.0.0.1")) {
    std::fprintf(stderr, "cannot listen\n");
    return 2;
  }
  std::string where = "127.0.0.1:" + std::to_string(server.port());
  std::vector<std::string> env = {"FTMPI_TEST_CKPT_SECRET=" + auth::to_hex(secret)};

  int st = serve_until_exit(loop, start({victim, "plain", expected_path}, env, -1));
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "plain run failed (status %d)", st);
  std::string expected = slurp(expected_path);

  // Capture into the server, then SIGKILL (the victim kills itself).
  st = serve_until_exit(loop, start({victim, "buddy", where, out}, env, -1));
  CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "buddy capture should end by SIGKILL (status %d)", st);
  auto held = server.held(0);
  CHECK(held && held->number == 1 && held->bytes > (40u << 20), "server should hold image 1 of slot 0 (>40 MiB)");
  if (!held) return 1;
  std::printf("server holds image %llu of slot 0: %llu bytes\n", static_cast<unsigned long long>(held->number),
              static_cast<unsigned long long>(held->bytes));

  // Restorer started here from a memfd (a daemon restoring on its own host).
  int memfd = server.image_memfd(0);
  CHECK(memfd >= 0, "image_memfd");
  int logfd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  pid_t pid = start({victim, "plain", out}, {}, logfd, memfd);
  ::close(memfd);
  st = serve_until_exit(loop, pid);
  ::close(logfd);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "memfd restorer failed (status %d)", st);
  CHECK(slurp(out) == expected, "memfd restorer: output differs from the run without checkpoint");
  CHECK(slurp(log) == "victim done (resumed)\n", "memfd restorer stdout: '%s'", slurp(log).c_str());

  // Restorer that fetches the image over the network first.
  // The file stays (it was open at the capture), its tail is spoilt: the
  // restored process rewrites it from the saved offset.
  {
    int f = ::open(out.c_str(), O_WRONLY | O_CLOEXEC);
    std::string junk(64, 'Z');
    CHECK(::pwrite(f, junk.data(), junk.size(), static_cast<off_t>(expected.size() - junk.size())) == 64, "spoil");
    ::close(f);
  }
  pid = ::fork();
  if (pid == 0) {
    ::personality(ADDR_NO_RANDOMIZE);
    auto r = ckpt::buddy_get("127.0.0.1", server.port(), secret, 0, 0, 5000);
    if (!r.ok()) {
      std::fprintf(stderr, "buddy_get: %s\n", r.error().what.c_str());
      ::_exit(3);
    }
    ::fcntl(r.value(), F_SETFD, 0);  // inherited by the restorer
    ::setenv("FTMPI_CKPT_RESTORE", std::to_string(r.value()).c_str(), 1);
    int lf = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(lf, 1);
    ::execl(victim.c_str(), victim.c_str(), "plain", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  st = serve_until_exit(loop, pid);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "network restorer failed (status %d)", st);
  CHECK(slurp(out) == expected, "network restorer: output differs from the run without checkpoint");
  CHECK(slurp(log) == "victim done (resumed)\n", "network restorer stdout: '%s'", slurp(log).c_str());

  // Asking for an image the server does not hold.
  pid = ::fork();
  if (pid == 0) {
    auto r = ckpt::buddy_get("127.0.0.1", server.port(), secret, 7, 0, 5000);
    ::_exit(!r.ok() && r.error().what.find("holds no such image") != std::string::npos ? 0 : 1);
  }
  st = serve_until_exit(loop, pid);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "GET of a missing image should say so");

  // Corrupt and torn streams: refused, the held image stays.
  memfd = server.image_memfd(0);
  std::string image(held->bytes, '\0');
  CHECK(::pread(memfd, image.data(), image.size(), 0) == static_cast<ssize_t>(image.size()), "read held image");
  ::close(memfd);
  std::string bad = image;
  bad[bad.size() / 2] ^= 1;
  st = serve_until_exit(loop, put_raw(bad, server.port(), secret, 2));
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "corrupt image should be refused (status %d)", st);
  st = serve_until_exit(loop, put_raw(image.substr(0, image.size() / 3), server.port(), secret, 3));
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "torn image should not be confirmed (status %d)", st);
  for (int i = 0; i < 10; ++i) loop.run_once(10);
  held = server.held(0);
  CHECK(held && held->number == 1, "after refused streams the server must still hold image 1");
  // A whole newer image replaces it.
  st = serve_until_exit(loop, put_raw(image, server.port(), secret, 4));
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "whole image should be stored (status %d)", st);
  held = server.held(0);
  CHECK(held && held->number == 4, "a whole newer image replaces the held one");

  std::string cmd = "rm -rf " + dir;
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "cannot remove %s\n", dir.c_str());
  std::printf("%s\n", g_failures ? "FAILED" : "PASS");
  return g_failures ? 1 : 0;
}
