#include "rte/daemon/ckpt_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/ckpt_image_format.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"

namespace ftmpi::rte {
namespace {

std::string peer_address(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 || a.sin_family != AF_INET) return "an unknown peer";
  char ip[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(a.sin_port));
}

namespace fmt = ckpt_format;

constexpr char kRequestMagic[8] = {'F', 'T', 'C', 'K', 'S', 'R', 'V', '1'};
constexpr size_t kRequestBytes = 24;
constexpr uint32_t kOpPut = 1, kOpGet = 2;
constexpr size_t kReadStep = 4u << 20;

void reply(std::vector<uint8_t>& out, const char (&word)[9]) { out.insert(out.end(), word, word + 8); }

}  // namespace

struct CheckpointServer::Client {
  int fd = -1;
  uint64_t watch = 0;
  auth::Handshake hs;
  enum class Stage { kHandshake, kRequest, kPut, kGet, kDone } stage = Stage::kHandshake;
  std::vector<uint8_t> out;
  size_t out_sent = 0;
  uint8_t req[kRequestBytes] = {};
  size_t req_have = 0;
  int32_t slot = -1;
  uint64_t number = 0;
  std::vector<uint8_t> in;  // the image being received
  size_t in_have = 0;
  fmt::Scanner scan;
  std::shared_ptr<const std::vector<uint8_t>> serving;  // GET: the image being sent
  size_t serve_off = 0;
  uint64_t serial = 0;  // its key in clients_
  Client(int f, const auth::Secret& s) : fd(f), hs(s, false) {}
};

CheckpointServer::CheckpointServer(EventLoop& loop, const auth::Secret& secret) : loop_(loop), secret_(secret) {}

CheckpointServer::~CheckpointServer() {
  for (auto& [serial, c] : clients_) {
    if (c->fd < 0) continue;  // closed already
    loop_.unwatch(c->watch);
    ::close(c->fd);
  }
  if (listen_watch_) loop_.unwatch(listen_watch_);
  fd::close_quietly(listen_fd_);
}

bool CheckpointServer::listen(const std::string& addr) {
  listen_fd_ = fd::tcp_listen(addr, port_);
  if (listen_fd_ < 0) return false;
  fd::set_nonblocking(listen_fd_);
  listen_watch_ = loop_.watch(listen_fd_, EPOLLIN, [this](uint32_t) { accept_clients(); });
  return listen_watch_ != 0;
}

std::optional<CheckpointServer::Held> CheckpointServer::held(int32_t slot) const {
  auto it = images_.find(slot);
  if (it == images_.end()) return std::nullopt;
  return Held{it->second.number, it->second.bytes->size()};
}

int CheckpointServer::image_memfd(int32_t slot) const {
  auto it = images_.find(slot);
  if (it == images_.end()) return -1;
  int fd = ::memfd_create("ftmpi-ckpt-image", MFD_CLOEXEC);
  if (fd < 0) return -1;
  const std::vector<uint8_t>& b = *it->second.bytes;
  if (!fd::write_all(fd, b.data(), b.size()) || ::lseek(fd, 0, SEEK_SET) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void CheckpointServer::accept_clients() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EINTR) FTMPI_LOG(kWarn, "ckpt-server", "accept failed: errno %d", errno);
      if (errno != EINTR) return;
      continue;
    }
    auto c = std::make_unique<Client>(fd, secret_);
    c->hs.start(c->out);
    Client* raw = c.get();
    c->watch = loop_.watch(fd, EPOLLIN | EPOLLOUT, [this, raw](uint32_t ev) { on_client(*raw, ev); });
    c->serial = ++serials_;
    clients_[c->serial] = std::move(c);
  }
}

void CheckpointServer::close_client(Client& c, const std::string& why) {
  if (c.fd < 0) return;
  if (!why.empty()) FTMPI_LOG(kInfo, "ckpt-server", "slot %d: %s", c.slot, why.c_str());
  loop_.unwatch(c.watch);
  int fd = c.fd;
  ::close(fd);
  c.fd = -1;
  loop_.defer([this, serial = c.serial] { clients_.erase(serial); });
}

