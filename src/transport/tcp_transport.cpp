#include "transport/tcp_transport.hpp"

#include <errno.h>
#include <sys/epoll.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "base/params.hpp"

namespace ftmpi::transport {
namespace {
constexpr uint16_t kKindData = 0;
constexpr uint16_t kKindIdent = 1;
constexpr size_t kWireHdr = 8;
constexpr uint64_t kRejectLogPeriodNs = 10'000'000'000ull;

void put_wire_hdr(uint8_t* p, uint32_t plen, uint16_t hlen, uint16_t kind) {
  std::memcpy(p, &plen, 4);
  std::memcpy(p + 4, &hlen, 2);
  std::memcpy(p + 6, &kind, 2);
}
}  // namespace

struct TcpTransport::Conn {
  enum class St { kConnecting, kHandshake, kIdent, kReady, kDead };
  Conn(const auth::Secret& s, bool out) : hs(s, out), outgoing(out) {}
  int fd = -1;
  int32_t peer = -1;
  St st = St::kConnecting;
  auth::Handshake hs;
  bool outgoing;
  bool want_out = false;
  std::vector<uint8_t> in;
  size_t in_off = 0;
  std::vector<uint8_t> out;  // bytes not yet written, from out_off
  size_t out_off = 0;
  std::vector<uint8_t> pending;  // frames queued before the handshake finished
  uint64_t deadline_ns = 0;      // accepted, not yet identified: closed at this time
  bool stranger() const { return !outgoing && (st == St::kHandshake || st == St::kIdent); }
};

TcpTransport::TcpTransport() = default;
TcpTransport::~TcpTransport() { shutdown(); }

Err TcpTransport::init(const std::string& bind_addr, const auth::Secret& secret, ProcId self) {
  self_ = self;
  secret_ = secret;
  addr_ = bind_addr;
  port_ = 0;
  // A deep backlog: every peer of a large job may connect at once, and a
  // flood should wait in the accept queue (where it is cheap to refuse),
  // not be retried by the kernel for seconds.
  listen_fd_ = fd::tcp_listen(bind_addr, port_, SOMAXCONN);
  if (listen_fd_ < 0) {
    FTMPI_LOG(kError, "tcp", "cannot listen on %s: %s", bind_addr.c_str(), strerror(errno));
    return Err::kIntern;
  }
  fd::set_nonblocking(listen_fd_);
  auth_timeout_ns_ = static_cast<uint64_t>(std::max<int64_t>(1, params::get_int("FTMPI_TCP_AUTH_TIMEOUT_MS", 10000))) *
                     1000000ull;
  max_unauth_ = static_cast<size_t>(std::max<int64_t>(1, params::get_int("FTMPI_TCP_MAX_UNAUTH", 32)));
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (epfd_ < 0 || timer_fd_ < 0 || spare_fd_ < 0) {
    FTMPI_LOG(kError, "tcp", "cannot set up the transport: %s", strerror(errno));
    return Err::kIntern;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the listener
  epoll_ctl(epfd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  ev.data.ptr = &timer_fd_;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, timer_fd_, &ev);
  return Err::kOk;
}

void TcpTransport::shutdown() {
  if (unlogged_rejects_)
    FTMPI_LOG(kError, "tcp", "port %u: %zu more connections refused (they did not prove the job secret)", port_,
              unlogged_rejects_);
  unlogged_rejects_ = 0;
  for (auto& c : conns_) fd::close_quietly(c->fd);
  conns_.clear();
  out_.clear();
  fd::close_quietly(listen_fd_);
  fd::close_quietly(timer_fd_);
  fd::close_quietly(spare_fd_);
  fd::close_quietly(epfd_);
}

void TcpTransport::forget() {
  unlogged_rejects_ = 0;
  conns_.clear();
  out_.clear();
  peers_.clear();
  listen_fd_ = timer_fd_ = spare_fd_ = epfd_ = -1;
}

void TcpTransport::set_peer(int32_t slot, const std::string& addr, uint16_t port) {
  peers_[slot] = PeerAddr{addr, port};
}

void TcpTransport::update_interest(Conn& c) {
  bool want = c.st == Conn::St::kConnecting || c.out_off < c.out.size();
  if (want == c.want_out) return;
  c.want_out = want;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (want ? EPOLLOUT : 0u);
  ev.data.ptr = &c;
  epoll_ctl(epfd_, EPOLL_CTL_MOD, c.fd, &ev);
}

TcpTransport::Conn* TcpTransport::connect_to(int32_t slot) {
  auto it = peers_.find(slot);
  if (it == peers_.end()) return nullptr;
  auto c = std::make_unique<Conn>(secret_, true);
  c->peer = slot;
  c->fd = fd::tcp_connect(it->second.addr, it->second.port, true);
  if (c->fd < 0) {
    FTMPI_LOG(kWarn, "tcp", "connect to slot %d at %s:%u failed: %s", slot, it->second.addr.c_str(),
              it->second.port, strerror(errno));
    return nullptr;
  }
  fd::tcp_tune(c->fd, static_cast<int>(params::get_int("FTMPI_TCP_USER_TIMEOUT_MS", 5000)));
  c->hs.start(c->out);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP;
  ev.data.ptr = c.get();
  c->want_out = true;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, c->fd, &ev);
  Conn* raw = c.get();
  conns_.push_back(std::move(c));
  out_[slot] = raw;
  return raw;
}

void TcpTransport::send(int32_t slot, const void* hdr, size_t hlen, const void* payload, size_t plen) {
  auto it = out_.find(slot);
  Conn* c = it == out_.end() ? connect_to(slot) : it->second;
  if (!c) {
    lost_.push_back(slot);
    return;
  }
  if (c->st == Conn::St::kDead) return;
  uint8_t wh[kWireHdr];
  put_wire_hdr(wh, static_cast<uint32_t>(plen), static_cast<uint16_t>(hlen), kKindData);
  if (c->st != Conn::St::kReady) {
    auto& q = c->pending;
    q.insert(q.end(), wh, wh + kWireHdr);
    q.insert(q.end(), static_cast<const uint8_t*>(hdr), static_cast<const uint8_t*>(hdr) + hlen);
    if (plen) q.insert(q.end(), static_cast<const uint8_t*>(payload), static_cast<const uint8_t*>(payload) + plen);
    return;
  }
  size_t written = 0, total = kWireHdr + hlen + plen;
  if (c->out_off == c->out.size()) {
    iovec iov[3] = {{wh, kWireHdr}, {const_cast<void*>(hdr), hlen}, {const_cast<void*>(payload), plen}};
    // sendmsg, not writev: only send* take MSG_NOSIGNAL, and a peer that
    // reset the connection must not kill us with SIGPIPE before the runtime
    // says it died.
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = plen ? 3 : 2;
    ssize_t w = ::sendmsg(c->fd, &m, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
      fail(*c, nullptr, strerror(errno));
      return;
    }
    if (w > 0) written = static_cast<size_t>(w);
    c->out.clear();
    c->out_off = 0;
  }
  if (written < total) {
    const uint8_t* parts[3] = {wh, static_cast<const uint8_t*>(hdr), static_cast<const uint8_t*>(payload)};
    size_t lens[3] = {kWireHdr, hlen, plen};
    size_t skip = written;
    for (int i = 0; i < 3; ++i) {
      if (skip >= lens[i]) {
        skip -= lens[i];
        continue;
      }
      c->out.insert(c->out.end(), parts[i] + skip, parts[i] + lens[i]);
      skip = 0;
    }
    update_interest(*c);
  }
}

bool TcpTransport::send(int peer, const void* hdr, size_t hlen, const Payload& p) {
  const void* bytes = p.bytes;
  if (!bytes && p.len) {
    if (scratch_.size() < p.len) scratch_.resize(p.len);
    p.write_to(scratch_.data());
    bytes = scratch_.data();
  }
  send(static_cast<int32_t>(peer), hdr, hlen, bytes, p.len);
  return true;
}

uint64_t TcpTransport::room(int peer, size_t hlen, uint64_t want) {
  if (queued_bytes(peer) >= queue_limit_) return 0;
  return std::min<uint64_t>(want, max_payload(hlen));
}

uint64_t TcpTransport::max_payload(size_t hlen) const { return kMaxFrame - kWireHdr - hlen; }

size_t TcpTransport::queued_bytes(int32_t slot) const {
  auto it = out_.find(slot);
  if (it == out_.end()) return 0;
  return it->second->out.size() - it->second->out_off + it->second->pending.size();
}

void TcpTransport::fail(Conn& c, Sink* sink, const char* why) {
  if (c.st == Conn::St::kDead) return;
  FTMPI_LOG(kInfo, "tcp", "connection %s slot %d closed: %s", c.outgoing ? "to" : "from", c.peer, why);
  bool was_ready = c.st == Conn::St::kReady || c.outgoing;
  c.st = Conn::St::kDead;
  need_reap_ = true;
  fd::close_quietly(c.fd);
  if (c.outgoing) {
    auto it = out_.find(c.peer);
    if (it != out_.end() && it->second == &c) out_.erase(it);
  }
  if (c.peer >= 0 && was_ready) {
    if (sink) sink->on_peer_lost(c.peer);
    else lost_.push_back(c.peer);
  }
}

void TcpTransport::disconnect(int slot) {
  for (auto& c : conns_) {
    if (c->peer == slot && c->st != Conn::St::kDead) {
      c->st = Conn::St::kDead;
      need_reap_ = true;
      fd::close_quietly(c->fd);
    }
  }
  out_.erase(slot);
}

bool TcpTransport::flush(Conn& c) {
  while (c.out_off < c.out.size()) {
    ssize_t w = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EINTR) break;
      return false;
    }
    c.out_off += static_cast<size_t>(w);
  }
  if (c.out_off == c.out.size()) {
    c.out.clear();
    c.out_off = 0;
  } else if (c.out_off > (1u << 20) && c.out_off > c.out.size() / 2) {
    c.out.erase(c.out.begin(), c.out.begin() + static_cast<ptrdiff_t>(c.out_off));
    c.out_off = 0;
  }
  return true;
}

