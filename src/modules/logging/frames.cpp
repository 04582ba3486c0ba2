#include "modules/logging/frames.hpp"

#include "base/codec.hpp"

namespace ftmpi::logging {

namespace {
constexpr size_t kHaveHeader = 1 + 8 + 1 + 4;
}

std::vector<uint8_t> encode(const Hello& h) {
  std::vector<uint8_t> out;
  Encoder e(&out);
  e.u8(static_cast<uint8_t>(FrameKind::kHello));
  e.u64(h.from);
  return out;
}

std::vector<uint8_t> encode(const Have& h) {
  std::vector<uint8_t> out;
  Encoder e(&out);
  e.u8(static_cast<uint8_t>(FrameKind::kHave));
  e.u64(h.first);
  e.u8(h.last ? 1 : 0);
  e.u32(static_cast<uint32_t>(h.sums.size()));
  for (uint64_t s : h.sums) e.u64(s);
  return out;
}

uint8_t frame_kind(const uint8_t* p, size_t n) { return n >= 1 ? p[0] : 0; }

bool decode(const uint8_t* p, size_t n, Hello& out) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(FrameKind::kHello)) return false;
  out.from = d.u64();
  return d.done() && out.from >= 1;
}

bool decode(const uint8_t* p, size_t n, Have& out) {
  Decoder d(p, n);
  if (d.u8() != static_cast<uint8_t>(FrameKind::kHave)) return false;
  out.first = d.u64();
  out.last = d.u8() != 0;
  uint32_t count = d.u32();
  if (!d.ok() || count * 8ull != d.remaining()) return false;
  out.sums.resize(count);
  for (auto& s : out.sums) s = d.u64();
  return d.done() && out.first >= 1;
}

size_t have_capacity(size_t max_bytes) { return max_bytes > kHaveHeader ? (max_bytes - kHaveHeader) / 8 : 0; }

}  // namespace ftmpi::logging
