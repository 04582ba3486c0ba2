#include "modules/ckpt/local_image.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "base/clock.hpp"
#include "rte/proto/wake.hpp"

namespace ftmpi::ckpt {
namespace {

// What the runtime and the transports hold: sockets (control channel, TCP),
// eventfds (doorbells), epoll sets, and the host segment's memfd. Read from
// /proc/self/fd so that nothing a transport opens is missed; the wake socket
// stays. Runs in the copy, single-threaded, before anything else.
void close_runtime_fds(int keep) {
  int dir = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) _exit(120);
  char buf[4096];
  int victims[1024];
  int nv = 0;
  for (;;) {
    long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(buf + off);
      off += d->d_reclen;
      char* end = nullptr;
      long fd = std::strtol(d->d_name, &end, 10);
      if (*end != '\0' || d->d_name[0] == '.' || fd == dir || fd == keep || fd <= 2) continue;
      char link[256];
      ssize_t m = ::readlinkat(dir, d->d_name, link, sizeof link - 1);
      if (m <= 0) continue;
      link[m] = '\0';
      const bool runtime = std::strncmp(link, "socket:", 7) == 0 || std::strcmp(link, "anon_inode:[eventfd]") == 0 ||
                           std::strcmp(link, "anon_inode:[eventpoll]") == 0 ||
                           std::strncmp(link, kSegmentPath, std::strlen(kSegmentPath)) == 0;
      if (runtime && nv < 1024) victims[nv++] = static_cast<int>(fd);
    }
  }
  ::close(dir);
  for (int i = 0; i < nv; ++i) ::close(victims[i]);
}

// The transports' shared segment: its pages are the live processes'.
void unmap_segment() {
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  // Collected first, unmapped after: unmapping while reading shifts the file.
  struct Range {
    uintptr_t lo, hi;
  } ranges[64];
  int nr = 0;
  char buf[8192];
  size_t have = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    buf[have] = '\0';
    char* line = buf;
    char* nl;
    while ((nl = std::strchr(line, '\n')) != nullptr) {
      *nl = '\0';
      unsigned long lo = 0, hi = 0;
      char perms[8] = {};
      if (std::sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[3] == 's' &&
          std::strstr(line, kSegmentPath) && nr < 64)
        ranges[nr++] = Range{lo, hi};
      line = nl + 1;
    }
    have = static_cast<size_t>(buf + have - line);
    std::memmove(buf, line, have);
  }
  ::close(fd);
  for (int i = 0; i < nr; ++i) ::munmap(reinterpret_cast<void*>(ranges[i].lo), ranges[i].hi - ranges[i].lo);
}

int bind_wake_socket(const std::string& name) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  // Abstract name: a leading NUL, nothing in the file system to clean up.
  std::memcpy(a.sun_path + 1, name.data(), std::min(name.size(), sizeof a.sun_path - 2));
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(s, 1) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// How long an image whose original died waits for its daemon: one the
// daemon never heard of (the original died inside the checkpoint, before
// reporting it) must not stay frozen until the job ends.
constexpr int kOrphanWaitMs = 10000;

