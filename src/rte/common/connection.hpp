// An authenticated, framed TCP (or socketpair) connection driven by the
// EventLoop. On an accepted socket it first runs the job-secret handshake
// (base/auth.hpp) without blocking the loop; nothing the peer sends is looked
// at before the peer has proven the secret. A connecting side either
// authenticates with auth::handshake_fd() before wrapping the socket, or
// hands over a non-blocking socket whose connect() is in progress
// (connect_to()): the connection finishes connecting and runs the initiator's
// side of the handshake in the loop, so a dead peer never blocks the process.
//
// Liveness: every byte received restarts last_rx_ns(); HEARTBEAT frames only
// do that and never reach on_frame. Owners send heartbeats and decide what a
// silent link means.
//
// Ownership rule: the owner keeps Connections in a container and never
// destroys one inside its own callbacks; it calls close() and erases it from
// a EventLoop::defer() callback. send() never calls back synchronously.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/auth.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/proto/stream_channel.hpp"

namespace ftmpi::rte {

class Connection {
 public:
  struct Handlers {
    std::function<void(const proto::Frame&)> on_frame;
    std::function<void(const std::string& why)> on_close;  // called once
  };
  // `handshake_secret`: run the responder side of the handshake first.
  Connection(EventLoop& loop, int fd, std::string name, const auth::Secret* handshake_secret,
             Handlers handlers, int handshake_timeout_ms = 10000);
  // `fd`: non-blocking, connect() in progress (or done). Frames sent before
  // the handshake completes are queued; a failed connect or handshake, or
  // one that takes longer than `timeout_ms`, closes the connection.
  static std::unique_ptr<Connection> connect_to(EventLoop& loop, int fd, std::string name,
                                                const auth::Secret& secret, Handlers handlers, int timeout_ms);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  template <typename M>
  void send(const M& m) {
    if (closed_) return;
    channel_.send(m);
    after_queue();
  }
  // Queues an already encoded frame (e.g. one built once for many links).
  void send_frame(const std::vector<uint8_t>& frame) {
    if (closed_) return;
    channel_.send_raw(frame);
    after_queue();
  }
  void close(const std::string& why);
  // Handles whatever the socket holds now, e.g. before acting on the peer's
  // exit, so that its last messages are not overtaken by the exit.
  void poll_input() {
    if (!closed_ && !hs_) read_frames();
  }
  bool closed() const { return closed_; }
  bool authenticated() const { return !hs_ && !connecting_; }
  // CLOCK_MONOTONIC ns of the last byte received (or of creation / touch()).
  uint64_t last_rx_ns() const { return last_rx_ns_; }
  void touch();
  size_t pending() const { return channel_.pending(); }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  // Called whenever queued output drops to zero (flow control of producers).
  void set_on_drained(std::function<void()> cb) { on_drained_ = std::move(cb); }

 private:
  struct Initiator {};
  Connection(EventLoop& loop, int fd, std::string name, const auth::Secret& secret, Handlers handlers,
             int timeout_ms, Initiator);
  void finish_connect();
  void start_handshake_timer(int timeout_ms, const char* what);
  void on_events(uint32_t ev);
  void after_queue();
  void handshake_step();
  void read_frames();
  void update_interest();

  EventLoop& loop_;
  proto::StreamChannel channel_;
  std::string name_;
  Handlers handlers_;
  std::optional<auth::Handshake> hs_;
  std::vector<uint8_t> hs_out_;
  size_t hs_sent_ = 0;
  uint64_t watch_ = 0;
  uint64_t hs_timer_ = 0;
  bool want_out_ = false;
  bool closed_ = false;
  bool connecting_ = false;
  uint64_t last_rx_ns_ = 0;
  std::function<void()> on_drained_;
  // Lets deferred work notice that the connection was destroyed meanwhile.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace ftmpi::rte
