// The daemon's connections: to the launcher, to the leader (non-leaders), and
// from the other daemons (leader), plus frame routing between them.
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/daemon/daemon.hpp"

namespace ftmpi::rte {

using proto::MsgType;

namespace {
constexpr int kConnectAuthTimeoutMs = 10000;
// Keepalive and TCP_USER_TIMEOUT so that a silent peer host is noticed.
constexpr int kTcpUserTimeoutMs = 10000;

// Connects and proves the job secret; returns the non-blocking socket or -1.
int connect_authenticated(const std::string& addr, uint16_t port, const auth::Secret& secret, const char* what) {
  int fd = fd::tcp_connect(addr, port, /*nonblocking=*/false);
  if (fd < 0) {
    FTMPI_LOG(kError, "ftmpid", "cannot connect to the %s at %s:%u", what, addr.c_str(), port);
    return -1;
  }
  fd::tcp_tune(fd, kTcpUserTimeoutMs);
  if (!auth::handshake_fd(fd, secret, /*initiator=*/true, kConnectAuthTimeoutMs)) {
    FTMPI_LOG(kError, "ftmpid", "the %s at %s:%u did not authenticate", what, addr.c_str(), port);
    ::close(fd);
    return -1;
  }
  fd::set_nonblocking(fd);
  return fd;
}
}  // namespace

bool Daemon::listen_for_peers() {
  listen_fd_ = fd::tcp_listen(args_.bind_addr, listen_port_);
  if (listen_fd_ < 0) {
    FTMPI_LOG(kError, "ftmpid", "cannot listen on %s", args_.bind_addr.c_str());
    return false;
  }
  fd::set_nonblocking(listen_fd_);
  listen_watch_ = loop_.watch(listen_fd_, EPOLLIN, [this](uint32_t) { accept_peers(); });
  return true;
}

bool Daemon::connect_launcher() {
  int fd = connect_authenticated(args_.launcher_addr, args_.launcher_port, secret_, "launcher");
  if (fd < 0) return false;
  Connection::Handlers h;
  h.on_frame = [this](const proto::Frame& f) { on_launcher_frame(f); };
  h.on_close = [this](const std::string& why) { on_launcher_closed(why); };
  launcher_ = std::make_unique<Connection>(loop_, fd, "launcher", nullptr, std::move(h));
  launcher_->set_on_drained([this] { ranks_.pause_output(false); });
  proto::DaemonHello hello;
  hello.host = args_.host;
  hello.pid = static_cast<int32_t>(getpid());
  hello.peer_port = listen_port_;
  launcher_->send(hello);
  return true;
}

bool Daemon::connect_leader() {
  const proto::HostEntry& lead = job_->hosts[static_cast<size_t>(job_->leader)];
  int fd = connect_authenticated(lead.addr, lead.peer_port, secret_, "leader daemon");
  if (fd < 0) return false;
  Connection::Handlers h;
  h.on_frame = [this](const proto::Frame& f) { from_leader(f); };
  h.on_close = [this](const std::string& why) {
    // At the end of a job the leader may exit on SHUTDOWN before ours arrives.
    if (stop_ || done_sent_) return;
    // No succession yet: without its leader this daemon cannot serve the job.
    FTMPI_LOG(kError, "ftmpid", "lost the leader daemon (%s); ending local ranks", why.c_str());
    terminate(1, false);
  };
  leader_link_ = std::make_unique<Connection>(loop_, fd, "leader", nullptr, std::move(h));
  leader_link_->send(proto::PeerHello{proto::kProtocolVersion, args_.host});
  return true;
}

void Daemon::accept_peers() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EINTR)
        FTMPI_LOG(kWarn, "ftmpid", "accept failed: errno %d", errno);
      return;
    }
    fd::tcp_tune(fd, kTcpUserTimeoutMs);
    std::string name = "daemon connection from " + fd::peer_name(fd);
    // The handlers need the connection's address, which exists only after construction.
    auto self = std::make_shared<Connection*>(nullptr);
    Connection::Handlers h;
    h.on_frame = [this, self](const proto::Frame& f) { on_peer_frame(*self, f); };
    h.on_close = [this, self](const std::string& why) {
      if (*self) on_peer_closed(*self, why);
    };
    auto conn = std::make_unique<Connection>(loop_, fd, name, &secret_, std::move(h));
    if (conn->closed()) continue;
    *self = conn.get();
    peers_.push_back(std::move(conn));
  }
}

