#include "modules/logging/determinant.hpp"

#include <cstdio>

#include "base/codec.hpp"

namespace ftmpi::logging {

namespace {
constexpr uint8_t kMagic0 = 'D', kMagic1 = 'T', kVersion = 1;
constexpr size_t kBatchHeader = 2 + 1 + 1 + 4 + 4;  // magic, version, pad, count, body bytes
constexpr uint32_t kMaxWhich = 1u << 24;
}  // namespace

const char* kind_name(DetKind k) {
  switch (k) {
    case DetKind::kMatch: return "match";
    case DetKind::kPolls: return "polls";
    case DetKind::kCompletion: return "completion";
    case DetKind::kWtime: return "wtime";
    case DetKind::kWtick: return "wtick";
    case DetKind::kCancel: return "cancel";
    case DetKind::kProbe: return "probe";
    case DetKind::kWithdrawn: return "withdrawn";
  }
  return "?";
}

std::string describe(const Determinant& d) {
  char buf[160];
  switch (d.kind) {
    case DetKind::kMatch:
    case DetKind::kProbe:
    case DetKind::kWithdrawn:
      std::snprintf(buf, sizeof buf, "%s #%llu: slot %d seq %llu", kind_name(d.kind), static_cast<unsigned long long>(d.index),
                    d.slot, static_cast<unsigned long long>(d.seq));
      break;
    case DetKind::kPolls:
      std::snprintf(buf, sizeof buf, "polls #%llu..%llu failed", static_cast<unsigned long long>(d.index),
                    static_cast<unsigned long long>(d.index + d.count - 1));
      break;
    case DetKind::kCompletion:
      std::snprintf(buf, sizeof buf, "completion #%llu: %zu request(s)", static_cast<unsigned long long>(d.index),
                    d.which.size());
      break;
    case DetKind::kWtime:
    case DetKind::kWtick:
      std::snprintf(buf, sizeof buf, "%s #%llu: %.9g", kind_name(d.kind), static_cast<unsigned long long>(d.index),
                    d.value);
      break;
    case DetKind::kCancel:
      std::snprintf(buf, sizeof buf, "cancel #%llu: %s", static_cast<unsigned long long>(d.index),
                    d.flag ? "cancelled" : "not cancelled");
      break;
  }
  return buf;
}

void encode_batch(const std::vector<Determinant>& dets, std::vector<uint8_t>& out) {
  size_t start = out.size();
  Encoder e(&out);
  e.u8(kMagic0);
  e.u8(kMagic1);
  e.u8(kVersion);
  e.u8(0);
  e.u32(static_cast<uint32_t>(dets.size()));
  e.u32(0);  // body length, patched below
  size_t body = out.size();
  for (const Determinant& d : dets) {
    e.u8(static_cast<uint8_t>(d.kind));
    e.u64(d.index);
    switch (d.kind) {
      case DetKind::kMatch:
      case DetKind::kProbe:
      case DetKind::kWithdrawn:
        e.i32(d.slot);
        e.u64(d.seq);
        break;
      case DetKind::kPolls: e.u64(d.count); break;
      case DetKind::kCompletion:
        e.u32(static_cast<uint32_t>(d.which.size()));
        for (int32_t w : d.which) e.i32(w);
        break;
      case DetKind::kWtime:
      case DetKind::kWtick: e.f64(d.value); break;
      case DetKind::kCancel: e.u8(d.flag ? 1 : 0); break;
    }
  }
  uint32_t body_len = static_cast<uint32_t>(out.size() - body);
  for (int i = 0; i < 4; ++i) out[start + 8 + static_cast<size_t>(i)] = static_cast<uint8_t>(body_len >> (8 * i));
}

Err decode_batches(const uint8_t* bytes, size_t len, std::vector<Determinant>& out) {
  std::vector<Determinant> got;
  Decoder d(bytes, len);
  while (d.ok() && d.remaining() > 0) {
    if (d.remaining() < kBatchHeader) return Err::kIntern;
    uint8_t m0 = d.u8(), m1 = d.u8(), ver = d.u8();
    d.u8();
    uint32_t count = d.u32();
    uint32_t body_len = d.u32();
    if (m0 != kMagic0 || m1 != kMagic1 || ver != kVersion || body_len > d.remaining()) return Err::kIntern;
    size_t before = d.remaining();
    for (uint32_t i = 0; i < count && d.ok(); ++i) {
      Determinant x;
      uint8_t k = d.u8();
      if (k < 1 || k >= kDetKinds) return Err::kIntern;
      x.kind = static_cast<DetKind>(k);
      x.index = d.u64();
      switch (x.kind) {
        case DetKind::kMatch:
        case DetKind::kProbe:
        case DetKind::kWithdrawn:
          x.slot = d.i32();
          x.seq = d.u64();
          break;
        case DetKind::kPolls: x.count = d.u64(); break;
        case DetKind::kCompletion: {
          uint32_t n = d.u32();
          if (n > kMaxWhich || n * 4ull > d.remaining()) return Err::kIntern;
          x.which.resize(n);
          for (auto& w : x.which) w = d.i32();
          break;
        }
        case DetKind::kWtime:
        case DetKind::kWtick: x.value = d.f64(); break;
        case DetKind::kCancel: x.flag = d.u8() != 0; break;
      }
      got.push_back(std::move(x));
    }
    if (!d.ok() || before - d.remaining() != body_len) return Err::kIntern;
  }
  if (!d.ok()) return Err::kIntern;
  out.insert(out.end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
  return Err::kOk;
}

}  // namespace ftmpi::logging
