// The single-threaded epoll loop that drives the daemon and the launcher.
// Everything happens in handlers called from run_once(): fd readiness,
// timers, deferred work. Signals arrive through a signalfd (signal_fd()), so
// no code runs in signal context at all.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <vector>

namespace ftmpi::rte {

class EventLoop {
 public:
  using IoHandler = std::function<void(uint32_t events)>;
  using Callback = std::function<void()>;

  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Returns a watch id (> 0), or 0 with errno set if epoll refuses the fd
  // (EPERM for regular files and /dev/null: callers treat those as always ready).
  uint64_t watch(int fd, uint32_t events, IoHandler h);
  void set_events(uint64_t id, uint32_t events);
  // Safe inside any handler, including the watch's own; the fd stays open.
  void unwatch(uint64_t id);

  uint64_t after_ms(uint64_t delay_ms, Callback cb);
  void cancel(uint64_t timer_id);
  // Runs `cb` after the current batch of handlers: the place to destroy
  // objects whose callbacks are still on the stack.
  void defer(Callback cb);

  // Dispatches ready fds, due timers and deferred work once; waits at most
  // max_wait_ms for something to happen (-1: no limit).
  void run_once(int max_wait_ms = -1);

 private:
  struct Watch {
    int fd;
    std::shared_ptr<IoHandler> handler;
  };
  int ep_ = -1;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Watch> watches_;
  std::multimap<uint64_t, uint64_t> timer_queue_;  // deadline (ns) -> timer id
  std::map<uint64_t, Callback> timers_;
  std::vector<Callback> deferred_;
};

// CLOCK_REALTIME in nanoseconds: timeline stamps that compare across hosts.
uint64_t wall_clock_ns();

// Blocks `signals` for the process and returns a non-blocking signalfd that
// reports them. Children must call reset_signals_in_child() before exec.
int make_signal_fd(std::initializer_list<int> signals);
// Reads one pending signal from a signalfd; 0 if none.
int read_signal(int sfd);
// In a freshly forked child: unblock everything, restore default dispositions.
void reset_signals_in_child();

}  // namespace ftmpi::rte
