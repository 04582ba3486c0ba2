#include "rte/proto/stream_channel.hpp"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace ftmpi::rte::proto {

void StreamChannel::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

StreamChannel::Io StreamChannel::read_available(size_t max_bytes) {
  uint8_t buf[64 * 1024];
  size_t total = 0;
  while (fd_ >= 0 && total < max_bytes) {
    ssize_t r = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (r > 0) {
      reader_.feed(buf, static_cast<size_t>(r));
      total += static_cast<size_t>(r);
      rx_bytes_ += static_cast<uint64_t>(r);
      continue;
    }
    if (r == 0) return Io::kEof;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Io::kOk;
    error_ = std::strerror(errno);
    return Io::kError;
  }
  return fd_ >= 0 ? Io::kOk : Io::kError;
}

StreamChannel::Io StreamChannel::flush() {
  while (fd_ >= 0 && out_off_ < out_.size()) {
    ssize_t w = ::send(fd_, out_.data() + out_off_, out_.size() - out_off_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w > 0) {
      out_off_ += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    error_ = w < 0 ? std::strerror(errno) : "short write";
    return Io::kError;
  }
  if (out_off_ == out_.size()) {
    out_.clear();
    out_off_ = 0;
  } else if (out_off_ > (1u << 20) && out_off_ * 2 > out_.size()) {
    out_.erase(out_.begin(), out_.begin() + static_cast<ptrdiff_t>(out_off_));
    out_off_ = 0;
  }
  return fd_ >= 0 ? Io::kOk : Io::kError;
}

}  // namespace ftmpi::rte::proto