// The daemon's wake message: the descriptors it carries are moved above
// every number in play first (a received one may sit on another's target),
// then dup2'ed into place. Returns the control socket, or -1.
int take_descriptors(int conn) {
  rte::proto::WakeHeader h;
  char space[CMSG_SPACE(sizeof(int) * rte::proto::kWakeMaxFds)];
  iovec iov{&h, sizeof h};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = space;
  m.msg_controllen = sizeof space;
  ssize_t n;
  do n = ::recvmsg(conn, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  while (n < 0 && errno == EINTR);
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  if (n != static_cast<ssize_t>(sizeof h) || h.magic != rte::proto::kWakeMagic || !c ||
      c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || (m.msg_flags & MSG_CTRUNC) != 0)
    return -1;
  const size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
  int got[rte::proto::kWakeMaxFds];
  std::memcpy(got, CMSG_DATA(c), nfd * sizeof(int));
  if (nfd != h.count || nfd > rte::proto::kWakeMaxFds) {
    for (size_t i = 0; i < nfd && i < rte::proto::kWakeMaxFds; ++i) ::close(got[i]);
    return -1;
  }
  int top = conn;
  for (size_t i = 0; i < nfd; ++i) top = std::max({top, got[i], static_cast<int>(h.target[i])});
  int ctrl = -1;
  for (size_t i = 0; i < nfd; ++i) {
    int high = ::fcntl(got[i], F_DUPFD_CLOEXEC, top + 1);
    ::close(got[i]);
    got[i] = high;
    if (high < 0) return -1;
  }
  for (size_t i = 0; i < nfd; ++i) {
    if (h.target[i] == rte::proto::kWakeAnyFd) {
      ctrl = got[i];
      continue;
    }
    if (::dup2(got[i], h.target[i]) < 0) return -1;
    ::close(got[i]);
  }
  return ctrl;
}

// The daemon's connection to a woken image and the control socket it passed.
struct Woken {
  int conn = -1;
  int ctrl = -1;
};

// Blocks until the daemon wakes the image (it takes the descriptors passed
// and closes `wake`) or drops it (SIGKILL; or the orphan case above: exit).
Woken stay_frozen(int wake, pid_t daemon, pid_t original) {
  int owner = static_cast<int>(::syscall(SYS_pidfd_open, original, 0));
  int timeout = -1;
  for (;;) {
    pollfd p[2] = {{wake, POLLIN, 0}, {owner, POLLIN, 0}};
    int r = ::poll(p, owner >= 0 ? 2 : 1, timeout);
    if (r < 0) {
      if (errno == EINTR) continue;
      _exit(121);
    }
    if (r == 0) _exit(0);  // orphaned: nobody will wake it
    if (owner >= 0 && p[1].revents != 0) {
      ::close(owner);
      owner = -1;
      timeout = kOrphanWaitMs;
    }
    if ((p[0].revents & POLLIN) == 0) continue;
    int c = ::accept4(wake, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR) continue;
      _exit(121);
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid != daemon) {
      ::close(c);  // not our daemon: ignored
      continue;
    }
    const int ctrl = take_descriptors(c);
    // The daemon spawns the slot from the start if it hears nothing.
    if (ctrl < 0) _exit(kWakeFailedExit);
    if (owner >= 0) ::close(owner);
    ::close(wake);
    return Woken{c, ctrl};
  }
}

// In a new copy, right after the clone: out of the rank's process group
// (the daemon kills that group when the rank dies), said on `moved` so
// that the process it was made from goes on only then.
void leave_group(int moved[2]) {
  ::setpgid(0, 0);
  const uint8_t one = 1;
  ssize_t w;
  do w = ::write(moved[1], &one, 1);
  while (w < 0 && errno == EINTR);
  ::close(moved[0]);
  ::close(moved[1]);
}

// Waits in the process that cloned a copy until the copy left its group;
// false: the copy died first (a kill of the group took it).
bool copy_left_group(int moved[2], long pid) {
  ::close(moved[1]);
  uint8_t said = 0;
  ssize_t n = 0;
  if (pid > 0) {
    do n = ::read(moved[0], &said, 1);
    while (n < 0 && errno == EINTR);
  }
  ::close(moved[0]);
  return n == 1;
}

// Everything a new copy drops of the process it was made from.
void become_frozen(int wake, pid_t daemon) {
  close_runtime_fds(wake);
  // stdio are the daemon's output pipes: holding them would keep the
  // rank's output open after its death.
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  if (null > 2) ::close(null);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != daemon) _exit(122);  // the daemon died meanwhile
  unmap_segment();
}

