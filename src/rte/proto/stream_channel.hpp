// One framed control connection over a stream socket (TCP or socketpair).
// Never blocks: reads take what the socket has, writes queue what the socket
// does not take yet. Callers decide when to wait (epoll in the runtime, poll()
// in rte::Client). The channel owns its fd.
#pragma once
#include <string>
#include <vector>

#include "rte/proto/frame.hpp"

namespace ftmpi::rte::proto {

class StreamChannel {
 public:
  explicit StreamChannel(int fd = -1, uint32_t max_frame = kMaxFrame) : fd_(fd), reader_(max_frame) {}
  ~StreamChannel() { close(); }
  StreamChannel(const StreamChannel&) = delete;
  StreamChannel& operator=(const StreamChannel&) = delete;

  int fd() const { return fd_; }
  void close();

  enum class Io { kOk, kEof, kError };
  // Moves up to max_bytes of what the socket holds into the frame reader.
  Io read_available(size_t max_bytes = 1u << 20);
  // Next complete frame. kBad: malformed stream; log error() and close.
  FrameReader::Next next(Frame& out) { return reader_.next(out); }
  // Feeds bytes that were read elsewhere (e.g. right after a handshake).
  void feed(const uint8_t* p, size_t n) { reader_.feed(p, n); }

  template <typename M>
  void send(const M& m) {
    append_frame(out_, m);
  }
  void send_raw(const std::vector<uint8_t>& bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
  // Writes queued bytes as far as the socket takes them. kError: peer gone.
  Io flush();
  size_t pending() const { return out_.size() - out_off_; }
  // Bytes received so far (a liveness signal for the owner).
  uint64_t rx_bytes() const { return rx_bytes_; }
  const std::string& error() const { return reader_.failed() ? reader_.error() : error_; }

 private:
  int fd_;
  FrameReader reader_;
  std::vector<uint8_t> out_;
  size_t out_off_ = 0;
  uint64_t rx_bytes_ = 0;
  std::string error_;
};

}  // namespace ftmpi::rte::proto
