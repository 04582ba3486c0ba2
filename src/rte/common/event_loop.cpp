#include "rte/common/event_loop.hpp"

#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "base/clock.hpp"
#include "base/log.hpp"

namespace ftmpi::rte {

EventLoop::EventLoop() {
  ep_ = epoll_create1(EPOLL_CLOEXEC);
  if (ep_ < 0) {
    FTMPI_LOG(kError, "rte", "epoll_create1 failed");
    std::abort();  // nothing in the runtime can work without it
  }
}

EventLoop::~EventLoop() {
  if (ep_ >= 0) ::close(ep_);
}

uint64_t EventLoop::watch(int fd, uint32_t events, IoHandler h) {
  uint64_t id = next_id_++;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = id;
  if (epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) return 0;
  watches_[id] = Watch{fd, std::make_shared<IoHandler>(std::move(h))};
  return id;
}

void EventLoop::set_events(uint64_t id, uint32_t events) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = id;
  epoll_ctl(ep_, EPOLL_CTL_MOD, it->second.fd, &ev);
}

void EventLoop::unwatch(uint64_t id) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  epoll_ctl(ep_, EPOLL_CTL_DEL, it->second.fd, nullptr);
  watches_.erase(it);
}

uint64_t EventLoop::after_ms(uint64_t delay_ms, Callback cb) {
  uint64_t id = next_id_++;
  timers_[id] = std::move(cb);
  timer_queue_.emplace(now_ns() + delay_ms * 1000000ull, id);
  return id;
}

void EventLoop::cancel(uint64_t timer_id) { timers_.erase(timer_id); }

void EventLoop::defer(Callback cb) { deferred_.push_back(std::move(cb)); }

void EventLoop::run_once(int max_wait_ms) {
  int wait = deferred_.empty() ? max_wait_ms : 0;
  // Drop cancelled timers from the front so they do not shorten the wait.
  while (!timer_queue_.empty() && !timers_.count(timer_queue_.begin()->second))
    timer_queue_.erase(timer_queue_.begin());
  if (!timer_queue_.empty()) {
    uint64_t now = now_ns(), due = timer_queue_.begin()->first;
    int until = due <= now ? 0 : static_cast<int>((due - now + 999999) / 1000000);
    if (wait < 0 || until < wait) wait = until;
  }
  epoll_event evs[64];
  int n = epoll_wait(ep_, evs, 64, wait);
  if (n < 0 && errno != EINTR) FTMPI_LOG(kWarn, "rte", "epoll_wait failed: errno %d", errno);
  for (int i = 0; i < n; ++i) {
    auto it = watches_.find(evs[i].data.u64);
    if (it == watches_.end()) continue;  // unwatched by an earlier handler of this batch
    std::shared_ptr<IoHandler> h = it->second.handler;
    (*h)(evs[i].events);
  }
  uint64_t now = now_ns();
  while (!timer_queue_.empty() && timer_queue_.begin()->first <= now) {
    uint64_t id = timer_queue_.begin()->second;
    timer_queue_.erase(timer_queue_.begin());
    auto t = timers_.find(id);
    if (t == timers_.end()) continue;
    Callback cb = std::move(t->second);
    timers_.erase(t);
    cb();
  }
  while (!deferred_.empty()) {
    std::vector<Callback> batch;
    batch.swap(deferred_);
    for (auto& cb : batch) cb();
  }
}

uint64_t wall_clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

int make_signal_fd(std::initializer_list<int> signals) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : signals) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int read_signal(int sfd) {
  signalfd_siginfo si;
  ssize_t r = ::read(sfd, &si, sizeof si);
  return r == static_cast<ssize_t>(sizeof si) ? static_cast<int>(si.ssi_signo) : 0;
}

void reset_signals_in_child() {
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGTTIN, SIGTTOU, SIGCHLD}) signal(s, SIG_DFL);
}

}  // namespace ftmpi::rte
