#include "rte/launcher/launcher.hpp"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

extern char** environ;

#include "base/fd.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "rte/common/process.hpp"
#include "rte/launcher/hosts.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

using proto::MsgType;

namespace {
constexpr size_t kStdinWindow = 1u << 20;
constexpr uint64_t kStartupTimeoutMs = 30000;
// After a second Ctrl-C, daemons that are still there get SIGKILL this soon.
constexpr uint64_t kHardKillDelayMs = 3000;
// A daemon whose link closed must exit within this time, or it is killed.
constexpr uint64_t kDaemonExitTimeoutMs = 5000;
// Untagged output: a line without newline (a prompt) is shown after this pause.
constexpr uint64_t kPartialLineDelayMs = 200;
}  // namespace

Launcher::Launcher(const LaunchOptions& opts, std::vector<HostPlan> hosts, int np, LaunchAgent& agent)
    : opts_(opts),
      np_(np),
      agent_(agent),
      secret_(auth::make_secret()),
      out_(opts.tag_output, [this](int stream, const std::string& b) { write_out(stream, b); }) {
  for (HostPlan& h : hosts) {
    DaemonEntry d;
    d.plan = std::move(h);
    daemons_.push_back(std::move(d));
  }
  slots_.resize(static_cast<size_t>(np));
  outcome_.set_transparent(opts.modes.transparent_mode());
  for (size_t h = 0; h < daemons_.size(); ++h)
    for (int32_t s : daemons_[h].plan.slots) slots_[static_cast<size_t>(s)].host = static_cast<int32_t>(h);
  seed_ = opts_.inject_seed_set ? opts_.inject_seed : [] {
    uint64_t x;
    auth::random_bytes(&x, sizeof x);
    return x;
  }();
  rng_ = InjectRandom(seed_);
  // Disk images of a kept job must not be taken for a later job's.
  ckpt_job_ = "job" + std::to_string(getpid()) + "-" + std::to_string(wall_clock_ns() / 1'000'000'000);
}

Launcher::~Launcher() {
  for (DaemonEntry& d : daemons_) {
    if (d.pid_watch) loop_.unwatch(d.pid_watch);
    fd::close_quietly(d.pidfd);
  }
  if (step_watch_) loop_.unwatch(step_watch_);
  fd::close_quietly(step_pidfd_);
  conns_.clear();
  if (stdin_watch_) loop_.unwatch(stdin_watch_);
  if (listen_watch_) loop_.unwatch(listen_watch_);
  if (signal_watch_) loop_.unwatch(signal_watch_);
  fd::close_quietly(listen_fd_);
  fd::close_quietly(signal_fd_);
}

const std::string& Launcher::host_name(int32_t host) const {
  static const std::string unknown = "?";
  return host >= 0 && host < static_cast<int32_t>(daemons_.size()) ? daemons_[static_cast<size_t>(host)].plan.name
                                                                     : unknown;
}

void Launcher::say(const std::string& line) {
  // Our own lines start a line even if a rank's last line had no newline.
  write_out(2, (stderr_at_line_start_ ? "" : "\n") + line + "\n");
}

void Launcher::write_out(int stream, const std::string& bytes) {
  // Waiting writes: a slow reader slows the job down instead of filling memory,
  // also when the stdout we inherited happens to be non-blocking.
  int fd = stream == 2 ? 2 : 1;
  if (fd == 2 && !bytes.empty()) stderr_at_line_start_ = bytes.back() == '\n';
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (w > 0) {
      off += static_cast<size_t>(w);
    } else if (w < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 1000);
    } else if (!(w < 0 && errno == EINTR)) {
      return;  // closed or broken (EPIPE): nobody reads it any more
    }
  }
}

