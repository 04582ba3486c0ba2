#include "modules/logging/frames.hpp"

#include "base/codec.hpp"

namespace ftmpi::logging {

namespace {
// RESENT and COLLECT: a kind byte and two numbers.
std::vector<uint8_t> encode_pair(FrameKind kind, uint64_t a, uint64_t b) {
  std::vector<uint8_t> out;
  Encoder e(&out);
  e.u8(static_cast<uint8_t>(kind));
  e.u64(a);
  e.u64(b);
  return out;
}

bool decode_pair(const uint8_t* p, size_t n, FrameKind kind, uint64_t& a, uint64_t& b) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(kind)) return false;
  a = d.u64();
  b = d.u64();
  return d.done();
}
}  // namespace

std::vector<uint8_t> encode(const Resent& r) { return encode_pair(FrameKind::kResent, r.upto, r.seen); }

bool decode(const uint8_t* p, size_t n, Resent& out) {
  return decode_pair(p, n, FrameKind::kResent, out.upto, out.seen);
}

std::vector<uint8_t> encode_done() { return {static_cast<uint8_t>(FrameKind::kDone)}; }

std::vector<uint8_t> encode(const Collect& c) { return encode_pair(FrameKind::kCollect, c.upto, c.sent); }

bool decode(const uint8_t* p, size_t n, Collect& out) {
  return decode_pair(p, n, FrameKind::kCollect, out.upto, out.sent);
}

uint8_t frame_kind(const uint8_t* p, size_t n) { return n > 0 ? p[0] : 0; }

}  // namespace ftmpi::logging
