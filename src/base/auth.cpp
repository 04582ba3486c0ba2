#include "base/auth.hpp"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "base/clock.hpp"
#include "base/log.hpp"

namespace ftmpi::auth {
namespace {
constexpr uint8_t kMagic[8] = {'F', 'T', 'M', 'P', 'I', 'A', 'U', '1'};
}

void random_bytes(void* out, size_t n) {
  uint8_t* p = static_cast<uint8_t*>(out);
  while (n > 0) {
    ssize_t r = getrandom(p, n, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      std::abort();  // no entropy means no safe secret; never continue without one
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
}

Secret make_secret() {
  Secret s;
  random_bytes(s.data(), s.size());
  return s;
}

std::string to_hex(const Secret& s) {
  const char* const d = "0123456789abcdef";
  std::string out;
  for (uint8_t b : s) {
    out.push_back(d[b >> 4]);
    out.push_back(d[b & 15]);
  }
  return out;
}

bool from_hex(const std::string& hex, Secret& out) {
  if (hex.size() != out.size() * 2) return false;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < out.size(); ++i) {
    int h = nib(hex[2 * i]), l = nib(hex[2 * i + 1]);
    if (h < 0 || l < 0) return false;
    out[i] = static_cast<uint8_t>(h << 4 | l);
  }
  return true;
}

Handshake::Handshake(const Secret& secret, bool initiator) : secret_(secret), initiator_(initiator) {
  random_bytes(my_nonce_, sizeof my_nonce_);
}

void Handshake::start(std::vector<uint8_t>& out) {
  out.insert(out.end(), kMagic, kMagic + 8);
  out.insert(out.end(), my_nonce_, my_nonce_ + 16);
}

void Handshake::proof(bool for_initiator, const uint8_t* a_nonce, const uint8_t* b_nonce,
                      uint8_t* out) const {
  uint8_t msg[11 + 1 + 16 + 16];
  std::memcpy(msg, "ftmpi-proof", 11);
  msg[11] = for_initiator ? 1 : 0;
  std::memcpy(msg + 12, a_nonce, 16);
  std::memcpy(msg + 28, b_nonce, 16);
  unsigned len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()), msg, sizeof msg, out, &len);
}

size_t Handshake::feed(const uint8_t* p, size_t n, std::vector<uint8_t>& out) {
  size_t used = 0;
  while (used < n && (state_ == State::kWaitHello || state_ == State::kWaitProof)) {
    size_t need = (state_ == State::kWaitHello ? kHelloSize : kHelloSize + kProofSize) - have_;
    size_t take = std::min(need, n - used);
    std::memcpy(in_ + have_, p + used, take);
    have_ += take;
    used += take;
    if (take < need) break;
    if (state_ == State::kWaitHello) {
      if (std::memcmp(in_, kMagic, 8) != 0) {
        state_ = State::kFailed;
        break;
      }
      std::memcpy(peer_nonce_, in_ + 8, 16);
      uint8_t mine[kProofSize];
      proof(initiator_, peer_nonce_, my_nonce_, mine);
      out.insert(out.end(), mine, mine + kProofSize);
      state_ = State::kWaitProof;
    } else {
      uint8_t expect[kProofSize];
      proof(!initiator_, my_nonce_, peer_nonce_, expect);
      state_ = CRYPTO_memcmp(expect, in_ + kHelloSize, kProofSize) == 0 ? State::kDone : State::kFailed;
    }
  }
  return used;
}

bool handshake_fd(int fd, const Secret& secret, bool initiator, int timeout_ms) {
  Handshake hs(secret, initiator);
  std::vector<uint8_t> out;
  hs.start(out);
  size_t sent = 0;
  uint64_t deadline = now_ns() + static_cast<uint64_t>(timeout_ms) * 1000000ull;
  while (hs.state() != Handshake::State::kDone || sent < out.size()) {
    if (hs.state() == Handshake::State::kFailed) {
      FTMPI_LOG(kWarn, "auth", "peer failed to prove the job secret; closing");
      return false;
    }
    uint64_t now = now_ns();
    if (now >= deadline) {
      FTMPI_LOG(kWarn, "auth", "handshake timed out");
      return false;
    }
    bool want_in = hs.bytes_needed() > 0;
    pollfd pfd{fd, static_cast<short>((want_in ? POLLIN : 0) | (sent < out.size() ? POLLOUT : 0)), 0};
    int rc = ::poll(&pfd, 1, static_cast<int>((deadline - now) / 1000000ull) + 1);
    if (rc < 0 && errno != EINTR) return false;
    if (rc <= 0) continue;
    if (!want_in && (pfd.revents & (POLLHUP | POLLERR))) return false;
    if ((pfd.revents & POLLOUT) && sent < out.size()) {
      ssize_t w = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (w < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (w > 0) sent += static_cast<size_t>(w);
    }
    if (want_in && (pfd.revents & (POLLIN | POLLHUP | POLLERR))) {
      // Read only what the handshake still needs: later bytes belong to the stream.
      size_t need = hs.bytes_needed();
      uint8_t buf[kHelloSize + kProofSize];
      ssize_t r = ::recv(fd, buf, need, 0);
      if (r == 0) return false;
      if (r < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return false;
      }
      hs.feed(buf, static_cast<size_t>(r), out);
    }
  }
  return true;
}

}  // namespace ftmpi::auth
