// TCP transport between hosts. Non-blocking sockets in one epoll set whose
// fd the progress engine sleeps on. Every connection runs the job-secret
// handshake (base/auth.hpp) and then an IDENT frame before any data frame.
//
// Each process sends to a peer only on the connection it opened itself and
// receives on the connections peers opened: there is no simultaneous-connect
// race to resolve, and one connection per direction keeps per-pair FIFO.
// Wire: u32 payload_length | u16 header_length | u16 kind | header | payload.
//
// Strangers (anyone on the host can connect to a rank's port) get what the
// launcher and daemons give them: a connection that has not proven the
// secret and sent its IDENT within FTMPI_TCP_AUTH_TIMEOUT_MS (10 s) is
// closed; at most FTMPI_TCP_MAX_UNAUTH (32) may be authenticating at once
// (a new one evicts the oldest: a real peer finishes in milliseconds); a
// descriptor is held in reserve so that running out of them still drains the
// listener; refusals are logged at the default level, at most one line per
// 10 s. A timerfd in the epoll set wakes a sleeping rank at each deadline.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/auth.hpp"
#include "base/err.hpp"
#include "base/proc_id.hpp"
#include "transport/transport.hpp"

namespace ftmpi::transport {

class TcpTransport final : public Transport {
 public:
  static constexpr size_t kMaxFrame = 64u << 20;

  TcpTransport();
  ~TcpTransport() override;
  TcpTransport(const TcpTransport&) = delete;
  TcpTransport& operator=(const TcpTransport&) = delete;

  Err init(const std::string& bind_addr, const auth::Secret& secret, ProcId self);
  void shutdown();
  // Drops every connection and the listener without closing a descriptor
  // (a woken checkpoint image: they were closed at the fork, and their
  // numbers may belong to new descriptors).
  void forget();
  const std::string& addr() const { return addr_; }
  uint16_t port() const { return port_; }
  // Readable whenever some socket needs attention; for the engine's epoll set.
  int epoll_fd() const { return epfd_; }

  void set_peer(int32_t slot, const std::string& addr, uint16_t port);
  // Never blocks: what the socket does not take now is copied and queued.
  void send(int32_t slot, const void* hdr, size_t hlen, const void* payload, size_t plen);
  size_t queued_bytes(int32_t slot) const;
  // room() offers nothing to a peer with this many bytes or more queued.
  void set_queue_limit(size_t bytes) { queue_limit_ = bytes; }

  // Transport, peers named by slot. send() never refuses a frame (it
  // queues what the socket does not take); a payload made by `fill` is
  // packed into a scratch buffer first. room() is what keeps a stream of
  // frames from queueing without bound. disconnect() closes both directions
  // with the peer (it died or was replaced).
  bool send(int peer, const void* hdr, size_t hlen, const Payload& p) override;
  uint64_t room(int peer, size_t hlen, uint64_t want) override;
  uint64_t max_payload(size_t hlen) const override;
  bool drained(int peer) const override { return queued_bytes(peer) == 0; }
  void disconnect(int peer) override;
  int poll(Sink& sink) override;

 private:
  struct Conn;
  struct PeerAddr {
    std::string addr;
    uint16_t port = 0;
  };
  Conn* connect_to(int32_t slot);
  void accept_all();
  void on_event(Conn& c, uint32_t events, Sink& sink);
  bool flush(Conn& c);
  bool parse_frames(Conn& c, Sink& sink);
  void update_interest(Conn& c);
  void fail(Conn& c, Sink* sink, const char* why);
  void reap();
  void reject(Conn& c, const char* why);
  void expire_strangers();
  void arm_timer();
  // Out of descriptors: accepts one connection with the spare and closes it;
  // false if there was none.
  bool refuse_without_fd();

  ProcId self_;
  auth::Secret secret_{};
  std::string addr_;
  uint16_t port_ = 0;
  int listen_fd_ = -1;
  int epfd_ = -1;
  int timer_fd_ = -1;  // fires at the earliest stranger's deadline
  int spare_fd_ = -1;  // given up to accept (and close) when out of descriptors
  uint64_t auth_timeout_ns_ = 0;
  size_t max_unauth_ = 0;
  uint64_t reject_log_ns_ = 0;  // when the last refusal line was written
  size_t unlogged_rejects_ = 0;
  std::unordered_map<int32_t, PeerAddr> peers_;
  std::unordered_map<int32_t, Conn*> out_;  // my connection to each peer
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<int32_t> lost_;  // peers whose connection broke outside poll()
  std::vector<uint8_t> scratch_;  // payloads packed by Payload::fill
  size_t queue_limit_ = 512u << 10;
  bool need_reap_ = false;
};

}  // namespace ftmpi::transport
