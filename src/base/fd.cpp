#include "base/fd.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace ftmpi::fd {

bool set_nonblocking(int fd, bool on) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return false;
  fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
  return fcntl(fd, F_SETFL, fl) == 0;
}

bool set_cloexec(int fd, bool on) {
  int fl = fcntl(fd, F_GETFD);
  if (fl < 0) return false;
  fl = on ? (fl | FD_CLOEXEC) : (fl & ~FD_CLOEXEC);
  return fcntl(fd, F_SETFD, fl) == 0;
}

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK) w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::read(fd, c, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (r == 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

void close_quietly(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int tcp_listen(const std::string& addr, uint16_t& port, int backlog) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, addr.empty() ? "0.0.0.0" : addr.c_str(), &sa.sin_addr) != 1 ||
      ::bind(s, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(s, backlog) != 0) {
    ::close(s);
    return -1;
  }
  socklen_t len = sizeof sa;
  getsockname(s, reinterpret_cast<sockaddr*>(&sa), &len);
  port = ntohs(sa.sin_port);
  return s;
}

int tcp_connect(const std::string& addr, uint16_t port, bool nonblocking) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (s < 0) return -1;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) {
    ::close(s);
    return -1;
  }
  int rc;
  do {
    rc = ::connect(s, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0 && !(nonblocking && errno == EINPROGRESS)) {
    ::close(s);
    return -1;
  }
  return s;
}

void tcp_tune(int fd, int user_timeout_ms) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  int idle = 1, intvl = 1, cnt = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  if (user_timeout_ms > 0) {
    unsigned t = static_cast<unsigned>(user_timeout_ms);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &t, sizeof t);
  }
}

std::string peer_name(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return "?";
  char buf[64];
  char ip[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
  std::snprintf(buf, sizeof buf, "%s:%u", ip, ntohs(sa.sin_port));
  return buf;
}

bool peer_on_this_host(int fd) {
  sockaddr_in me{}, peer{};
  socklen_t a = sizeof me, b = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&me), &a) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &b) != 0 || me.sin_family != AF_INET ||
      peer.sin_family != AF_INET)
    return false;
  const uint32_t p = ntohl(peer.sin_addr.s_addr);
  return (p >> 24) == 127 || me.sin_addr.s_addr == peer.sin_addr.s_addr;
}

bool process_running(pid_t pid) {
  if (pid <= 0) return false;
  char path[64], buf[512];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int f = ::open(path, O_RDONLY | O_CLOEXEC);
  if (f < 0) return false;
  ssize_t n = ::read(f, buf, sizeof buf - 1);
  ::close(f);
  if (n <= 0) return false;
  buf[n] = 0;
  // "pid (comm) S ...": the command may hold spaces and parentheses.
  const char* close = std::strrchr(buf, ')');
  if (!close || close[1] != ' ') return false;
  const char state = close[2];
  return state == 'R' || state == 'S' || state == 'D' || state == 'I' || state == 'W';
}

}  // namespace ftmpi::fd
