#include "base/ckpt_image_format.hpp"

#include <cstring>

namespace ftmpi::ckpt_format {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
// Unaligned little-endian loads (x86-64); a fixed 8-byte copy is always inlined.
inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  __builtin_memcpy(&v, p, 8);
  return v;
}
inline uint64_t round(uint64_t acc, uint64_t w) { return rotl(acc + w * kP2, 31) * kP1; }

void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get32(const uint8_t* p) {
  uint32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

}  // namespace

uint64_t hash(const void* data, size_t n, uint64_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t a = seed + kP1 + kP2, b = seed + kP2, c = seed, d = seed - kP1;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a = round(a, load64(p + i));
    b = round(b, load64(p + i + 8));
    c = round(c, load64(p + i + 16));
    d = round(d, load64(p + i + 24));
  }
  uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n * kP5;
  for (; i + 8 <= n; i += 8) h = rotl(h ^ round(0, load64(p + i)), 27) * kP1 + kP4;
  for (; i < n; ++i) h = rotl(h ^ (p[i] * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

void encode_header(const Header& h, uint8_t out[kHeaderBytes]) {
  std::memcpy(out, kMagic, 8);
  put32(out + 8, h.version);
  put32(out + 12, static_cast<uint32_t>(kHeaderBytes));
  put64(out + 16, h.meta_bytes);
  put64(out + 24, h.meta_hash);
  put64(out + 32, 0);
  put64(out + 40, hash(out, 40, 0));
}

std::string decode_header(const uint8_t in[kHeaderBytes], Header& h) {
  if (std::memcmp(in, kMagic, 8) != 0) return "not a checkpoint image (bad magic)";
  if (load64(in + 40) != hash(in, 40, 0)) return "image header is corrupt (hash mismatch)";
  h.version = get32(in + 8);
  if (h.version != kVersion)
    return "image format version " + std::to_string(h.version) + ", this library reads version " +
           std::to_string(kVersion);
  if (get32(in + 12) != kHeaderBytes) return "image header has an unexpected size";
  h.meta_bytes = load64(in + 16);
  h.meta_hash = load64(in + 24);
  if (h.meta_bytes > kMaxMetaBytes) return "image metadata too large";
  return "";
}

void encode_trailer(const Trailer& t, uint8_t out[kTrailerBytes]) {
  std::memcpy(out, kEndMagic, 8);
  put64(out + 8, t.total_bytes);
  put64(out + 16, t.chunks);
  put64(out + 24, t.chain);
}

Scanner::State Scanner::fail(std::string why) {
  error_ = std::move(why);
  state_ = State::kInvalid;
  return state_;
}

Scanner::State Scanner::scan(const uint8_t* data, size_t have) {
  while (state_ == State::kMore) {
    if (stage_ == 0) {
      if (have < kHeaderBytes) return state_;
      std::string e = decode_header(data, header_);
      if (!e.empty()) return fail(e);
      chain_ = chain(0, load64(data + 40));
      pos_ = kHeaderBytes;
      stage_ = 1;
    } else if (stage_ == 1) {
      if (have - pos_ < header_.meta_bytes) return state_;
      if (hash(data + pos_, header_.meta_bytes, 0) != header_.meta_hash)
        return fail("image metadata is corrupt (hash mismatch)");
      chain_ = chain(chain_, header_.meta_hash);
      pos_ += header_.meta_bytes;
      stage_ = 2;
    } else {
      if (have - pos_ < 8) return state_;
      const uint8_t* p = data + pos_;
      if (load64(p) == kEndWord) {
        if (have - pos_ < kTrailerBytes) return state_;
        if (load64(p + 8) != pos_ + kTrailerBytes) return fail("image trailer states a different length (torn image)");
        if (load64(p + 16) != chunks_) return fail("image trailer states a different chunk count (torn image)");
        if (load64(p + 24) != chain_) return fail("image trailer hash mismatch (corrupt image)");
        pos_ += kTrailerBytes;
        state_ = State::kComplete;
        return state_;
      }
      if (have - pos_ < kChunkHeadBytes) return state_;
      const uint64_t addr = load64(p), word = load64(p + 8);
      const bool base_run = (word & kBaseRun) != 0;
      const uint64_t len = word & ~kBaseRun;
      if (len == 0 || (!base_run && len > kMaxChunkBytes) || (addr & 4095) != 0 || (len & 4095) != 0 ||
          addr + len < addr)
        return fail("image chunk header is corrupt");
      const uint64_t data = base_run ? 0 : len;
      if (have - pos_ < kChunkHeadBytes + data + kChunkTailBytes) return state_;
      const uint64_t h = base_run ? hash(p, kChunkHeadBytes, addr ^ word) : hash(p + kChunkHeadBytes, len, addr ^ len);
      if (h != load64(p + kChunkHeadBytes + data))
        return fail("image chunk at address " + std::to_string(addr) + " is corrupt (hash mismatch)");
      chain_ = chain(chain_, h);
      ++chunks_;
      pos_ += kChunkHeadBytes + data + kChunkTailBytes;
    }
  }
  return state_;
}

}  // namespace ftmpi::ckpt_format
