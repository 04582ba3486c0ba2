// ftmpid: a dead slot's restart from its local checkpoint image
// (transparent mode; spec/checkpoint-protocol.md §5). Instead of spawning
// the program, the daemon connects to the image's wake socket and passes it
// the descriptors a fresh spawn of the slot would get; the image puts them
// in place, answers, and resumes as the next incarnation (HELLO on its new
// control socket). From then on it is the slot's process like any other.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/common/process.hpp"
#include "rte/daemon/daemon.hpp"
#include "rte/proto/ckpt_messages.hpp"
#include "rte/proto/wake.hpp"

namespace ftmpi::rte {
namespace {

// The image answers as soon as it runs; a loaded machine may delay that.
constexpr int kWakeAnswerMs = 5000;

int connect_abstract(const std::string& name) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.size() + 2 > sizeof a.sun_path) {
    ::close(s);
    return -1;
  }
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), len) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// One message: the header with each descriptor's target, the descriptors.
bool send_descriptors(int sock, const std::vector<int>& fds, const std::vector<int32_t>& targets) {
  proto::WakeHeader h;
  h.count = static_cast<uint32_t>(fds.size());
  std::copy(targets.begin(), targets.end(), h.target);
  char space[CMSG_SPACE(sizeof(int) * proto::kWakeMaxFds)] = {};
  iovec iov{&h, sizeof h};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = space;
  m.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  ssize_t n;
  do n = ::sendmsg(sock, &m, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof h);
}

bool wait_answer(int sock, proto::WakeAnswer& a) {
  const uint64_t deadline = now_ns() + static_cast<uint64_t>(kWakeAnswerMs) * 1000000u;
  size_t got = 0;
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= deadline) return false;
    pollfd p{sock, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>((deadline - now) / 1000000u) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ssize_t n = ::recv(sock, reinterpret_cast<uint8_t*>(&a) + got, sizeof a - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
    if (got == sizeof a) return a.ok == proto::kWakeOk;
  }
}

}  // namespace

// The one place that decides how a dead slot of this host starts again.
// Without a local image it is a stored image if prepare_restore found one,
// else the program's start, which is correct only while every sender still
// holds its whole log and the event logger every determinant (no garbage
// was collected); where that is no longer so, restart_here ends the job
// instead (refuse_restart_from_start).
Daemon::RestartPlan Daemon::plan_restart(const LocalRank& r) const {
  if (state_.transparent() && latest_image_.count(r.id.slot)) return RestartPlan::kWakeImage;
  return RestartPlan::kFromStart;
}

void Daemon::restart_here(LocalRank& r, const ProcId& who) {
  // Without a local image, a stored one (buddy, disk) is restored if there
  // is one (daemon_ckpt_store.cpp); it keeps its own account of failures.
  if (r.exited) prepare_restore(who, &r);
  LocalRanks::Starter start;
  if (plan_restart(r) == RestartPlan::kFromStart) {
    if (refuse_restart_from_start(who)) return;  // garbage was collected (daemon_gc.cpp)
  } else {
    start = [this](const LocalRank& x, const ChildFds& fds) {
      const pid_t pid = wake_image(x, fds);
      // An image that cannot be woken leaves only the program's start.
      if (pid < 0 && refuse_restart_from_start(x.id)) return LocalRanks::kNotStarted;
      return pid;
    };
  }
  // Still awaiting while the old incarnation's end is reported (on_finished
  // must not find the host done); the new process keeps the slot open after.
  if (!ranks_.respawn(r, who, start)) {
    FTMPI_LOG(kError, "ftmpid", "rank %d has not ended yet; cannot respawn it", who.slot);
    return;
  }
  r.awaiting_respawn = false;
}

pid_t Daemon::wake_image(const LocalRank& r, const ChildFds& fds) {
  auto latest = latest_image_.find(r.id.slot);
  if (latest == latest_image_.end()) return -1;
  const pid_t pid = latest->second;
  ImageProc& img = images_.at(pid);
  std::vector<int> give = {fds.ctrl, fds.in, fds.out, fds.err};
  std::vector<int32_t> where = {proto::kWakeAnyFd, 0, 1, 2};
  if (const int stage = ranks_.stage_fd(r); stage >= 0) {
    give.push_back(stage);
    where.push_back(stage);
  }
  if (r.in_segment) {
    give.push_back(ranks_.shm_fd());
    where.push_back(ranks_.shm_fd());
    for (int d : ranks_.doorbells()) {
      give.push_back(d);
      where.push_back(d);
    }
  } else if (r.own_doorbell >= 0) {
    give.push_back(r.own_doorbell);
    where.push_back(r.own_doorbell);
  }
  const char* failed = nullptr;
  int sock = -1;
  if (give.size() > proto::kWakeMaxFds)
    failed = "too many descriptors to pass";
  else if ((sock = connect_abstract(proto::wake_socket_name(img.owner_pid, img.number))) < 0)
    failed = "its wake socket refused";
  else if (!send_descriptors(sock, give, where))
    failed = "the descriptors could not be passed";
  proto::WakeAnswer answer;
  if (!failed && !wait_answer(sock, answer)) failed = "it did not answer";
  fd::close_quietly(sock);
  const uint64_t number = img.number;
  const ProcId owner = img.owner;
  const uint64_t skipped = img.received;
  if (failed) {
    FTMPI_LOG(kWarn, "ftmpid", "rank %d: local image %llu (pid %d) cannot be woken (%s); a stored image or the "
              "program's start serves instead", r.id.slot, static_cast<unsigned long long>(number),
              static_cast<int>(pid), failed);
    drop_image(pid);
    // Often the image was killed with its rank and its end is not seen yet.
    // With the local image gone, the spawn that follows restores the stored
    // one if there is one.
    prepare_restore(r.id, nullptr);
    return -1;
  }
  // The slot's process now: LocalRanks watches and reaps it from here on.
  loop_.unwatch(img.watch);
  fd::close_quietly(img.pidfd);
  images_.erase(pid);
  latest_image_.erase(latest);
  // The spare it left is the slot's image until its next checkpoint.
  if (answer.spare_pid > 0 && keep_image(owner, pid, skipped, number, answer.spare_pid))
    latest_image_[r.id.slot] = answer.spare_pid;
  const uint64_t took = ns_since_death(r.id.slot);
  woken_[r.id.slot] = Woken{owner, number, took, skipped};
  FTMPI_LOG(kInfo, "ftmpid", "rank %d restarts from its local image %llu (pid %d), %.1f ms after its death",
            r.id.slot, static_cast<unsigned long long>(number), static_cast<int>(pid), static_cast<double>(took) / 1e6);
  return pid;
}

}  // namespace ftmpi::rte