void CheckpointServer::on_client(Client& c, uint32_t events) {
  if (c.fd >= 0 && (events & EPOLLOUT) && !write_some(c)) return;
  if (c.fd >= 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !read_some(c)) return;
  if (c.fd < 0) return;
  bool more_out = c.out_sent < c.out.size() || (c.serving && c.serve_off < c.serving->size());
  if (!more_out && c.stage == Client::Stage::kDone) {
    close_client(c, "");
    return;
  }
  loop_.set_events(c.watch, EPOLLIN | (more_out ? EPOLLOUT : 0u));
}

bool CheckpointServer::write_some(Client& c) {
  for (;;) {
    const uint8_t* p;
    size_t n;
    if (c.out_sent < c.out.size()) {
      p = c.out.data() + c.out_sent;
      n = c.out.size() - c.out_sent;
    } else if (c.serving && c.serve_off < c.serving->size()) {
      p = c.serving->data() + c.serve_off;
      n = c.serving->size() - c.serve_off;
    } else {
      return true;
    }
    ssize_t w = ::send(c.fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) return true;
    if (w <= 0) {
      close_client(c, "connection lost while sending");
      return false;
    }
    if (c.out_sent < c.out.size())
      c.out_sent += static_cast<size_t>(w);
    else
      c.serve_off += static_cast<size_t>(w);
  }
}

bool CheckpointServer::read_some(Client& c) {
  for (;;) {
    uint8_t small[64];
    uint8_t* dst;
    size_t want;
    switch (c.stage) {
      case Client::Stage::kHandshake:
        dst = small;
        want = c.hs.bytes_needed();
        break;
      case Client::Stage::kRequest:
        dst = c.req + c.req_have;
        want = kRequestBytes - c.req_have;
        break;
      case Client::Stage::kPut:
        if (c.in.size() - c.in_have < kReadStep) c.in.resize(c.in_have + kReadStep + c.in_have / 2);
        dst = c.in.data() + c.in_have;
        want = c.in.size() - c.in_have;
        break;
      default:
        dst = small;
        want = sizeof small;
        break;
    }
    ssize_t r = ::read(c.fd, dst, want);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return true;
    if (r <= 0) {
      bool torn = c.stage == Client::Stage::kPut;
      close_client(c, torn ? "image stream ended before its trailer (torn): dropped" : "");
      return false;
    }
    auto n = static_cast<size_t>(r);
    switch (c.stage) {
      case Client::Stage::kHandshake:
        c.hs.feed(small, n, c.out);
        if (c.hs.state() == auth::Handshake::State::kFailed) {
          // A stranger at a job port: logged as the daemon's other listeners
          // log theirs (an error, with the peer's address).
          FTMPI_LOG(kError, "ftmpid", "rejected checkpoint-server connection from %s: peer failed to prove the job secret",
                    peer_address(c.fd).c_str());
          close_client(c, "");
          return false;
        }
        if (c.hs.state() == auth::Handshake::State::kDone) c.stage = Client::Stage::kRequest;
        break;
      case Client::Stage::kRequest:
        c.req_have += n;
        if (c.req_have == kRequestBytes) request(c);
        if (c.fd < 0) return false;
        break;
      case Client::Stage::kPut: {
        c.in_have += n;
        auto st = c.scan.scan(c.in.data(), c.in_have);
        if (st == fmt::Scanner::State::kMore) break;
        if (st == fmt::Scanner::State::kComplete && c.scan.total_bytes() == c.in_have) {
          c.in.resize(c.in_have);
          c.in.shrink_to_fit();
          Image& img = images_[c.slot];
          // The older image goes only now that the newer one is whole.
          if (!img.bytes || c.number >= img.number) {
            img.number = c.number;
            img.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(c.in));
          }
          reply(c.out, "STORED\0\0");
        } else {
          FTMPI_LOG(kWarn, "ckpt-server", "slot %d image %llu refused: %s", c.slot,
                    static_cast<unsigned long long>(c.number),
                    st == fmt::Scanner::State::kInvalid ? c.scan.error().c_str() : "bytes after the trailer");
          c.in.clear();
          reply(c.out, "REFUSED\0");
        }
        c.stage = Client::Stage::kDone;
        return true;
      }
      default:
        break;  // nothing more is expected from the peer
    }
  }
}

