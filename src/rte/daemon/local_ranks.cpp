#include "rte/daemon/local_ranks.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "base/fd.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "rte/daemon/ckpt_server.hpp"
#include "rte/common/limits.hpp"
#include "rte/common/process.hpp"

namespace ftmpi::rte {
namespace {

// How long output pipes may stay open after their rank exited (something it
// started outside its process group still holds them).
constexpr uint64_t kOutputLingerMs = 2000;
// A staging area's size: ~6500 one-determinant batches between two looks
// of the daemon (a full ring sends the next batch as DET_LOG, which the
// daemon answers after taking the ring's records).
constexpr size_t kStageBytes = proto::kStageHeaderBytes + (256u << 10);

}  // namespace

LocalRanks::LocalRanks(EventLoop& loop, RankListener& listener) : loop_(loop), listener_(listener) {}

LocalRanks::~LocalRanks() {
  for (LocalRank& r : ranks_) {
    if (r.pid > 0 && !r.exited) {
      kill(-r.pid, SIGKILL);
      kill(r.pid, SIGKILL);
      waitpid(r.pid, nullptr, 0);
    }
    r.ctrl.reset();
    if (r.pid_watch) loop_.unwatch(r.pid_watch);
    fd::close_quietly(r.pidfd);
    for (int s = 0; s < 2; ++s) {
      if (r.out_watch[s]) loop_.unwatch(r.out_watch[s]);
      fd::close_quietly(r.out_fd[s]);
    }
    if (r.in_watch) loop_.unwatch(r.in_watch);
    fd::close_quietly(r.in_fd);
    fd::close_quietly(r.own_doorbell);
    fd::close_quietly(r.stage_fd);
    if (r.stage_map) munmap(r.stage_map, kStageBytes);
    if (r.linger_timer) loop_.cancel(r.linger_timer);
  }
  for (int& d : doorbells_) fd::close_quietly(d);
  fd::close_quietly(shm_fd_);
}

bool LocalRanks::create_host_resources(const std::vector<int32_t>& slots, size_t spare, uint64_t shm_size,
                                       std::string& err) {
  ranks_.resize(slots.size());  // never resized again: callbacks hold indices
  for (size_t i = 0; i < slots.size(); ++i) {
    ranks_[i].id = ProcId{slots[i], 0};
    ranks_[i].local_index = static_cast<int32_t>(i);
  }
  host_slots_ = slots;
  uint64_t n = slots.size() + (slots.size() > 0 ? spare : 0);
  // The launcher checked this machine's hosts; a remote host checks here.
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  std::string problem = fd_limit_problem(static_cast<long>(n), host, raise_open_file_limit());
  if (!problem.empty()) {
    err = problem;
    return false;
  }
  shm_size_ = shm_size ? shm_size : (1ull << 20) + n * n * (256ull << 10);
  shm_fd_ = memfd_create("ftmpi-shm", MFD_CLOEXEC);
  if (shm_fd_ < 0 || ftruncate(shm_fd_, static_cast<off_t>(shm_size_)) != 0) {
    err = std::string("cannot create the shared-memory segment: ") + std::strerror(errno);
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    int d = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (d < 0) {
      err = std::string("cannot create a doorbell: ") + std::strerror(errno);
      return false;
    }
    doorbells_.push_back(d);
  }
  return true;
}

LocalRank* LocalRanks::find(int32_t slot) {
  for (LocalRank& r : ranks_)
    if (r.id.slot == slot) return &r;
  return nullptr;
}

bool LocalRanks::all_finished() const {
  for (const LocalRank& r : ranks_)
    if (!r.finished) return false;
  return true;
}

void LocalRanks::spawn_all(const Launch& launch) {
  launch_ = launch;
  for (LocalRank& r : ranks_) spawn_one(r, launch);
}

bool LocalRanks::respawn(LocalRank& r, const ProcId& who, const Starter& start) {
  if (!r.exited || r.id.slot != who.slot) return false;
  for (int s = 0; s < 2; ++s) close_output(r, s);  // ends the old incarnation (on_finished)
  drop_stdin(r);
  if (r.linger_timer) loop_.cancel(r.linger_timer);
  // Not inside this connection's callbacks: RESPAWN arrives from the leader.
  r.ctrl.reset();
  int32_t local_index = r.local_index;
  bool in_segment = r.in_segment;
  int doorbell = r.own_doorbell;
  int stage_fd = r.stage_fd;
  void* stage_map = r.stage_map;
  r = LocalRank{};
  r.id = who;
  r.local_index = local_index;
  r.in_segment = in_segment;
  r.own_doorbell = doorbell;
  r.stage_fd = stage_fd;
  r.stage_map = stage_map;
  r.joined = false;
  spawn_one(r, launch_, start);
  return true;
}

void LocalRanks::drain_output(LocalRank& r) {
  for (int s = 0; s < 2; ++s) read_output(r, s, true);
}

LocalRank& LocalRanks::adopt(const ProcId& who) {
  ranks_.emplace_back();
  LocalRank& r = ranks_.back();
  r.id = who;
  r.local_index = static_cast<int32_t>(ranks_.size() - 1);
  // Adopted ranks take the spare indices in order, so a rank's index in
  // ranks_ is its index in the segment as long as spares last.
  r.in_segment = static_cast<size_t>(r.local_index) < doorbells_.size() && shm_fd_ >= 0;
  r.own_doorbell = r.in_segment ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  r.joined = false;
  spawn_one(r, launch_);
  return r;
}

void LocalRanks::create_stage(LocalRank& r) {
  // The name starts with the transports' segment's: checkpoint images leave
  // both out (modules/ckpt/store_copy.hpp kSegmentPath).
  int fd = memfd_create("ftmpi-shm-dets", MFD_CLOEXEC);
  void* p = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(kStageBytes)) == 0)
    p = mmap(nullptr, kStageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED || !proto::stage_init(p, kStageBytes)) {
    // Without it the rank logs every batch through its control socket.
    FTMPI_LOG(kWarn, "ftmpid", "rank %d: no determinant staging area: %s", r.id.slot, std::strerror(errno));
    if (p != MAP_FAILED) munmap(p, kStageBytes);
    fd::close_quietly(fd);
    return;
  }
  r.stage_fd = fd;
  r.stage_map = p;
}

