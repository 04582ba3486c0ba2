#include "modules/logging/determinant.hpp"

#include <bit>
#include <cstdio>
#include <cstring>

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
    case DetKind::kRound: return "round";
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
    case DetKind::kRound:
      std::snprintf(buf, sizeof buf, "round #%llu: schedule %llu round %d after %llu sends",
                    static_cast<unsigned long long>(d.index), static_cast<unsigned long long>(d.count), d.slot,
                    static_cast<unsigned long long>(d.seq));
      break;
  }
  return buf;
}

namespace {
// Stores into room sized beforehand: a batch costs one resize, not one
// vector insert per field (the ANY_SOURCE path encodes a batch per send).
struct Put {
  uint8_t* p;
  void u8(uint8_t v) { *p++ = v; }
  template <typename T>
  void le(T v) {  // little-endian, as base/codec.hpp writes it
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(p, &v, sizeof v);  // one store, not one per byte
      p += sizeof v;
    } else {
      for (size_t i = 0; i < sizeof(T); ++i) *p++ = static_cast<uint8_t>(v >> (8 * i));
    }
  }
};

size_t record_bytes(const Determinant& d) {
  switch (d.kind) {
    case DetKind::kMatch:
    case DetKind::kProbe:
    case DetKind::kWithdrawn: return 1 + 8 + 4 + 8;
    case DetKind::kPolls: return 1 + 8 + 8;
    case DetKind::kCompletion: return 1 + 8 + 4 + 4 * d.which.size();
    case DetKind::kWtime:
    case DetKind::kWtick: return 1 + 8 + 8;
    case DetKind::kCancel: return 1 + 8 + 1;
    case DetKind::kRound: return 1 + 8 + 8 + 4 + 8;
  }
  return 1 + 8;
}
}  // namespace

void encode_batch(const std::vector<Determinant>& dets, std::vector<uint8_t>& out) {
  size_t body_len = 0;
  for (const Determinant& d : dets) body_len += record_bytes(d);
  const size_t start = out.size();
  out.resize(start + kBatchHeader + body_len);
  Put e{out.data() + start};
  e.u8(kMagic0);
  e.u8(kMagic1);
  e.u8(kVersion);
  e.u8(0);
  e.le(static_cast<uint32_t>(dets.size()));
  e.le(static_cast<uint32_t>(body_len));
  for (const Determinant& d : dets) {
    e.u8(static_cast<uint8_t>(d.kind));
    e.le(d.index);
    switch (d.kind) {
      case DetKind::kMatch:
      case DetKind::kProbe:
      case DetKind::kWithdrawn:
        e.le(static_cast<uint32_t>(d.slot));
        e.le(d.seq);
        break;
      case DetKind::kPolls: e.le(d.count); break;
      case DetKind::kCompletion:
        e.le(static_cast<uint32_t>(d.which.size()));
        for (int32_t w : d.which) e.le(static_cast<uint32_t>(w));
        break;
      case DetKind::kWtime:
      case DetKind::kWtick: {
        uint64_t x;
        std::memcpy(&x, &d.value, 8);
        e.le(x);
        break;
      }
      case DetKind::kCancel: e.u8(d.flag ? 1 : 0); break;
      case DetKind::kRound:
        e.le(d.count);
        e.le(static_cast<uint32_t>(d.slot));
        e.le(d.seq);
        break;
    }
  }
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
        case DetKind::kRound:
          x.count = d.u64();
          x.slot = d.i32();
          x.seq = d.u64();
          break;
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
