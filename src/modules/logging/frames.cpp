#include "modules/logging/frames.hpp"

#include "base/codec.hpp"

namespace ftmpi::logging {

namespace {
// RESENT and COLLECT: a kind byte and one number.
std::vector<uint8_t> encode_upto(FrameKind kind, uint64_t upto) {
  std::vector<uint8_t> out;
  Encoder e(&out);
  e.u8(static_cast<uint8_t>(kind));
  e.u64(upto);
  return out;
}

bool decode_upto(const uint8_t* p, size_t n, FrameKind kind, uint64_t& upto) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(kind)) return false;
  upto = d.u64();
  return d.done();
}
}  // namespace

std::vector<uint8_t> encode(const Resent& r) { return encode_upto(FrameKind::kResent, r.upto); }

std::vector<uint8_t> encode_done() { return {static_cast<uint8_t>(FrameKind::kDone)}; }

std::vector<uint8_t> encode(const Collect& c) {
  std::vector<uint8_t> out = encode_upto(FrameKind::kCollect, c.upto);
  Encoder e(&out);
  e.u64(c.sent);
  return out;
}

bool decode(const uint8_t* p, size_t n, Collect& out) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(FrameKind::kCollect)) return false;
  out.upto = d.u64();
  out.sent = d.u64();
  return d.done();
}

uint8_t frame_kind(const uint8_t* p, size_t n) { return n > 0 ? p[0] : 0; }

bool decode(const uint8_t* p, size_t n, Resent& out) { return decode_upto(p, n, FrameKind::kResent, out.upto); }

}  // namespace ftmpi::logging
