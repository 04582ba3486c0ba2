// Message checksums for divergence detection (spec/transparent-mode.md §6).
// The sender hashes a payload while it copies it into its log, so a logged
// message costs one pass over its bytes, not two. Eight independent lanes
// hide the latency of each lane's multiply chain; the result depends only on the bytes and
// their number, never on alignment or on how the bytes were cut into pieces.
// A payload shorter than one 64-byte block is hashed a word at a time
// without touching the lanes: small messages are the latency-bound case.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ftmpi::logging {

class Hasher {
 public:
  explicit Hasher(uint64_t seed = 0) : seed_(seed) {
    for (int i = 0; i < kLanes; ++i) lane_[i] = seed + kPrime[i % 4] + static_cast<uint64_t>(i);
  }
  // Hashes n bytes of src; when dst is not null, copies them there too.
  void update(void* dst, const void* src, size_t n) {
    const auto* s = static_cast<const uint8_t*>(src);
    auto* d = static_cast<uint8_t*>(dst);
    size_t i = 0;
    if (fill_ > 0) {  // finish the block an earlier call left open
      size_t take = n < kBlock - fill_ ? n : kBlock - fill_;
      std::memcpy(tail_ + fill_, s, take);
      if (d) std::memcpy(d, s, take);
      fill_ += take;
      i = take;
      if (fill_ < kBlock) {
        total_ += n;
        return;
      }
      block(tail_);
      fill_ = 0;
    }
    if (d) {
      for (; i + kBlock <= n; i += kBlock) {
        std::memcpy(d + i, s + i, kBlock);
        block(s + i);
      }
    } else {
      for (; i + kBlock <= n; i += kBlock) block(s + i);
    }
    if (i < n) {
      std::memcpy(tail_, s + i, n - i);
      if (d) std::memcpy(d + i, s + i, n - i);
      fill_ = n - i;
    }
    total_ += n;
  }
  uint64_t digest() const {
    uint64_t h = total_ * kPrime[0] + seed_;
    if (total_ >= kBlock)
      for (int k = 0; k < kLanes; ++k) h = mix(h ^ lane_[k]);
    uint64_t w[kLanes] = {};
    std::memcpy(w, tail_, fill_);
    return finish(h, w, fill_);
  }

  // copy_short takes fewer bytes than this.
  static constexpr size_t kShortBytes = 32;
  // The digest of n < kShortBytes bytes, copied to dst on the way (dst has
  // room for kShortBytes: the rest is zero-filled). Same value as update() +
  // digest().
  static uint64_t copy_short(void* dst, const void* src, size_t n, uint64_t seed = 0) {
    uint64_t w[4] = {0, 0, 0, 0};
    auto* b = reinterpret_cast<uint8_t*>(w);
    const auto* s = static_cast<const uint8_t*>(src);
    // Overlapping fixed-size copies: no call for a variable length.
    if (n >= 16) {
      std::memcpy(b, s, 16);
      std::memcpy(b + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
      std::memcpy(b, s, 8);
      std::memcpy(b + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(b, s, 4);
      std::memcpy(b + n - 4, s + n - 4, 4);
    } else {
      for (size_t k = 0; k < n; ++k) b[k] = s[k];
    }
    std::memcpy(dst, w, 32);
    return finish(n * kPrime[0] + seed, w, n);
  }

 private:
  static constexpr int kLanes = 8;
  static constexpr size_t kBlock = 8 * kLanes;
  static constexpr uint64_t kPrime[4] = {0x9E3779B185EBCA87ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull,
                                         0x27D4EB2F165667C5ull};
  static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
  }
  // The open block's bytes (zero-padded words), then the final mix.
  static uint64_t finish(uint64_t h, const uint64_t* w, size_t fill) {
    for (size_t k = 0; k * 8 < fill; ++k) h = (h ^ (w[k] * kPrime[2])) * kPrime[3];
    return mix(h);
  }
  void block(const uint8_t* p) {
    for (int k = 0; k < kLanes; ++k) {
      uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      // One multiply per word (the multiplier is what bounds the speed);
      // each step is a bijection of the word, so a changed word always
      // changes the lane, and the lanes are mixed in digest().
      lane_[k] = rotl(lane_[k] + w, 31) * kPrime[0];
    }
  }
  uint64_t seed_;
  uint64_t lane_[kLanes];
  uint8_t tail_[kBlock] = {};
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

inline uint64_t checksum(const void* p, size_t n) {
  Hasher h;
  h.update(nullptr, p, n);
  return h.digest();
}

// What a receiver compares: the payload hash bound to the envelope, so a
// re-sent message with the same bytes under another tag or context differs.
inline uint64_t envelope_checksum(uint64_t payload_hash, uint64_t ctx, int32_t tag, uint64_t len) {
  uint64_t h = payload_hash ^ (ctx * 0x9E3779B185EBCA87ull);
  h = (h ^ (static_cast<uint64_t>(static_cast<uint32_t>(tag)) * 0xC2B2AE3D27D4EB4Full)) * 0x165667B19E3779F9ull;
  h ^= len * 0x27D4EB2F165667C5ull;
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  return h ^ (h >> 29);
}

// The checksum a log entry of these bytes and this envelope gets (what a
// receiver computes for a message that carries none).
inline uint64_t message_checksum(const void* p, uint64_t len, uint64_t ctx, int32_t tag) {
  uint64_t hash;
  if (len < Hasher::kShortBytes) {
    uint8_t scratch[Hasher::kShortBytes];
    hash = Hasher::copy_short(scratch, p, static_cast<size_t>(len));
  } else {
    hash = checksum(p, static_cast<size_t>(len));
  }
  return envelope_checksum(hash, ctx, tag, len);
}

}  // namespace ftmpi::logging
