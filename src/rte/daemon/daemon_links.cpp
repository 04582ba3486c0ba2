// The daemon's link to the launcher, its listener for other daemons, and
// the heartbeats on every link.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/common/process.hpp"
#include "rte/daemon/daemon.hpp"

namespace ftmpi::rte {

using proto::MsgType;

namespace {
constexpr int kConnectAuthTimeoutMs = 10000;

// The local address of a connected socket ("a.b.c.d"), "" on error.
std::string local_address(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0 || sa.sin_family != AF_INET) return "";
  char ip[INET_ADDRSTRLEN] = "";
  inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
  return ip;
}
}  // namespace

int Daemon::tcp_user_timeout_ms() const {
  // Unacknowledged data this old means the peer host is gone; heartbeats
  // usually tell first. Before JOB_START only the launcher link exists.
  if (!job_) return 10000;
  return static_cast<int>(std::max<uint32_t>(1000, 2 * job_->heartbeat_timeout_ms));
}

bool Daemon::listen_for_peers() {
  listen_fd_ = fd::tcp_listen(my_addr_, listen_port_);
  if (listen_fd_ < 0) {
    FTMPI_LOG(kError, "ftmpid", "cannot listen on %s", my_addr_.c_str());
    return false;
  }
  fd::set_nonblocking(listen_fd_);
  listen_watch_ = loop_.watch(listen_fd_, EPOLLIN, [this](uint32_t) { accept_peers(); });
  return true;
}

bool Daemon::connect_launcher() {
  // Nothing else to do until the launcher answers: a blocking connect is fine here.
  int fd = fd::tcp_connect(args_.launcher_addr, args_.launcher_port, /*nonblocking=*/false);
  if (fd < 0) {
    FTMPI_LOG(kError, "ftmpid", "cannot connect to the launcher at %s:%u", args_.launcher_addr.c_str(),
              args_.launcher_port);
    return false;
  }
  fd::tcp_tune(fd, tcp_user_timeout_ms());
  if (!auth::handshake_fd(fd, secret_, /*initiator=*/true, kConnectAuthTimeoutMs)) {
    FTMPI_LOG(kError, "ftmpid", "the launcher at %s:%u did not authenticate", args_.launcher_addr.c_str(),
              args_.launcher_port);
    ::close(fd);
    return false;
  }
  fd::set_nonblocking(fd);
  if (fd::peer_on_this_host(fd)) local_launcher_pid_ = getppid();
  my_addr_ = args_.bind_addr == "auto" ? local_address(fd) : args_.bind_addr;
  if (my_addr_.empty() || !listen_for_peers()) {
    ::close(fd);
    return false;
  }
  Connection::Handlers h;
  h.on_frame = [this](const proto::Frame& f) { on_launcher_frame(f); };
  h.on_close = [this](const std::string& why) { on_launcher_closed(why); };
  launcher_ = std::make_unique<Connection>(loop_, fd, "launcher", nullptr, std::move(h));
  launcher_->set_on_drained([this] { ranks_.pause_output(false); });
  proto::DaemonHello hello;
  hello.host = args_.host;
  hello.pid = static_cast<int32_t>(getpid());
  hello.peer_port = listen_port_;
  hello.addr = my_addr_;
  start_ckpt_server();
  hello.ckpt_port = ckpt_server_ ? ckpt_server_->port() : 0;
  launcher_->send(hello);
  return true;
}

void Daemon::accept_peers() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EINTR) FTMPI_LOG(kWarn, "ftmpid", "accept failed: errno %d", errno);
      return;
    }
    fd::tcp_tune(fd, tcp_user_timeout_ms());
    std::string name = "daemon connection from " + fd::peer_name(fd);
    // The handlers need the connection's address, which exists only after construction.
    auto self = std::make_shared<Connection*>(nullptr);
    Connection::Handlers h;
    h.on_frame = [this, self](const proto::Frame& f) { on_child_frame(*self, f); };
    h.on_close = [this, self](const std::string& why) {
      if (*self) on_child_closed(*self, why);
    };
    auto conn = std::make_unique<Connection>(loop_, fd, name, &secret_, std::move(h));
    if (conn->closed()) continue;
    *self = conn.get();
    peers_.push_back(std::move(conn));
  }
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
    case MsgType::kCkptOrder:
      ok = job_ && with_parsed<proto::CkptOrder>(f, [&](auto& m) { on_ckpt_order(m); });
      break;
    case MsgType::kInjectKill:
      ok = job_ && with_parsed<proto::InjectKill>(f, [&](auto& m) { on_inject(m); });
      break;
    case MsgType::kView:
      ok = job_ && with_parsed<proto::View>(f, [&](auto& m) { apply_view(m); });
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
  // mpirun is the job's anchor: without it (its host lost, or a network
  // split that left us on the other side) this host's part of the job ends.
  FTMPI_LOG(kError, "ftmpid", "lost the launcher (%s); ending local ranks", why.c_str());
  exit_without_done_ = true;
  exit_status_ = 1;
  terminate(1, false);
}