void Daemon::on_peer_frame(Connection* c, const proto::Frame& f) {
  auto it = peer_host_.find(c);
  if (it == peer_host_.end()) {
    proto::PeerHello hello;
    bool ok = proto::parse(f, hello) && hello.version == proto::kProtocolVersion && job_ && leader_ &&
              hello.host != args_.host && hello.host < static_cast<int32_t>(job_->hosts.size());
    for (const auto& [other, host] : peer_host_) ok = ok && host != hello.host;
    if (!ok) {
      FTMPI_LOG(kError, "ftmpid", "%s: bad or unexpected %s; closing", c->name().c_str(), proto::msg_name(f.type));
      c->close("bad hello");
      return;
    }
    peer_host_[c] = hello.host;
    c->set_name("daemon of host " + std::to_string(hello.host));
    for (const auto& frame : held_[hello.host]) c->send_frame(frame);
    held_.erase(hello.host);
    return;
  }
  if (!leader_->on_frame(it->second, f)) {
    FTMPI_LOG(kError, "ftmpid", "%s: bad %s; closing", c->name().c_str(), proto::msg_name(f.type));
    c->close("protocol error");
  }
}

void Daemon::on_peer_closed(Connection* c, const std::string& why) {
  auto it = peer_host_.find(c);
  if (it != peer_host_.end()) {
    int32_t host = it->second;
    peer_host_.erase(it);
    if (!stop_) {
      FTMPI_LOG(kError, "ftmpid", "lost the daemon of host %d (%s)", host, why.c_str());
      if (leader_) leader_->on_daemon_lost(host);
    }
  } else {
    FTMPI_LOG(kWarn, "ftmpid", "%s closed: %s", c->name().c_str(), why.c_str());
  }
  loop_.defer([this, c] {
    for (auto p = peers_.begin(); p != peers_.end(); ++p) {
      if (p->get() == c) {
        peers_.erase(p);
        return;
      }
    }
  });
}

void Daemon::on_launcher_frame(const proto::Frame& f) {
  using proto::with_parsed;
  bool ok = false;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kJobStart:
      ok = with_parsed<proto::JobStart>(f, [&](auto& m) { start_job(m); });
      break;
    case MsgType::kStdin:
      ok = job_ && with_parsed<proto::Stdin>(f, [&](auto& m) { ranks_.write_stdin(m.data); });
      break;
    case MsgType::kStdinEof:
      ok = job_ && with_parsed<proto::StdinEof>(f, [&](auto&) { ranks_.close_stdin(); });
      break;
    case MsgType::kTerminate:
      ok = with_parsed<proto::Terminate>(f, [&](auto& m) { terminate(m.exit_code, m.immediate); });
      break;
    case MsgType::kShutdown:
      ok = with_parsed<proto::Shutdown>(f, [&](auto&) { stop_ = true; });
      break;
    case MsgType::kInjectKill:
      ok = job_ && with_parsed<proto::InjectKill>(f, [&](auto& m) { on_inject(m); });
      break;
    default: break;
  }
  if (!ok) {
    FTMPI_LOG(kError, "ftmpid", "bad %s from the launcher; closing", proto::msg_name(f.type));
    launcher_->close("protocol error");
  }
}

void Daemon::on_launcher_closed(const std::string& why) {
  if (stop_) return;
  FTMPI_LOG(kError, "ftmpid", "lost the launcher (%s); ending local ranks", why.c_str());
  exit_without_done_ = true;
  exit_status_ = 1;
  terminate(1, false);
}

void Daemon::to_launcher(const std::vector<uint8_t>& frame) {
  if (launcher_) launcher_->send_frame(frame);
}

void Daemon::to_leader(const std::vector<uint8_t>& frame) {
  if (leader_) {
    // Through the loop, like a frame from a remote daemon: the leader never
    // runs inside the handler that produced the frame.
    loop_.defer([this, frame] {
      proto::Frame f;
      if (proto::split_frame(frame, f)) leader_->on_frame(args_.host, f);
    });
  } else if (leader_link_) {
    leader_link_->send_frame(frame);
  }
}

void Daemon::to_daemon(int32_t host, const std::vector<uint8_t>& frame) {
  if (host == args_.host) {
    loop_.defer([this, frame] {
      proto::Frame f;
      if (proto::split_frame(frame, f)) from_leader(f);
    });
    return;
  }
  for (const auto& [c, h] : peer_host_) {
    if (h == host) {
      c->send_frame(frame);
      return;
    }
  }
  held_[host].push_back(frame);  // that daemon has not connected yet
}

void Daemon::to_all_daemons(const std::vector<uint8_t>& frame) {
  for (int32_t h = 0; h < static_cast<int32_t>(job_->hosts.size()); ++h) to_daemon(h, frame);
}

}  // namespace ftmpi::rte