int Launcher::run() {
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTTIN, SIG_IGN);  // reading stdin in the background then fails with EIO = EOF
  signal_fd_ = make_signal_fd({SIGINT, SIGTERM, SIGHUP});
  signal_watch_ = loop_.watch(signal_fd_, EPOLLIN, [this](uint32_t) { on_signal(); });
  // With remote hosts, daemons connect back over the job network.
  std::string remote_host;
  for (const DaemonEntry& d : daemons_)
    if (d.plan.remote && remote_host.empty()) remote_host = d.plan.name;
  if (!remote_host.empty()) {
    const char* forced = std::getenv("FTMPI_LAUNCHER_ADDR");
    launcher_addr_ = forced && *forced ? forced : source_address_towards(remote_host);
    if (launcher_addr_.empty()) {
      say("ftmpirun: no route to host " + remote_host + " (set FTMPI_LAUNCHER_ADDR to this machine's address)");
      return 1;
    }
  }
  listen_fd_ = fd::tcp_listen(remote_host.empty() ? "127.0.0.1" : launcher_addr_, listen_port_);
  if (listen_fd_ < 0) {
    say("ftmpirun: cannot listen for daemons");
    return 1;
  }
  fd::set_nonblocking(listen_fd_);
  listen_watch_ = loop_.watch(listen_fd_, EPOLLIN, [this](uint32_t) { accept_daemons(); });
  start_wall_ns_ = wall_clock_ns();
  if (!opts_.timeline.empty()) {
    std::string err;
    if (!timeline_.open(opts_.timeline, start_wall_ns_, err)) {
      say("ftmpirun: " + err);
      return 2;
    }
  }
  write_contact_file();
  TimelineEvent start("job_start");
  start.add("job", static_cast<int64_t>(getpid())).add("np", np_).add("program", opts_.program);
  start.add("hosts", static_cast<int64_t>(daemons_.size())).add("comm_mode", mode_name(opts_.modes.comm));
  start.add("msg_mode", mode_name(opts_.modes.msg)).add("coll_mode", mode_name(opts_.modes.coll));
  start.add("recovery_mode", mode_name(opts_.modes.recovery)).add("transparent", mode_name(opts_.modes.transparent));
  if (!opts_.injects.empty()) start.add("inject_seed", seed_);
  record(start, start_wall_ns_);
  start_daemons();
  if (opts_.timeout_s > 0)
    loop_.after_ms(static_cast<uint64_t>(opts_.timeout_s) * 1000, [this] {
      outcome_.on_timeout(opts_.timeout_s);
      end_job(kTimeoutExitStatus, false);
    });
  startup_timer_ = loop_.after_ms(kStartupTimeoutMs, [this] {
    startup_timer_ = 0;
    if (job_started_) return;
    outcome_.on_startup_error("ftmpirun: the daemons did not all connect within " +
                              std::to_string(kStartupTimeoutMs / 1000) + " s");
    end_job(1, false);
  });
  while (!finished()) loop_.run_once(-1);
  out_.flush_all();
  for (const std::string& line : outcome_.final_lines()) say(line);
  std::string summary = outcome_.summary_line(opts_.summary);
  if (!summary.empty()) say(summary);
  if (std::string c = ckpt_summary(); !c.empty()) say(c);
  ckpt_end_disk();
  record(TimelineEvent("job_end")
             .add("status", outcome_.exit_status())
             .add("failures", outcome_.failures())
             .add("rounds", outcome_.rounds())
             .add("recovering_ms", static_cast<double>(outcome_.recovering_ns()) / 1e6)
             .add("replays", outcome_.replays())
             .add("replaying_ms", static_cast<double>(outcome_.replaying_ns()) / 1e6));
  contact_.remove();
  return outcome_.exit_status();
}

bool Launcher::finished() const {
  if (step_running()) return false;
  for (const DaemonEntry& d : daemons_) {
    if (d.pid > 0 && !d.reaped) return false;
    if (d.conn && !d.link_closed) return false;
  }
  return true;
}

void Launcher::start_daemons() {
  std::string job_id = std::to_string(getpid());
  if (agent_.starts_all_at_once()) {
    start_step(job_id);
    return;
  }
  for (size_t h = 0; h < daemons_.size(); ++h) {
    DaemonEntry& d = daemons_[h];
    std::string err;
    d.pid = agent_.start(daemon_launch(h, job_id), err);
    if (d.pid < 0) {
      outcome_.on_startup_error("ftmpirun: cannot start the daemon for " + d.plan.name + ": " + err);
      end_job(1, false);
      return;
    }
    d.pidfd = open_pidfd(d.pid);
    d.pid_watch = loop_.watch(d.pidfd, EPOLLIN, [this, h](uint32_t) { on_daemon_process(daemons_[h]); });
  }
}

DaemonLaunch Launcher::daemon_launch(size_t h, const std::string& job_id) const {
  const DaemonEntry& d = daemons_[h];
  DaemonLaunch l;
  l.host = static_cast<int32_t>(h);
  l.host_name = d.plan.name;
  // Multi-host jobs: every daemon binds its job-network address (what its
  // connection to us leaves from), so ranks can reach each other across hosts.
  l.bind_addr = launcher_addr_.empty() ? d.plan.addr : "auto";
  l.remote = d.plan.remote;
  l.launcher_addr = launcher_addr_.empty() ? "127.0.0.1" : launcher_addr_;
  l.launcher_port = listen_port_;
  l.job_id = job_id;
  l.secret = secret_;
  return l;
}

