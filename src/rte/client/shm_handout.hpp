// Without a daemon, the ranks of a host have no common parent to inherit the
// host's shared-memory segment and doorbells from. The lowest local rank
// creates them and hands them to the others over an abstract Unix socket
// (SCM_RIGHTS); the socket's random name travels through the resource
// manager's key-value store, and only processes of the same user are served.
#pragma once
#include <string>
#include <vector>

#include "base/err.hpp"

namespace ftmpi::rte {

struct HostResources {
  int memfd = -1;              // the segment, empty (the transport sizes it)
  std::vector<int> doorbells;  // eventfd per local index
  void close_all();
};

class HandoutServer {
 public:
  HandoutServer() = default;
  ~HandoutServer();
  HandoutServer(const HandoutServer&) = delete;
  HandoutServer& operator=(const HandoutServer&) = delete;
  // Creates the resources of `n` local ranks and the listening socket.
  Err open(size_t n, HostResources& res);
  // The socket's abstract name (printable; without the leading NUL).
  const std::string& name() const { return name_; }
  // Serves every local index but `me` once; blocks at most timeout_ms.
  Err serve(const HostResources& res, size_t me, int timeout_ms);

 private:
  int listen_fd_ = -1;
  std::string name_;
};

// Connects to the local leader's socket and receives the segment and the
// `n` doorbells; my_local is this rank's local index.
Err fetch_host_resources(const std::string& name, int32_t my_local, size_t n, HostResources& out, int timeout_ms);

}  // namespace ftmpi::rte
