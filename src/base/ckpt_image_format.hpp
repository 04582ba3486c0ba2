// The framing of a checkpoint image stream (spec/checkpoint-image.md): header,
// metadata block, data chunks, trailer, each protected by a 64-bit hash.
// Shared by the process that writes or restores an image (src/modules/ckpt)
// and the daemon's checkpoint server, which holds streams it cannot
// interpret but must refuse when torn or corrupt. The metadata block itself
// (regions, registers, files) is opaque here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ftmpi::ckpt_format {

inline constexpr char kMagic[8] = {'F', 'T', 'M', 'P', 'I', 'C', 'K', 'P'};
inline constexpr char kEndMagic[8] = {'F', 'T', 'M', 'P', 'I', 'E', 'N', 'D'};
inline constexpr uint32_t kVersion = 2;  // 2: incremental images (metadata names a base)
inline constexpr size_t kHeaderBytes = 48;
inline constexpr size_t kChunkHeadBytes = 16;  // address, length
inline constexpr size_t kChunkTailBytes = 8;   // hash
inline constexpr size_t kTrailerBytes = 32;
// No user-space address reaches this value, so a chunk address never reads as
// the trailer's magic (the little-endian value of "FTMPIEND").
inline constexpr uint64_t kEndWord = 0x444E4549504D5446ull;
inline constexpr uint64_t kMaxMetaBytes = 64ull << 20;
inline constexpr uint64_t kMaxChunkBytes = 1ull << 30;
// In a chunk's length word: no data follows, the pages are the base's (an
// incremental image, spec/checkpoint-image.md §4a); the hash covers the head.
inline constexpr uint64_t kBaseRun = 1ull << 63;

// Four-lane multiply-rotate hash (the xxh64 round structure); at memory speed
// on one core. Never calls the C library: the restorer may use it anywhere.
uint64_t hash(const void* p, size_t n, uint64_t seed);
// The trailer's running value over every section hash, in stream order.
inline uint64_t chain(uint64_t acc, uint64_t section_hash) {
  acc ^= section_hash;
  acc *= 0x9E3779B185EBCA87ull;
  return (acc << 31) | (acc >> 33);
}

struct Header {
  uint32_t version = kVersion;
  uint64_t meta_bytes = 0;
  uint64_t meta_hash = 0;
};
// 48 bytes: magic, version, header size, meta size, meta hash, 8 reserved,
// then the hash of the 40 bytes before it.
void encode_header(const Header& h, uint8_t out[kHeaderBytes]);
// "" when valid, else why not.
std::string decode_header(const uint8_t in[kHeaderBytes], Header& h);

struct Trailer {
  uint64_t total_bytes = 0;  // the whole stream, trailer included
  uint64_t chunks = 0;
  uint64_t chain = 0;
};
void encode_trailer(const Trailer& t, uint8_t out[kTrailerBytes]);

// Walks a stream held contiguously in memory as it grows (a server receiving
// it, a restorer that read it). Each call resumes where the previous stopped
// and checks every section it can now see whole.
class Scanner {
 public:
  enum class State { kMore, kComplete, kInvalid };
  State scan(const uint8_t* data, size_t have);
  State state() const { return state_; }
  const std::string& error() const { return error_; }
  // Valid once the header was seen.
  const Header& header() const { return header_; }
  size_t meta_offset() const { return kHeaderBytes; }
  uint64_t chunks() const { return chunks_; }
  // The trailer's chain value once kComplete (what an incremental image names its base by).
  uint64_t final_chain() const { return chain_; }
  // Stream length once kComplete.
  uint64_t total_bytes() const { return pos_; }

 private:
  State fail(std::string why);
  State state_ = State::kMore;
  std::string error_;
  Header header_;
  int stage_ = 0;  // 0 header, 1 meta, 2 chunks/trailer
  uint64_t pos_ = 0;
  uint64_t chunks_ = 0;
  uint64_t chain_ = 0;
};

}  // namespace ftmpi::ckpt_format