void Launcher::on_daemon_process(DaemonEntry& d) {
  proto::ExitInfo e;
  if (d.reaped || !reap(d.pid, e)) return;
  d.reaped = true;
  loop_.unwatch(d.pid_watch);
  d.pid_watch = 0;
  fd::close_quietly(d.pidfd);
  FTMPI_LOG(kDebug, "ftmpirun", "daemon for %s %s", d.plan.name.c_str(), describe_exit(e).c_str());
  if (!d.hello) {
    outcome_.on_startup_error("ftmpirun: the daemon for " + d.plan.name + " " + describe_exit(e) +
                              " before connecting");
    end_job(1, false);
  }
}

void Launcher::accept_daemons() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EINTR) FTMPI_LOG(kWarn, "ftmpirun", "accept failed: errno %d", errno);
      return;
    }
    fd::tcp_tune(fd, static_cast<int>(std::max<uint32_t>(1000, 2 * heartbeat_timeout_ms())));
    auto self = std::make_shared<Connection*>(nullptr);
    Connection::Handlers h;
    h.on_frame = [this, self](const proto::Frame& f) { on_frame(*self, f); };
    h.on_close = [this, self](const std::string& why) {
      if (*self) on_closed(*self, why);
    };
    auto conn = std::make_unique<Connection>(loop_, fd, "connection from " + fd::peer_name(fd), &secret_,
                                             std::move(h));
    if (conn->closed()) continue;
    *self = conn.get();
    conns_.push_back(std::move(conn));
  }
}

void Launcher::on_frame(Connection* c, const proto::Frame& f) {
  auto it = conn_host_.find(c);
  bool ok;
  if (it != conn_host_.end())
    ok = on_daemon_frame(daemons_[static_cast<size_t>(it->second)], f);
  else if (f.type == static_cast<uint16_t>(MsgType::kKillRequest) || control_conns_.count(c))
    ok = on_control_request(c, f);  // ftmpirun --kill from another terminal
  else
    ok = on_hello(c, f);
  if (!ok) {
    FTMPI_LOG(kError, "ftmpirun", "%s sent a bad or unexpected %s; closing", c->name().c_str(),
              proto::msg_name(f.type));
    c->close("protocol error");
  }
}

bool Launcher::on_hello(Connection* c, const proto::Frame& f) {
  proto::DaemonHello m;
  if (!proto::parse(f, m) || m.version != proto::kProtocolVersion ||
      m.host >= static_cast<int32_t>(daemons_.size()))
    return false;
  DaemonEntry& d = daemons_[static_cast<size_t>(m.host)];
  if (d.hello) return false;
  d.hello = true;
  d.conn = c;
  d.peer_port = m.peer_port;
  d.ckpt_port = m.ckpt_port;
  d.addr = m.addr;
  conn_host_[c] = m.host;
  c->set_name("daemon on " + d.plan.name);
  if (outcome_.ending()) {
    c->send(proto::Shutdown{});  // the job ended while this daemon was starting
    return true;
  }
  maybe_start_job();
  return true;
}

void Launcher::maybe_start_job() {
  for (const DaemonEntry& d : daemons_)
    if (!d.hello) return;
  if (job_started_ || outcome_.ending()) return;
  job_started_ = true;
  if (startup_timer_) loop_.cancel(startup_timer_);
  startup_timer_ = 0;
  proto::JobStart job;
  job.world_size = np_;
  job.modes = opts_.modes;
  job.leader = 0;
  for (const DaemonEntry& d : daemons_)
    job.hosts.push_back(
        proto::HostEntry{d.plan.name, d.addr.empty() ? d.plan.addr : d.addr, d.peer_port, d.plan.slots, d.ckpt_port});
  job.program = opts_.program;
  job.args = opts_.args;
  char cwd[PATH_MAX];
  job.cwd = getcwd(cwd, sizeof cwd) ? cwd : "";
  job.shm_size = params::get_size("FTMPI_SHM_SIZE", 0);
  job.grace_ms = static_cast<uint32_t>(params::get_int("FTMPI_KILL_GRACE_MS", 1000));
  job.stdin_slot = 0;
  job.epoch = 0;
  job.max_respawn = static_cast<uint32_t>(std::max<int64_t>(0, params::get_int("FTMPI_MAX_RESPAWN", 10)));
  job.trace = timeline_.enabled();
  job.heartbeat_ms = heartbeat_ms();
  job.heartbeat_timeout_ms = heartbeat_timeout_ms();
  job.tree_fanout = static_cast<uint32_t>(std::max<int64_t>(1, params::get_int("FTMPI_TREE_FANOUT", 8)));
  job.env = job_environment();
  for (DaemonEntry& d : daemons_) d.conn->send(job);
  start_heartbeats();
  for (size_t h = 0; h < daemons_.size(); ++h)
    for (int32_t s : daemons_[h].plan.slots)
      if (s == job.stdin_slot) stdin_host_ = static_cast<int32_t>(h);
  start_stdin();
}