void TcpTransport::accept_all() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Level-triggered: a connection left in the backlog would wake us forever.
      if ((errno == EMFILE || errno == ENFILE) && refuse_without_fd()) continue;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      break;
    }
    // A stranger never gets more than max_unauth_ descriptors: the oldest
    // one still authenticating makes room.
    size_t unauth = 0;
    Conn* oldest = nullptr;
    for (auto& c : conns_)
      if (c->stranger()) {
        ++unauth;
        if (!oldest || c->deadline_ns < oldest->deadline_ns) oldest = c.get();
      }
    if (unauth >= max_unauth_ && oldest) reject(*oldest, "too many connections still proving it");
    auto c = std::make_unique<Conn>(secret_, false);
    c->fd = fd;
    c->st = Conn::St::kHandshake;
    c->deadline_ns = now_ns() + auth_timeout_ns_;
    fd::tcp_tune(fd, static_cast<int>(params::get_int("FTMPI_TCP_USER_TIMEOUT_MS", 5000)));
    c->hs.start(c->out);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP;
    ev.data.ptr = c.get();
    c->want_out = true;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    conns_.push_back(std::move(c));
  }
  arm_timer();
}

bool TcpTransport::refuse_without_fd() {
  fd::close_quietly(spare_fd_);
  int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) ::close(fd);
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ++unlogged_rejects_;
  return true;
}

