// The buddy checkpoint server (spec/checkpoint-image.md §6): a daemon keeps
// in memory the process images other hosts' ranks stream to it, and serves
// them back (to a restorer on another host over the same protocol, or to a
// restorer it starts itself as an inherited memfd). It checks every stream
// with the image framing (base/ckpt_image_format.hpp) as it arrives: a torn
// or corrupt image is refused and never replaces the one held before.
// Runs in the daemon's EventLoop; never blocks.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/common/process.hpp"

namespace ftmpi::rte {

class CheckpointServer {
 public:
  struct Held {
    uint64_t number = 0;
    uint64_t bytes = 0;
  };

  CheckpointServer(EventLoop& loop, const auth::Secret& secret);
  ~CheckpointServer();
  CheckpointServer(const CheckpointServer&) = delete;
  CheckpointServer& operator=(const CheckpointServer&) = delete;

  // Listens on addr (port 0: any); false if it cannot.
  bool listen(const std::string& addr);
  uint16_t port() const { return port_; }
  // The whole image held for `slot`, if any.
  std::optional<Held> held(int32_t slot) const;
  // Forgets the image of `slot` (its process ended, or the job did).
  void drop(int32_t slot) { images_.erase(slot); }
  // A new memfd (close-on-exec, offset 0) holding the image of `slot`, or -1.
  int image_memfd(int32_t slot) const;
  // Asks another daemon's server for its image of `slot` (GET, any number):
  // a socket positioned at the stream (a restorer reads it) and the image's
  // `number`, or -1 and
  // `why`. Blocks for at most `timeout_ms` (connect, handshake, answer; the
  // stream itself is read by the restorer), so a daemon may call it in its
  // loop with a timeout well under its heartbeat timeout.
  static int fetch(const std::string& addr, uint16_t port, const auth::Secret& secret, int32_t slot,
                   int timeout_ms, uint64_t& number, std::string& why);

 private:
  struct Client;
  void accept_clients();
  void on_client(Client& c, uint32_t events);
  bool read_some(Client& c);
  bool write_some(Client& c);
  void request(Client& c);
  void close_client(Client& c, const std::string& why);

  EventLoop& loop_;
  auth::Secret secret_;
  int listen_fd_ = -1;
  uint64_t listen_watch_ = 0;
  uint16_t port_ = 0;
  // By serial, not descriptor: a closed client is erased later (deferred),
  // when its descriptor number may already be a new client's.
  std::map<uint64_t, std::unique_ptr<Client>> clients_;
  uint64_t serials_ = 0;
  struct Image {
    uint64_t number = 0;
    std::shared_ptr<const std::vector<uint8_t>> bytes;  // shared with GETs in progress
  };
  std::map<int32_t, Image> images_;
};

// Turns the spawn request of a rank into that of its restorer from `image_fd`
// (a file, memfd or socket holding an image): the same program with
// address randomisation off, FTMPI_CKPT_RESTORE naming the descriptor the
// child inherits (spec/checkpoint-image.md §4). The caller closes image_fd
// after spawn().
void make_restorer(SpawnRequest& req, int image_fd);

}  // namespace ftmpi::rte