void Launcher::on_output(const proto::Io& m) {
  if (transparent()) {
    std::string fresh = once_.filter(m.slot, m.stream, m.data);
    if (fresh.empty()) return;
    out_.data(m.slot, m.stream, fresh);
  } else {
    out_.data(m.slot, m.stream, m.data);
  }
  if (!opts_.tag_output && !partial_timer_ && out_.has_partial()) {
    partial_timer_ = loop_.after_ms(kPartialLineDelayMs, [this] {
      partial_timer_ = 0;
      out_.flush_partial();
    });
  }
}

void Launcher::on_closed(Connection* c, const std::string& why) {
  auto it = conn_host_.find(c);
  if (control_conns_.erase(c)) {
    for (auto w = kill_waiters_.begin(); w != kill_waiters_.end();) w = w->second == c ? kill_waiters_.erase(w) : ++w;
  } else if (it == conn_host_.end()) {
    // Never identified: a stray or unauthenticated connection. The job goes on.
    FTMPI_LOG(kError, "ftmpirun", "rejected %s: %s", c->name().c_str(), why.c_str());
  } else {
    DaemonEntry& d = daemons_[static_cast<size_t>(it->second)];
    d.link_closed = true;
    d.conn = nullptr;  // destroyed below, after this callback
    conn_host_.erase(it);
    int32_t host = static_cast<int32_t>(&d - daemons_.data());
    if (d.lost) {
      // declared lost already (it closed this link itself)
    } else if (job_started_ && !outcome_.ending() && !d.done) {
      // The leader fails that host's ranks (a new leader if it was the
      // leader's host); in an FT mode the job goes on.
      declare_lost(host, why);
    } else if (!shutdown_sent_ || !d.done) {
      record(TimelineEvent("daemon_lost").add("host", d.plan.name).add("why", why));
      outcome_.on_daemon_lost(d.plan.name, why);
      end_job(1, false);
    }
    if (static_cast<int32_t>(&d - daemons_.data()) == stdin_host_) stop_stdin();
    if (d.pid > 0 && !d.reaped) {
      pid_t pid = d.pid;
      size_t h = static_cast<size_t>(&d - daemons_.data());
      loop_.after_ms(kDaemonExitTimeoutMs, [this, h, pid] {
        if (!daemons_[h].reaped) kill(pid, SIGKILL);
      });
    }
    maybe_shutdown();
  }
  loop_.defer([this, c] {
    for (auto p = conns_.begin(); p != conns_.end(); ++p) {
      if (p->get() == c) {
        conns_.erase(p);
        return;
      }
    }
  });
}

std::vector<std::string> Launcher::job_environment() const {
  // FTMPI_* always (remote ranks do not inherit our environment), then -x.
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (std::string_view(*e).starts_with("FTMPI_")) env.emplace_back(*e);
  // Checkpoints: a cheap fork needs a heap in huge pages (ckpt_options.hpp).
  // Before -x, so that the user's own GLIBC_TUNABLES wins.
  const char* opt_out = std::getenv("FTMPI_CKPT_HUGEPAGES");
  if (std::string t = ckpt_tunables(opts_.ckpt, std::getenv("GLIBC_TUNABLES"), opt_out && std::string(opt_out) == "0");
      !t.empty())
    env.push_back(std::move(t));
  if (std::string store = ckpt_store_env(opts_.ckpt); !store.empty()) {
    env.push_back(std::move(store));
    env.push_back("FTMPI_CKPT_JOB=" + ckpt_job_);
  }
  for (const std::string& x : opts_.export_env) {
    if (x.find('=') != std::string::npos) {
      env.push_back(x);
    } else if (const char* v = std::getenv(x.c_str())) {
      env.push_back(x + "=" + v);
    }
  }
  return env;
}