void TcpTransport::reject(Conn& c, const char* why) {
  const uint64_t now = now_ns();
  if (now - reject_log_ns_ >= kRejectLogPeriodNs || reject_log_ns_ == 0) {
    FTMPI_LOG(kError, "tcp", "port %u: refused a connection from %s that did not prove the job secret (%s)%s", port_,
              fd::peer_name(c.fd).c_str(), why,
              unlogged_rejects_ ? (", and " + std::to_string(unlogged_rejects_) + " more since the last report").c_str()
                                : "");
    reject_log_ns_ = now;
    unlogged_rejects_ = 0;
  } else {
    ++unlogged_rejects_;
  }
  fail(c, nullptr, why);
}

void TcpTransport::expire_strangers() {
  uint64_t buf;
  while (::read(timer_fd_, &buf, sizeof buf) > 0) {
  }
  const uint64_t now = now_ns();
  for (auto& c : conns_)
    if (c->stranger() && c->deadline_ns <= now) reject(*c, "silent past the deadline");
  arm_timer();
}

void TcpTransport::arm_timer() {
  uint64_t next = 0;
  for (auto& c : conns_)
    if (c->stranger() && (next == 0 || c->deadline_ns < next)) next = c->deadline_ns;
  itimerspec t{};  // all zero: disarmed
  if (next) {
    t.it_value.tv_sec = static_cast<time_t>(next / 1000000000ull);
    t.it_value.tv_nsec = static_cast<long>(next % 1000000000ull);
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &t, nullptr);
}

