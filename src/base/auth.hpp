// Per-job secret and the mutual challenge-response that every TCP connection
// (daemon-daemon, launcher-daemon, rank-rank) runs before any other byte is
// acted on. Each side sends HELLO = magic || nonce (24 bytes), then
// PROOF = HMAC-SHA256(secret, "ftmpi-proof" || role || peer_nonce || own_nonce)
// (32 bytes). The role byte stops a reflected proof from verifying.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ftmpi::auth {

using Secret = std::array<uint8_t, 32>;

Secret make_secret();
std::string to_hex(const Secret& s);
bool from_hex(const std::string& hex, Secret& out);
void random_bytes(void* out, size_t n);

inline constexpr size_t kHelloSize = 24;
inline constexpr size_t kProofSize = 32;

class Handshake {
 public:
  enum class State { kWaitHello, kWaitProof, kDone, kFailed };
  Handshake(const Secret& secret, bool initiator);
  // Appends our HELLO to `out`; call once right after connect/accept.
  void start(std::vector<uint8_t>& out);
  // Consumes handshake bytes from p[0..n); returns how many were consumed (the
  // rest belong to the authenticated stream). May append our PROOF to `out`.
  size_t feed(const uint8_t* p, size_t n, std::vector<uint8_t>& out);
  State state() const { return state_; }
  // Handshake bytes still to come from the peer (reading more could swallow stream data).
  size_t bytes_needed() const { return kHelloSize + kProofSize - have_; }

 private:
  void proof(bool for_initiator, const uint8_t* a_nonce, const uint8_t* b_nonce, uint8_t* out) const;
  Secret secret_;
  bool initiator_;
  State state_ = State::kWaitHello;
  uint8_t my_nonce_[16];
  uint8_t peer_nonce_[16];
  uint8_t in_[kHelloSize + kProofSize];
  size_t have_ = 0;
};

// Runs the handshake on a blocking or non-blocking fd with a deadline.
// Returns false (and logs why) if the peer does not prove the secret in time.
bool handshake_fd(int fd, const Secret& secret, bool initiator, int timeout_ms);

}  // namespace ftmpi::auth