void Daemon::on_signal() {
  int sig;
  while ((sig = read_signal(signal_fd_)) != 0) {
    FTMPI_LOG(kInfo, "ftmpid", "got %s; ending ranks", signal_name(sig).c_str());
    // Exiting on our own (not through SHUTDOWN) tells the launcher something is wrong.
    exit_without_done_ = true;
    terminate(128 + sig, terminating_);
  }
}

void Daemon::to_launcher(const std::vector<uint8_t>& frame) {
  if (launcher_) launcher_->send_frame(frame);
}

void Daemon::start_heartbeats() {
  if (launcher_) launcher_->touch();  // it may have been quiet while the other daemons started
  heartbeat_timer_ = loop_.after_ms(job_->heartbeat_ms, [this] { heartbeat_tick(); });
}

void Daemon::heartbeat_tick() {
  heartbeat_timer_ = 0;
  if (stop_) return;
  const uint64_t now = now_ns(), limit = static_cast<uint64_t>(job_->heartbeat_timeout_ms) * 1000000ull;
  // A tick that comes late means this daemon did not run for a while: the
  // silence may be its own (frames still unread). Judge at the next tick.
  if (heartbeat_last_tick_ns_ != 0 && now - heartbeat_last_tick_ns_ > limit / 2) {
    if (launcher_) launcher_->touch();
    if (parent_) parent_->touch();
    for (const auto& [c, host] : child_host_) c->touch();
  }
  heartbeat_last_tick_ns_ = now;
  auto beat = [](Connection& c) {
    // A link that is backed up is not silent; do not pile heartbeats on it.
    if (!c.closed() && c.pending() < (64u << 10)) c.send(proto::Heartbeat{});
  };
  auto silent = [&](const Connection& c) { return !c.closed() && now > c.last_rx_ns() + limit; };
  auto ms = [&](const Connection& c) { return std::to_string((now - c.last_rx_ns()) / 1000000ull); };
  if (launcher_ && !launcher_->closed()) {
    if (!silent(*launcher_)) {
      beat(*launcher_);
    } else if (local_launcher_pid_ > 1 && getppid() == local_launcher_pid_ &&
               fd::process_running(local_launcher_pid_)) {
      // Our parent on this host, over loopback, and still running: starved, not lost.
      FTMPI_LOG(kInfo, "ftmpid", "launcher silent for %s ms but running; waiting", ms(*launcher_).c_str());
      launcher_->touch();
    } else {
      launcher_->close("launcher silent for " + ms(*launcher_) + " ms");
      if (stop_) return;
    }
  }
  if (parent_ && !parent_->closed()) {
    if (silent(*parent_))
      suspect_host(parent_host_, "parent silent for " + ms(*parent_) + " ms");
    else if (parent_->authenticated())
      beat(*parent_);
  }
  std::vector<std::pair<int32_t, std::string>> quiet;
  for (const auto& [c, host] : child_host_) {
    if (silent(*c))
      quiet.emplace_back(host, "child silent for " + ms(*c) + " ms");
    else
      beat(*c);
  }
  for (const auto& [host, why] : quiet) suspect_host(host, why);
  if (!stop_) heartbeat_timer_ = loop_.after_ms(job_->heartbeat_ms, [this] { heartbeat_tick(); });
}

void Daemon::suspect_host(int32_t host, const std::string& why) {
  if (host < 0 || host == args_.host) return;
  close_tree_link_to(host);
  if (tree_links_quiet() || (host < static_cast<int32_t>(lost_.size()) && lost_[static_cast<size_t>(host)]))
    return;
  FTMPI_LOG(kError, "ftmpid", "host %d (%s) looks lost: %s; telling the launcher", host,
            job_ && host < static_cast<int32_t>(job_->hosts.size()) ? job_->hosts[static_cast<size_t>(host)].name.c_str()
                                                                     : "?",
            why.c_str());
  to_launcher(proto::make_frame(proto::HostSuspect{host, why}));
}

}  // namespace ftmpi::rte