void Launcher::maybe_shutdown() {
  if (shutdown_sent_) return;
  // A daemon is still at work until it is done, its link closed or its own
  // process ended (daemons of an srun step have no process of their own).
  for (const DaemonEntry& d : daemons_)
    if (!d.done && !d.link_closed && !(d.pid > 0 && d.reaped)) return;
  shutdown_sent_ = true;
  stop_stdin();
  for (DaemonEntry& d : daemons_)
    if (d.conn && !d.link_closed) d.conn->send(proto::Shutdown{});
}

void Launcher::end_job(int32_t exit_code, bool immediate) {
  stop_stdin();
  for (DaemonEntry& d : daemons_) {
    if (d.conn && !d.link_closed) {
      if (job_started_)
        d.conn->send(proto::Terminate{exit_code, immediate});
      else
        d.conn->send(proto::Shutdown{});
    } else if (d.pid > 0 && !d.reaped && !d.hello) {
      kill(d.pid, immediate ? SIGKILL : SIGTERM);  // still starting up
    } else if (!d.hello && step_running()) {
      kill(step_pid_, SIGTERM);  // srun passes it on to the daemons of the step
    }
  }
}

void Launcher::kill_daemons() {
  for (DaemonEntry& d : daemons_)
    if (d.pid > 0 && !d.reaped) kill(d.pid, SIGKILL);
  if (step_running()) kill(step_pid_, SIGKILL);
}

void Launcher::on_signal() {
  int sig;
  while ((sig = read_signal(signal_fd_)) != 0) {
    ++signals_seen_;
    if (signals_seen_ == 1) {
      outcome_.on_signal(sig);
      end_job(128 + sig, false);
    } else if (signals_seen_ == 2) {
      say("ftmpirun: killing the job now");
      end_job(128 + sig, true);
      loop_.after_ms(kHardKillDelayMs, [this] { kill_daemons(); });
    } else {
      kill_daemons();  // ranks follow through PR_SET_PDEATHSIG
    }
  }
}

void Launcher::start_stdin() {
  if (stdin_host_ < 0) return;
  stdin_watch_ = loop_.watch(0, EPOLLIN, [this](uint32_t) { pump_stdin(); });
  if (stdin_watch_) return;
  if (errno == EPERM) {
    stdin_is_file_ = true;  // regular file or /dev/null: always readable
    loop_.defer([this] { pump_stdin(); });
  } else {
    stop_stdin();  // no stdin at all
  }
}

void Launcher::pump_stdin() {
  DaemonEntry* d = stdin_host_ >= 0 ? &daemons_[static_cast<size_t>(stdin_host_)] : nullptr;
  if (stdin_done_ || !d || !d->conn || d->link_closed) return;
  char buf[proto::kIoChunk];
  // A pipe or terminal gets one read per readiness (a second might block);
  // a regular file is read until the window is full.
  do {
    if (stdin_in_flight_ >= kStdinWindow) {
      if (stdin_watch_) loop_.unwatch(stdin_watch_);  // until STDIN_CREDIT
      stdin_watch_ = 0;
      return;
    }
    ssize_t n = ::read(0, buf, std::min(sizeof buf, kStdinWindow - stdin_in_flight_));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      stop_stdin();  // EOF, or EIO when reading a terminal from the background
      return;
    }
    d->conn->send(proto::Stdin{std::string(buf, static_cast<size_t>(n))});
    stdin_in_flight_ += static_cast<size_t>(n);
  } while (stdin_is_file_);
}

void Launcher::on_stdin_credit(size_t bytes) {
  stdin_in_flight_ -= std::min(stdin_in_flight_, bytes);
  if (stdin_done_) return;
  if (stdin_is_file_)
    pump_stdin();
  else if (!stdin_watch_)
    stdin_watch_ = loop_.watch(0, EPOLLIN, [this](uint32_t) { pump_stdin(); });
}

void Launcher::stop_stdin() {
  if (stdin_done_) return;
  stdin_done_ = true;
  if (stdin_watch_) loop_.unwatch(stdin_watch_);
  stdin_watch_ = 0;
  DaemonEntry* d = stdin_host_ >= 0 ? &daemons_[static_cast<size_t>(stdin_host_)] : nullptr;
  if (d && d->conn && !d->link_closed) d->conn->send(proto::StdinEof{});
}

}  // namespace ftmpi::rte