bool TcpTransport::parse_frames(Conn& c, Sink& sink) {
  for (;;) {
    size_t avail = c.in.size() - c.in_off;
    if (c.st == Conn::St::kHandshake) {
      if (avail == 0) break;
      size_t used = c.hs.feed(c.in.data() + c.in_off, avail, c.out);
      c.in_off += used;
      if (c.hs.state() == auth::Handshake::State::kFailed) {
        reject(c, "wrong proof");
        return false;
      }
      if (c.hs.state() != auth::Handshake::State::kDone) break;
      if (c.outgoing) {
        uint8_t ident[kWireHdr + 8];
        put_wire_hdr(ident, 0, 8, kKindIdent);
        std::memcpy(ident + kWireHdr, &self_.slot, 4);
        std::memcpy(ident + kWireHdr + 4, &self_.incarnation, 4);
        c.out.insert(c.out.end(), ident, ident + sizeof ident);
        c.out.insert(c.out.end(), c.pending.begin(), c.pending.end());
        c.pending.clear();
        c.pending.shrink_to_fit();
        c.st = Conn::St::kReady;
      } else {
        c.st = Conn::St::kIdent;
      }
      continue;
    }
    if (avail < kWireHdr) break;
    uint32_t plen;
    uint16_t hlen, kind;
    std::memcpy(&plen, c.in.data() + c.in_off, 4);
    std::memcpy(&hlen, c.in.data() + c.in_off + 4, 2);
    std::memcpy(&kind, c.in.data() + c.in_off + 6, 2);
    size_t total = kWireHdr + hlen + plen;
    if (total > kMaxFrame) {
      FTMPI_LOG(kWarn, "tcp", "oversized frame (%zu bytes) from %s; closing", total, fd::peer_name(c.fd).c_str());
      return false;
    }
    if (avail < total) {
      if (c.in.capacity() < c.in_off + total) c.in.reserve(c.in_off + total);
      break;
    }
    const uint8_t* h = c.in.data() + c.in_off + kWireHdr;
    if (c.st == Conn::St::kIdent) {
      if (kind != kKindIdent || hlen != 8 || plen != 0) return false;
      std::memcpy(&c.peer, h, 4);
      c.st = Conn::St::kReady;
    } else if (kind != kKindData || c.outgoing) {
      return false;  // peers never send data on the connection we opened
    } else {
      sink.on_frame(c.peer, h, hlen, h + hlen, plen);
    }
    c.in_off += total;
  }
  if (c.in_off == c.in.size()) {
    c.in.clear();
    c.in_off = 0;
  } else if (c.in_off > 0 && c.in_off >= c.in.size() / 2) {
    c.in.erase(c.in.begin(), c.in.begin() + static_cast<ptrdiff_t>(c.in_off));
    c.in_off = 0;
  }
  return true;
}

void TcpTransport::on_event(Conn& c, uint32_t events, Sink& sink) {
  if (c.st == Conn::St::kDead) return;
  if (c.st == Conn::St::kConnecting && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return fail(c, &sink, strerror(err));
    c.st = Conn::St::kHandshake;
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    for (;;) {
      size_t old = c.in.size();
      size_t room = std::max<size_t>(65536, c.in.capacity() - old);
      c.in.resize(old + room);
      ssize_t r = ::recv(c.fd, c.in.data() + old, room, 0);
      c.in.resize(old + (r > 0 ? static_cast<size_t>(r) : 0));
      if (r == 0) {
        if (!parse_frames(c, sink)) return fail(c, &sink, "protocol violation");
        return fail(c, &sink, "peer closed");
      }
      if (r < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        return fail(c, &sink, strerror(errno));
      }
      if (!parse_frames(c, sink)) return fail(c, &sink, "protocol violation");
      if (static_cast<size_t>(r) < room) break;
    }
  }
  if (c.st != Conn::St::kDead && c.st != Conn::St::kConnecting) {
    if (!flush(c)) return fail(c, &sink, strerror(errno));
    update_interest(c);
  }
}

void TcpTransport::reap() {
  need_reap_ = false;
  conns_.erase(std::remove_if(conns_.begin(), conns_.end(),
                              [](const std::unique_ptr<Conn>& c) { return c->st == Conn::St::kDead; }),
               conns_.end());
}

int TcpTransport::poll(Sink& sink) {
  if (epfd_ < 0) return 0;
  int handled = 0;
  for (int32_t p : lost_) sink.on_peer_lost(p);
  handled += static_cast<int>(lost_.size());
  lost_.clear();
  epoll_event evs[64];
  int n = epoll_wait(epfd_, evs, 64, 0);
  for (int i = 0; i < n; ++i) {
    if (!evs[i].data.ptr) {
      accept_all();
      continue;
    }
    if (evs[i].data.ptr == &timer_fd_) {
      expire_strangers();
      continue;
    }
    on_event(*static_cast<Conn*>(evs[i].data.ptr), evs[i].events, sink);
    ++handled;
  }
  if (need_reap_) reap();
  return handled;
}

}  // namespace ftmpi::transport
