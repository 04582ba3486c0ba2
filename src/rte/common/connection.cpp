#include "rte/common/connection.hpp"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cstring>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "rte/proto/wire.hpp"

namespace ftmpi::rte {

Connection::Connection(EventLoop& loop, int fd, std::string name, const auth::Secret* handshake_secret,
                       Handlers handlers, int handshake_timeout_ms)
    : loop_(loop), channel_(fd), name_(std::move(name)), handlers_(std::move(handlers)), last_rx_ns_(now_ns()) {
  if (handshake_secret) {
    hs_.emplace(*handshake_secret, /*initiator=*/false);
    hs_->start(hs_out_);
    start_handshake_timer(handshake_timeout_ms, "did not authenticate in time");
  }
  watch_ = loop_.watch(fd, EPOLLIN | (hs_ ? EPOLLOUT : 0u), [this](uint32_t ev) { on_events(ev); });
  want_out_ = hs_.has_value();
  if (!watch_) close("cannot watch socket");
}

Connection::Connection(EventLoop& loop, int fd, std::string name, const auth::Secret& secret, Handlers handlers,
                       int timeout_ms, Initiator)
    : loop_(loop), channel_(fd), name_(std::move(name)), handlers_(std::move(handlers)), last_rx_ns_(now_ns()) {
  hs_.emplace(secret, /*initiator=*/true);
  hs_->start(hs_out_);
  connecting_ = true;
  start_handshake_timer(timeout_ms, "did not connect and authenticate in time");
  watch_ = loop_.watch(fd, EPOLLOUT, [this](uint32_t ev) { on_events(ev); });
  want_out_ = true;
  if (!watch_) close("cannot watch socket");
}

std::unique_ptr<Connection> Connection::connect_to(EventLoop& loop, int fd, std::string name,
                                                   const auth::Secret& secret, Handlers handlers, int timeout_ms) {
  return std::unique_ptr<Connection>(
      new Connection(loop, fd, std::move(name), secret, std::move(handlers), timeout_ms, Initiator{}));
}

void Connection::start_handshake_timer(int timeout_ms, const char* what) {
  std::weak_ptr<bool> alive = alive_;
  std::string why = what;
  hs_timer_ = loop_.after_ms(static_cast<uint64_t>(timeout_ms), [this, alive, why] {
    if (alive.expired()) return;
    hs_timer_ = 0;
    close(why);
  });
}

void Connection::touch() { last_rx_ns_ = now_ns(); }

void Connection::finish_connect() {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(channel_.fd(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) {
    close(std::string("connect failed: ") + std::strerror(err));
    return;
  }
  connecting_ = false;
  // From here on it is the handshake of an accepted socket, seen from the other side.
  loop_.set_events(watch_, EPOLLIN | EPOLLOUT);
  want_out_ = true;
}

Connection::~Connection() {
  *alive_ = false;
  if (hs_timer_) loop_.cancel(hs_timer_);
  if (watch_) loop_.unwatch(watch_);
}

void Connection::close(const std::string& why) {
  if (closed_) return;
  closed_ = true;
  if (hs_timer_) loop_.cancel(hs_timer_);
  hs_timer_ = 0;
  if (watch_) loop_.unwatch(watch_);
  watch_ = 0;
  channel_.close();
  if (handlers_.on_close) handlers_.on_close(why);
}

void Connection::after_queue() {
  if (hs_ || connecting_) return;  // queued until the peer is authenticated
  if (channel_.flush() == proto::StreamChannel::Io::kError) {
    std::string why = "write failed: " + channel_.error();
    std::weak_ptr<bool> alive = alive_;
    loop_.defer([this, alive, why] {
      if (!alive.expired()) close(why);
    });
    return;
  }
  update_interest();
}

void Connection::update_interest() {
  if (connecting_) return;  // EPOLLOUT alone until connect() completes
  // While authenticating only handshake bytes may go out; frames queued
  // meanwhile must not keep EPOLLOUT armed (that would spin the loop).
  bool want = hs_ ? hs_sent_ < hs_out_.size() : channel_.pending() > 0;
  if (want != want_out_ && watch_) {
    loop_.set_events(watch_, EPOLLIN | (want ? EPOLLOUT : 0u));
    want_out_ = want;
  }
}

void Connection::handshake_step() {
  int fd = channel_.fd();
  while (hs_sent_ < hs_out_.size()) {
    ssize_t w = ::send(fd, hs_out_.data() + hs_sent_, hs_out_.size() - hs_sent_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w > 0) {
      hs_sent_ += static_cast<size_t>(w);
    } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      break;
    } else {
      close("handshake write failed");
      return;
    }
  }
  while (hs_->state() == auth::Handshake::State::kWaitHello ||
         hs_->state() == auth::Handshake::State::kWaitProof) {
    // Read no more than the handshake needs: later bytes are frames.
    uint8_t buf[auth::kHelloSize + auth::kProofSize];
    ssize_t r = ::recv(fd, buf, hs_->bytes_needed(), MSG_DONTWAIT);
    if (r == 0) {
      close("closed during the handshake");
      return;
    }
    if (r < 0) {
      if (errno == EAGAIN || errno == EINTR) break;
      close(std::string("handshake read failed: ") + std::strerror(errno));
      return;
    }
    last_rx_ns_ = now_ns();
    size_t before = hs_out_.size();
    hs_->feed(buf, static_cast<size_t>(r), hs_out_);
    if (hs_out_.size() != before) {
      handshake_step();  // send our proof right away
      return;
    }
  }
  if (hs_->state() == auth::Handshake::State::kFailed) {
    close("peer failed to prove the job secret");
    return;
  }
  if (hs_->state() == auth::Handshake::State::kDone && hs_sent_ == hs_out_.size()) {
    hs_.reset();
    if (hs_timer_) loop_.cancel(hs_timer_);
    hs_timer_ = 0;
    FTMPI_LOG(kDebug, "rte", "%s authenticated", name_.c_str());
    after_queue();  // anything queued meanwhile
  }
  update_interest();
}

void Connection::read_frames() {
  uint64_t before = channel_.rx_bytes();
  auto io = channel_.read_available();
  if (channel_.rx_bytes() != before) last_rx_ns_ = now_ns();
  proto::Frame f;
  proto::FrameReader::Next n;
  std::weak_ptr<bool> alive = alive_;
  while (!closed_ && (n = channel_.next(f)) == proto::FrameReader::Next::kFrame) {
    if (f.type == static_cast<uint16_t>(proto::MsgType::kHeartbeat) && f.payload.empty()) continue;
    handlers_.on_frame(f);
    if (alive.expired()) return;
  }
  if (closed_) return;
  if (n == proto::FrameReader::Next::kBad) {
    FTMPI_LOG(kError, "rte", "%s sent a malformed frame (%s); closing", name_.c_str(), channel_.error().c_str());
    close("malformed frame");
  } else if (io == proto::StreamChannel::Io::kEof) {
    close("connection closed by peer");
  } else if (io == proto::StreamChannel::Io::kError) {
    close("read failed: " + channel_.error());
  }
}

void Connection::on_events(uint32_t ev) {
  if (closed_) return;
  if (connecting_) {
    finish_connect();
    if (closed_ || connecting_) return;
  }
  if (hs_) {
    handshake_step();
    if (closed_ || hs_) return;
  }
  if (ev & EPOLLOUT) {
    size_t before = channel_.pending();
    if (channel_.flush() == proto::StreamChannel::Io::kError) {
      close("write failed: " + channel_.error());
      return;
    }
    update_interest();
    if (before > 0 && channel_.pending() == 0 && on_drained_) on_drained_();
    if (closed_) return;
  }
  if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_frames();
}

}  // namespace ftmpi::rte
