#include "rte/client/shm_handout.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/auth.hpp"
#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"

namespace ftmpi::rte {
namespace {

// Descriptors per message; well below the kernel's SCM_MAX_FD (253).
constexpr size_t kFdsPerMessage = 64;

socklen_t abstract_address(const std::string& name, sockaddr_un& a) {
  std::memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  // sun_path[0] = 0: the abstract namespace, nothing in the file system.
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

int remaining_ms(uint64_t deadline) {
  uint64_t now = now_ns();
  return now >= deadline ? 0 : static_cast<int>((deadline - now) / 1000000ull) + 1;
}

bool wait_fd(int fd, short events, uint64_t deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r > 0) return true;
    if (r == 0 || errno != EINTR) return false;
  }
}

// Header of each message: first index, count (index 0 = memfd, 1+i = doorbell i).
struct Chunk {
  uint32_t first;
  uint32_t count;
};

bool send_fds(int sock, const std::vector<int>& fds) {
  for (size_t first = 0; first < fds.size(); first += kFdsPerMessage) {
    size_t count = std::min(kFdsPerMessage, fds.size() - first);
    Chunk h{static_cast<uint32_t>(first), static_cast<uint32_t>(count)};
    iovec iov{&h, sizeof h};
    std::vector<char> control(CMSG_SPACE(sizeof(int) * count));
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control.data();
    m.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * count);
    std::memcpy(CMSG_DATA(c), fds.data() + first, sizeof(int) * count);
    ssize_t w;
    do {
      w = ::sendmsg(sock, &m, MSG_NOSIGNAL);
    } while (w < 0 && errno == EINTR);
    if (w != static_cast<ssize_t>(sizeof h)) return false;
  }
  return true;
}

bool recv_fds(int sock, std::vector<int>& fds, uint64_t deadline) {
  size_t got = 0;
  while (got < fds.size()) {
    if (!wait_fd(sock, POLLIN, deadline)) return false;
    Chunk h{};
    iovec iov{&h, sizeof h};
    std::vector<char> control(CMSG_SPACE(sizeof(int) * kFdsPerMessage));
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control.data();
    m.msg_controllen = control.size();
    ssize_t r = ::recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r != static_cast<ssize_t>(sizeof h) || (m.msg_flags & MSG_CTRUNC)) return false;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) return false;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    std::vector<int> in(n);
    std::memcpy(in.data(), CMSG_DATA(c), sizeof(int) * n);
    bool fits = n == h.count && h.first == got && got + n <= fds.size();
    for (size_t i = 0; i < n; ++i) {
      if (fits)
        fds[got + i] = in[i];
      else
        ::close(in[i]);
    }
    if (!fits) return false;
    got += n;
  }
  return true;
}

}  // namespace

void HostResources::close_all() {
  fd::close_quietly(memfd);
  for (int& d : doorbells) fd::close_quietly(d);
  doorbells.clear();
}

HandoutServer::~HandoutServer() { fd::close_quietly(listen_fd_); }

Err HandoutServer::open(size_t n, HostResources& res) {
  res.memfd = memfd_create("ftmpi-shm", MFD_CLOEXEC);
  if (res.memfd < 0) {
    FTMPI_LOG(kError, "pmix", "cannot create the shared-memory segment: %s", std::strerror(errno));
    return Err::kIntern;
  }
  for (size_t i = 0; i < n; ++i) {
    int d = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (d < 0) {
      FTMPI_LOG(kError, "pmix", "cannot create a doorbell: %s", std::strerror(errno));
      return Err::kIntern;
    }
    res.doorbells.push_back(d);
  }
  auth::Secret r = auth::make_secret();
  name_ = "ftmpi-" + auth::to_hex(r).substr(0, 32);
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a;
  socklen_t len = abstract_address(name_, a);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
      ::listen(listen_fd_, static_cast<int>(std::min<size_t>(n, 4096))) != 0) {
    FTMPI_LOG(kError, "pmix", "cannot listen on a local socket: %s", std::strerror(errno));
    return Err::kIntern;
  }
  return Err::kOk;
}

Err HandoutServer::serve(const HostResources& res, size_t me, int timeout_ms) {
  const size_t n = res.doorbells.size();
  std::vector<int> fds{res.memfd};
  fds.insert(fds.end(), res.doorbells.begin(), res.doorbells.end());
  std::vector<bool> served(n, false);
  served[me] = true;
  size_t left = n - 1;
  const uint64_t deadline = now_ns() + static_cast<uint64_t>(timeout_ms) * 1000000ull;
  while (left > 0) {
    if (!wait_fd(listen_fd_, POLLIN, deadline)) {
      FTMPI_LOG(kError, "pmix", "%zu local ranks did not fetch the shared-memory segment", left);
      return Err::kIntern;
    }
    int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    ucred cred{};
    socklen_t cl = sizeof cred;
    int32_t idx = -1;
    bool ok = ::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.uid == geteuid() &&
              wait_fd(c, POLLIN, deadline) && ::recv(c, &idx, sizeof idx, MSG_WAITALL) == sizeof idx &&
              idx >= 0 && static_cast<size_t>(idx) < n && !served[static_cast<size_t>(idx)];
    if (ok && send_fds(c, fds)) {
      served[static_cast<size_t>(idx)] = true;
      --left;
    } else {
      FTMPI_LOG(kWarn, "pmix", "refused a local connection (uid %u, index %d)", cred.uid, idx);
    }
    ::close(c);
  }
  fd::close_quietly(listen_fd_);
  return Err::kOk;
}

Err fetch_host_resources(const std::string& name, int32_t my_local, size_t n, HostResources& out, int timeout_ms) {
  const uint64_t deadline = now_ns() + static_cast<uint64_t>(timeout_ms) * 1000000ull;
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a;
  socklen_t len = abstract_address(name, a);
  std::vector<int> fds(n + 1, -1);
  bool ok = s >= 0 && ::connect(s, reinterpret_cast<sockaddr*>(&a), len) == 0 &&
            fd::write_all(s, &my_local, sizeof my_local) && recv_fds(s, fds, deadline);
  if (s >= 0) ::close(s);
  if (!ok) {
    for (int& f : fds) fd::close_quietly(f);
    FTMPI_LOG(kError, "pmix", "cannot get the shared-memory segment from the local leader (%s)", name.c_str());
    return Err::kIntern;
  }
  out.memfd = fds[0];
  out.doorbells.assign(fds.begin() + 1, fds.end());
  return Err::kOk;
}

}  // namespace ftmpi::rte