proto::StageReader LocalRanks::stage(const LocalRank& r) const {
  return r.stage_map ? proto::StageReader(r.stage_map, kStageBytes) : proto::StageReader();
}

std::vector<int32_t> LocalRanks::segment_slots(const LocalRank& r) const {
  std::vector<int32_t> out(doorbells_.size(), -1);
  std::copy(host_slots_.begin(), host_slots_.end(), out.begin());
  out[static_cast<size_t>(r.local_index)] = r.id.slot;
  return out;
}

void LocalRanks::spawn_one(LocalRank& r, const Launch& launch, const Starter& start) {
  size_t i = static_cast<size_t>(r.local_index);
  int sv[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, inp[2] = {-1, -1};
  bool wants_stdin = r.id.slot == launch.stdin_slot && r.id.incarnation == 0;
  bool ok = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 && pipe2(outp, O_CLOEXEC) == 0 &&
            pipe2(errp, O_CLOEXEC) == 0;
  if (ok && wants_stdin) {
    ok = pipe2(inp, O_CLOEXEC) == 0;
  } else if (ok) {
    inp[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ok = inp[0] >= 0;
  }
  std::string err = ok ? "" : std::string("cannot create fds: ") + std::strerror(errno);
  if (ok && launch.det_stage && r.stage_fd < 0) create_stage(r);
  pid_t pid = -1;
  if (ok && start) pid = start(r, ChildFds{sv[1], inp[0], outp[1], errp[1]});
  const bool refused = ok && start && pid == kNotStarted;
  if (refused) pid = -1;
  if (ok && pid < 0 && !refused) {
    SpawnRequest req;
    req.argv.push_back(launch.program);
    req.argv.insert(req.argv.end(), launch.args.begin(), launch.args.end());
    // The job's variables (forwarded from the launcher) first: ours must win.
    std::vector<std::string> overrides = launch.env;
    overrides.push_back("FTMPI_CTRL_FD=" + std::to_string(sv[1]));
    overrides.push_back("FTMPI_SLOT=" + std::to_string(r.id.slot));
    overrides.push_back("FTMPI_WORLD_SIZE=" + std::to_string(launch.world_size));
    req.env = environment_with(overrides);
    req.dup_to = {{inp[0], 0}, {outp[1], 1}, {errp[1], 2}};
    req.inherit = {sv[1]};
    if (r.stage_fd >= 0) req.inherit.push_back(r.stage_fd);
    if (r.in_segment) {
      req.inherit.push_back(shm_fd_);
      req.inherit.insert(req.inherit.end(), doorbells_.begin(), doorbells_.end());
    } else if (r.own_doorbell >= 0) {
      req.inherit.push_back(r.own_doorbell);
    }
    req.cwd = launch.cwd;
    req.parent_death_signal = SIGKILL;
    req.group = SpawnRequest::Group::kOwnGroup;
    req.who = "ftmpid";
    req.no_aslr = launch.no_aslr;
    if (restore_fd_ >= 0) make_restorer(req, restore_fd_);
    pid = spawn(req, err);
  }
  fd::close_quietly(restore_fd_);
  for (int* f : {&sv[1], &outp[1], &errp[1], &inp[0]}) fd::close_quietly(*f);
  if (pid < 0) {
    if (!refused) FTMPI_LOG(kError, "ftmpid", "cannot start rank %d: %s", r.id.slot, err.c_str());
    for (int* f : {&sv[0], &outp[0], &errp[0], &inp[1]}) fd::close_quietly(*f);
    r.exit = proto::ExitInfo{proto::ExitInfo::kExited, 127};
    loop_.defer([this, i] {
      LocalRank& x = ranks_[i];
      x.exited = true;
      listener_.on_exit(x);
      x.exit_announced = true;
      maybe_finished(x);
    });
    return;
  }
  r.pid = pid;
  r.pidfd = open_pidfd(pid);
  r.pid_watch = loop_.watch(r.pidfd, EPOLLIN, [this, i](uint32_t) { on_pidfd(ranks_[i]); });
  for (int f : {sv[0], outp[0], errp[0], inp[1]})
    if (f >= 0) fd::set_nonblocking(f);
  r.out_fd[0] = outp[0];
  r.out_fd[1] = errp[0];
  r.in_fd = inp[1];
  for (int s = 0; s < 2; ++s)
    r.out_watch[s] = loop_.watch(r.out_fd[s], EPOLLIN, [this, i, s](uint32_t) { read_output(ranks_[i], s, false); });
  Connection::Handlers h;
  h.on_frame = [this, i](const proto::Frame& f) { listener_.on_control(ranks_[i], f); };
  h.on_close = [this, i](const std::string& why) {
    FTMPI_LOG(kDebug, "ftmpid", "control channel of rank %d closed: %s", ranks_[i].id.slot, why.c_str());
  };
  r.ctrl = std::make_unique<Connection>(loop_, sv[0], "rank " + std::to_string(r.id.slot), nullptr, std::move(h));
  FTMPI_LOG(kDebug, "ftmpid", "started rank %d.%u as pid %d", r.id.slot, r.id.incarnation, static_cast<int>(pid));
  listener_.on_started(r);
}

void LocalRanks::on_pidfd(LocalRank& r) {
  if (r.exited) return;
  // The rank is a zombie now, so its pid (= its pgid) cannot be reused yet:
  // clear out whatever it left running in its group before reaping it.
  kill(-r.pid, SIGKILL);
  if (!reap(r.pid, r.exit)) return;
  r.exited = true;
  loop_.unwatch(r.pid_watch);
  r.pid_watch = 0;
  fd::close_quietly(r.pidfd);
  // Its last words (ABORT, FENCE) and output come before the news of its exit.
  if (r.ctrl) r.ctrl->poll_input();
  for (int s = 0; s < 2; ++s) read_output(r, s, true);
  if (!r.booted && listener_.start_over(r)) return;
  drop_stdin(r);
  listener_.on_exit(r);
  r.exit_announced = true;
  maybe_finished(r);
  if (!r.finished && !r.linger_timer) {
    size_t i = static_cast<size_t>(r.local_index);
    r.linger_timer = loop_.after_ms(kOutputLingerMs, [this, i] {
      LocalRank& x = ranks_[i];
      x.linger_timer = 0;
      for (int s = 0; s < 2; ++s) close_output(x, s);
    });
  }
}

void LocalRanks::read_output(LocalRank& r, int s, bool drain) {
  char buf[proto::kIoChunk];
  while (r.out_fd[s] >= 0) {
    ssize_t n = ::read(r.out_fd[s], buf, sizeof buf);
    if (n > 0) {
      listener_.on_output(r, static_cast<uint8_t>(s + 1), std::string(buf, static_cast<size_t>(n)));
      if (!drain) return;  // one chunk per wake-up keeps ranks fair
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_output(r, s);
    return;
  }
}

void LocalRanks::close_output(LocalRank& r, int s) {
  if (r.out_fd[s] < 0) return;
  if (r.out_watch[s]) loop_.unwatch(r.out_watch[s]);
  r.out_watch[s] = 0;
  fd::close_quietly(r.out_fd[s]);
  listener_.on_output_eof(r, static_cast<uint8_t>(s + 1));
  if (r.exited) maybe_finished(r);
}

void LocalRanks::maybe_finished(LocalRank& r) {
  // Draining the pipes of a rank that just died may close them before its
  // exit was classified: wait for on_exit() in any case.
  if (r.finished || !r.exit_announced || r.out_fd[0] >= 0 || r.out_fd[1] >= 0) return;
  r.finished = true;
  if (r.linger_timer) loop_.cancel(r.linger_timer);
  r.linger_timer = 0;
  if (r.ctrl) r.ctrl->close("rank ended");
  listener_.on_finished(r);
}

void LocalRanks::signal_all(int sig) {
  for (LocalRank& r : ranks_) {
    if (r.pid <= 0 || r.exited) continue;
    if (kill(-r.pid, sig) != 0) kill(r.pid, sig);
  }
}

void LocalRanks::check(LocalRank& r) {
  if (r.pidfd < 0 || r.exited) return;
  pollfd p{r.pidfd, POLLIN, 0};
  if (::poll(&p, 1, 0) == 1) on_pidfd(r);
}

void LocalRanks::pause_output(bool paused) {
  if (paused == output_paused_) return;
  output_paused_ = paused;
  for (size_t i = 0; i < ranks_.size(); ++i) {
    LocalRank& r = ranks_[i];
    for (int s = 0; s < 2; ++s) {
      if (r.out_fd[s] < 0) continue;
      // Unwatch rather than mask: a closed pipe would report EPOLLHUP anyway.
      if (paused && r.out_watch[s]) {
        loop_.unwatch(r.out_watch[s]);
        r.out_watch[s] = 0;
      } else if (!paused && !r.out_watch[s]) {
        r.out_watch[s] =
            loop_.watch(r.out_fd[s], EPOLLIN, [this, i, s](uint32_t) { read_output(ranks_[i], s, false); });
      }
    }
  }
}

void LocalRanks::write_stdin(const std::string& data) {
  for (LocalRank& r : ranks_) {
    if (r.in_fd >= 0 && !r.in_eof) {
      r.in_buf += data;
      pump_stdin(r);
      return;
    }
  }
  listener_.on_stdin_consumed(data.size());  // nobody reads it any more
}

void LocalRanks::close_stdin() {
  for (LocalRank& r : ranks_) {
    if (r.in_fd >= 0) {
      r.in_eof = true;
      pump_stdin(r);
    }
  }
}

void LocalRanks::pump_stdin(LocalRank& r) {
  size_t written = 0;
  while (r.in_fd >= 0 && written < r.in_buf.size()) {
    ssize_t w = ::write(r.in_fd, r.in_buf.data() + written, r.in_buf.size() - written);
    if (w > 0) {
      written += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) break;
    r.in_buf.erase(0, written);
    listener_.on_stdin_consumed(written);
    drop_stdin(r);  // the rank closed its stdin
    return;
  }
  r.in_buf.erase(0, written);
  if (written) listener_.on_stdin_consumed(written);
  if (r.in_fd < 0) return;
  if (r.in_buf.empty() && r.in_eof) {
    drop_stdin(r);
    return;
  }
  size_t i = static_cast<size_t>(r.local_index);
  if (!r.in_buf.empty() && !r.in_watch) {
    r.in_watch = loop_.watch(r.in_fd, EPOLLOUT, [this, i](uint32_t) { pump_stdin(ranks_[i]); });
  } else if (r.in_buf.empty() && r.in_watch) {
    loop_.unwatch(r.in_watch);
    r.in_watch = 0;
  }
}

void LocalRanks::drop_stdin(LocalRank& r) {
  if (r.in_fd < 0) return;
  if (r.in_watch) loop_.unwatch(r.in_watch);
  r.in_watch = 0;
  fd::close_quietly(r.in_fd);
  size_t dropped = r.in_buf.size();
  r.in_buf.clear();
  r.in_eof = true;
  if (dropped) listener_.on_stdin_consumed(dropped);
}

}  // namespace ftmpi::rte