void CheckpointServer::request(Client& c) {
  if (std::memcmp(c.req, kRequestMagic, 8) != 0) {
    close_client(c, "not a checkpoint server request");
    return;
  }
  uint32_t op;
  std::memcpy(&op, c.req + 8, 4);
  std::memcpy(&c.slot, c.req + 12, 4);
  std::memcpy(&c.number, c.req + 16, 8);
  if (op == kOpPut) {
    c.stage = Client::Stage::kPut;
  } else if (op == kOpGet) {
    auto it = images_.find(c.slot);
    if (it == images_.end() || (c.number != 0 && it->second.number != c.number)) {
      reply(c.out, "NOIMAGE\0");
    } else {
      reply(c.out, "IMAGE\0\0\0");
      // Its number: the restored process's output continues from that checkpoint.
      const uint64_t number = it->second.number;
      const auto* p = reinterpret_cast<const uint8_t*>(&number);
      c.out.insert(c.out.end(), p, p + sizeof number);
      c.serving = it->second.bytes;
    }
    c.stage = Client::Stage::kDone;
  } else {
    close_client(c, "unknown checkpoint server request");
  }
}

int CheckpointServer::fetch(const std::string& addr, uint16_t port, const auth::Secret& secret, int32_t slot,
                            int timeout_ms, uint64_t& number, std::string& why) {
  const std::string where = "checkpoint server " + addr + ":" + std::to_string(port);
  int fd = fd::tcp_connect(addr, port, /*nonblocking=*/true);
  if (fd < 0) {
    why = "cannot connect to " + where;
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int err = 0;
  socklen_t len = sizeof err;
  if (::poll(&p, 1, timeout_ms) != 1 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0 ||
      !fd::set_nonblocking(fd, false) || !auth::handshake_fd(fd, secret, true, timeout_ms)) {
    ::close(fd);
    why = where + " did not answer in time";
    return -1;
  }
  uint8_t req[kRequestBytes] = {};
  std::memcpy(req, kRequestMagic, 8);
  std::memcpy(req + 8, &kOpGet, 4);
  std::memcpy(req + 12, &slot, 4);
  char answer[8] = {};
  p = pollfd{fd, POLLIN, 0};
  if (!fd::write_all(fd, req, sizeof req) || ::poll(&p, 1, timeout_ms) != 1 ||
      !fd::read_all(fd, answer, sizeof answer)) {
    ::close(fd);
    why = where + " did not answer in time";
    return -1;
  }
  if (std::memcmp(answer, "IMAGE\0\0\0", 8) != 0) {
    ::close(fd);
    why = where + " holds no image of slot " + std::to_string(slot);
    return -1;
  }
  if (!fd::read_all(fd, &number, sizeof number) || number == 0) {
    ::close(fd);
    why = where + " sent no image number";
    return -1;
  }
  return fd;
}

void make_restorer(SpawnRequest& req, int image_fd) {
  std::string var = "FTMPI_CKPT_RESTORE=" + std::to_string(image_fd);
  bool replaced = false;
  for (std::string& e : req.env)
    if (e.rfind("FTMPI_CKPT_RESTORE=", 0) == 0) {
      e = var;
      replaced = true;
    }
  if (!replaced) req.env.push_back(var);
  req.inherit.push_back(image_fd);
  req.no_aslr = true;
}

}  // namespace ftmpi::rte