// Clones a frozen copy of this process, waiting on `wake`: a sibling, not
// a child (the daemon reaps it, and it outlives the process that made it).
// In the copy: 0, the copy out of the process group and frozen. In the
// caller, once the copy said on a pipe that it left the group: its pid.
// Until then a kill of the group (the daemon's fault injection, or a
// user's) takes the copy with the rank, and a checkpoint must not be
// reported whose image may be dead: garbage collection follows the
// report, and then nothing is left to restart from. -1: no copy (errno);
// kCopyDied: the copy died before it left the group.
constexpr long kCopyDied = -3;
long clone_frozen_copy(int wake, pid_t daemon) {
  int moved[2];
  if (::pipe2(moved, O_CLOEXEC) != 0) return -1;
  const long pid = ::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (pid == 0) {
    leave_group(moved);
    become_frozen(wake, daemon);
    return 0;
  }
  if (pid < 0) {
    const int e = errno;
    ::close(moved[0]);
    ::close(moved[1]);
    errno = e;
    return -1;
  }
  return copy_left_group(moved, pid) ? pid : kCopyDied;
}

// A woken image leaves a spare behind before it resumes: another frozen
// copy of the same checkpoint, waiting on a wake socket named after the
// woken process. Without it the slot had no image until its next
// checkpoint, and after garbage collection a second death in between
// ended the job. Returns the spare's pid to the woken process (0: none),
// and kInSpare in the spare itself, with `wake` its socket.
constexpr long kInSpare = -2;
long leave_spare(uint64_t number, pid_t daemon, int& wake) {
  wake = bind_wake_socket(wake_socket_name(::getpid(), number));
  if (wake < 0) return 0;
  const long pid = clone_frozen_copy(wake, daemon);
  if (pid == 0) return kInSpare;
  ::close(wake);
  return pid > 0 ? pid : 0;
}

// The answer the daemon waits for (proto::WakeAnswer).
void answer_wake(int conn, long spare) {
  rte::proto::WakeAnswer a;
  a.spare_pid = spare > 0 ? static_cast<int32_t>(spare) : 0;
  if (::send(conn, &a, sizeof a, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof a)) _exit(kWakeFailedExit);
  ::close(conn);
}

}  // namespace

std::string wake_socket_name(pid_t owner_pid, uint64_t number) {
  return rte::proto::wake_socket_name(static_cast<int32_t>(owner_pid), number);
}

Frozen freeze_local_image(uint64_t number, const StoreTarget& store, RestoredHook& restored) {
  Frozen out;
  const pid_t daemon = ::getppid();
  const pid_t original = ::getpid();
  int wake = bind_wake_socket(wake_socket_name(::getpid(), number));
  if (wake < 0) {
    out.error = std::string("cannot bind the image's wake socket: ") + std::strerror(errno);
    return out;
  }
  const uint64_t t0 = now_ns();
  const long pid = clone_frozen_copy(wake, daemon);
  if (pid == 0) {
    if (store.kind != 0 && store_in_copy(store) == CopyOutcome::kResumed) {
      // A restorer made this process from the image: not the copy any more.
      restored.resume_restored();
      Frozen back;
      back.resumed = true;
      return back;
    }
    pid_t made_from = original;
    for (;;) {
      const Woken w = stay_frozen(wake, daemon, made_from);
      const pid_t me = ::getpid();
      const long spare = leave_spare(number, daemon, wake);
      if (spare == kInSpare) {
        // become_frozen closed the daemon's connection and what it passed.
        made_from = me;
        continue;  // the spare: frozen until its own wake-up
      }
      answer_wake(w.conn, spare);
      out.ctrl_fd = w.ctrl;
      out.woken = true;
      return out;
    }
  }
  const int err = errno;
  out.pause_ns = now_ns() - t0;
  ::close(wake);
  if (pid == -1) {
    out.error = std::string("fork failed: ") + std::strerror(err);
    return out;
  }
  if (pid == kCopyDied) {
    // Killed with the rank's group before it could leave it (the daemon
    // reaps it); the rank is about to die too.
    out.error = "the image died before it left the rank's process group";
    return out;
  }
  out.pid = static_cast<pid_t>(pid);
  return out;
}

}  // namespace ftmpi::ckpt
