#include "modules/logging/frames.hpp"

#include "base/codec.hpp"

namespace ftmpi::logging {

std::vector<uint8_t> encode(const Resent& r) {
  std::vector<uint8_t> out;
  Encoder e(&out);
  e.u8(static_cast<uint8_t>(FrameKind::kResent));
  e.u64(r.upto);
  return out;
}

std::vector<uint8_t> encode_done() { return {static_cast<uint8_t>(FrameKind::kDone)}; }

std::vector<uint8_t> encode(const Collect& c) {
  std::vector<uint8_t> out;
  Encoder e(&out);
  e.u8(static_cast<uint8_t>(FrameKind::kCollect));
  e.u64(c.upto);
  return out;
}

bool decode(const uint8_t* p, size_t n, Collect& out) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(FrameKind::kCollect)) return false;
  out.upto = d.u64();
  return d.done();
}

uint8_t frame_kind(const uint8_t* p, size_t n) { return n > 0 ? p[0] : 0; }

bool decode(const uint8_t* p, size_t n, Resent& out) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(FrameKind::kResent)) return false;
  out.upto = d.u64();
  return d.done();
}

}  // namespace ftmpi::logging
