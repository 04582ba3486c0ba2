// The protocol's frame writers (p2p/frames.hpp) against a fake transport
// that records what it is given and has as much room as a test says: the
// code p2p runs for every transport, checked without one.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "dtype/datatype.hpp"
#include "p2p/frames.hpp"

using namespace ftmpi;
using namespace ftmpi::p2p;

namespace {
struct Frame {
  int peer;
  std::vector<uint8_t> hdr, payload;
};

// Accepts frames while `capacity` (header + payload bytes) lasts; refuses
// whole frames beyond it, like a full ring.
class FakeTransport final : public transport::Transport {
 public:
  explicit FakeTransport(uint64_t capacity) : capacity_(capacity) {}
  bool send(int peer, const void* hdr, size_t hlen, const transport::Payload& p) override {
    if (hlen + p.len > capacity_) {
      ++refused;
      return false;
    }
    capacity_ -= hlen + p.len;
    Frame f{peer, {}, std::vector<uint8_t>(p.len)};
    f.hdr.assign(static_cast<const uint8_t*>(hdr), static_cast<const uint8_t*>(hdr) + hlen);
    p.write_to(f.payload.data());
    frames.push_back(std::move(f));
    return true;
  }
  uint64_t room(int, size_t hlen, uint64_t want) override {
    uint64_t free = capacity_ > hlen ? (capacity_ - hlen) & ~uint64_t{7} : 0;
    if (free < want) ++wake_requests;
    return std::min(free, want);
  }
  uint64_t max_payload(size_t hlen) const override { return (1u << 20) - hlen; }
  bool drained(int) const override { return true; }
  void disconnect(int) override {}
  int poll(transport::Sink&) override { return 0; }

  void free_up(uint64_t bytes) { capacity_ += bytes; }
  std::vector<Frame> frames;
  int refused = 0;
  int wake_requests = 0;

 private:
  uint64_t capacity_;
};

TypedBuffer bytes_of(std::vector<uint8_t>& v) {
  return TypedBuffer(v.data(), v.size(), dtype::builtin_ref(dtype::Builtin::kByte));
}

MatchHdr match(MsgType t, uint64_t len) {
  MatchHdr h{};
  h.type = t;
  h.tag = 7;
  h.ctx = 42;
  h.len = len;
  h.seq = 3;
  return h;
}

template <class H>
H header_of(const Frame& f) {
  H h;
  EXPECT_GE(f.hdr.size(), sizeof h);
  std::memcpy(&h, f.hdr.data(), sizeof h);
  return h;
}
}  // namespace

TEST(Frames, EagerCarriesTheMatchHeaderAndTheContiguousMessage) {
  FakeTransport tx(1 << 20);
  std::vector<uint8_t> msg(100);
  std::iota(msg.begin(), msg.end(), 0);
  TypedBuffer data = bytes_of(msg);
  ASSERT_TRUE(write_eager(tx, 5, match(MsgType::kEager, msg.size()), data));
  ASSERT_EQ(tx.frames.size(), 1u);
  EXPECT_EQ(tx.frames[0].peer, 5);
  EXPECT_EQ(tx.frames[0].hdr.size(), sizeof(MatchHdr));
  MatchHdr h = header_of<MatchHdr>(tx.frames[0]);
  EXPECT_EQ(h.type, MsgType::kEager);
  EXPECT_EQ(h.tag, 7);
  EXPECT_EQ(h.seq, 3u);
  EXPECT_EQ(tx.frames[0].payload, msg);
}

TEST(Frames, EagerPacksANonContiguousMessageIntoPlace) {
  FakeTransport tx(1 << 20);
  // Every other int of 8: the transport calls the packing itself.
  std::vector<int32_t> src(16);
  std::iota(src.begin(), src.end(), 100);
  dtype::TypeRef every_other;
  ASSERT_EQ(dtype::make_vector(8, 1, 2, dtype::builtin_type(dtype::Builtin::kInt), &every_other), Err::kOk);
  every_other->commit();
  TypedBuffer data(src.data(), 1, every_other);
  ASSERT_EQ(data.contig(), nullptr);
  ASSERT_EQ(data.bytes(), 32u);
  ASSERT_TRUE(write_eager(tx, 1, match(MsgType::kEager, data.bytes()), data));
  ASSERT_EQ(tx.frames.size(), 1u);
  ASSERT_EQ(tx.frames[0].payload.size(), 32u);
  for (int i = 0; i < 8; ++i) {
    int32_t v;
    std::memcpy(&v, tx.frames[0].payload.data() + 4 * i, 4);
    EXPECT_EQ(v, 100 + 2 * i);
  }
}

TEST(Frames, ARefusedFrameWritesNothing) {
  FakeTransport tx(sizeof(MatchHdr) + 10);
  std::vector<uint8_t> msg(11, 1);
  TypedBuffer data = bytes_of(msg);
  EXPECT_FALSE(write_eager(tx, 0, match(MsgType::kEager, msg.size()), data));
  EXPECT_EQ(tx.refused, 1);
  EXPECT_TRUE(tx.frames.empty());
  CtlHdr c{};
  c.type = MsgType::kCts;
  EXPECT_TRUE(write_ctl(tx, 0, c));  // 32 bytes still fit
  ASSERT_EQ(tx.frames.size(), 1u);
  EXPECT_EQ(tx.frames[0].hdr.size(), sizeof(CtlHdr));
  EXPECT_TRUE(tx.frames[0].payload.empty());
}

TEST(Frames, RtsCarriesTheSendersBlocksInTheWireLayout) {
  FakeTransport tx(1 << 20);
  std::vector<uint8_t> a(300), b(5000);
  iovec iov[2] = {{a.data(), a.size()}, {b.data(), b.size()}};
  ASSERT_TRUE(write_rts(tx, 2, match(MsgType::kRts, 5300), 4321, iov, 2));
  ASSERT_TRUE(write_rts(tx, 2, match(MsgType::kRts, 5300), 4321, nullptr, 0));
  ASSERT_EQ(tx.frames.size(), 2u);
  // spec/wire-p2p.md: MatchHdr (64), RtsInfo {i32 pid, u32 niov} (8), niov
  // pairs of u64 address, u64 length.
  const std::vector<uint8_t>& f = tx.frames[0].hdr;
  ASSERT_EQ(f.size(), 64u + 8u + 2u * 16u);
  EXPECT_EQ(rts_hdr_bytes(2), f.size());
  int32_t pid;
  uint32_t niov;
  std::memcpy(&pid, f.data() + 64, 4);
  std::memcpy(&niov, f.data() + 68, 4);
  EXPECT_EQ(pid, 4321);
  EXPECT_EQ(niov, 2u);
  uint64_t addr, len;
  std::memcpy(&addr, f.data() + 72 + 16, 8);
  std::memcpy(&len, f.data() + 72 + 24, 8);
  EXPECT_EQ(addr, reinterpret_cast<uint64_t>(b.data()));
  EXPECT_EQ(len, b.size());
  EXPECT_EQ(rts_iov(f.data() + 72, 0).addr, reinterpret_cast<uint64_t>(a.data()));
  EXPECT_EQ(rts_iov(f.data() + 72, 0).len, a.size());
  EXPECT_EQ(tx.frames[1].hdr.size(), 72u);  // niov 0: "answer CTS"
  EXPECT_TRUE(tx.frames[0].payload.empty());
}

TEST(Frames, ControlFrameSplitsHeaderAndHandlerBytes) {
  FakeTransport tx(1 << 20);
  std::vector<uint8_t> frame(sizeof(ControlHdr) + 5);
  ControlHdr h{};
  h.type = MsgType::kControl;
  h.handler = 2;
  h.len = 5;
  std::memcpy(frame.data(), &h, sizeof h);
  std::memcpy(frame.data() + sizeof h, "hello", 5);
  ASSERT_TRUE(write_control(tx, 3, frame.data(), frame.size()));
  ASSERT_EQ(tx.frames.size(), 1u);
  EXPECT_EQ(tx.frames[0].hdr.size(), sizeof(ControlHdr));
  EXPECT_EQ(header_of<ControlHdr>(tx.frames[0]).handler, 2);
  EXPECT_EQ(std::string(tx.frames[0].payload.begin(), tx.frames[0].payload.end()), "hello");
}

TEST(Frames, DataStreamsInChunksAsRoomAllowsAndResumes) {
  const uint64_t kLen = 100000, kChunk = 16384;
  std::vector<uint8_t> msg(kLen);
  for (size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 7 + i / 256);
  TypedBuffer data = bytes_of(msg);
  // Room for two whole chunks and a part of a third.
  FakeTransport tx(2 * (kChunk + 32) + 32 + 6000);
  CtlHdr c{};
  c.type = MsgType::kData;
  c.sreq = 11;
  c.rreq = 22;
  uint64_t done = 0;
  EXPECT_FALSE(write_data(tx, 1, c, data, &done, kLen, kChunk));
  ASSERT_EQ(tx.frames.size(), 3u);
  EXPECT_EQ(tx.frames[0].payload.size(), kChunk);
  EXPECT_EQ(tx.frames[1].payload.size(), kChunk);
  EXPECT_EQ(tx.frames[2].payload.size(), 6000u);  // what was free, not a whole chunk
  EXPECT_EQ(done, 2 * kChunk + 6000);
  EXPECT_GE(tx.wake_requests, 1);  // it asked to be told when room frees up
  // Nothing more fits: another pass sends nothing and keeps its place.
  EXPECT_FALSE(write_data(tx, 1, c, data, &done, kLen, kChunk));
  EXPECT_EQ(tx.frames.size(), 3u);
  tx.free_up(1 << 20);
  EXPECT_TRUE(write_data(tx, 1, c, data, &done, kLen, kChunk));
  EXPECT_EQ(done, kLen);
  std::vector<uint8_t> got;
  for (const Frame& f : tx.frames) {
    CtlHdr h = header_of<CtlHdr>(f);
    EXPECT_EQ(h.type, MsgType::kData);
    EXPECT_EQ(h.sreq, 11u);
    EXPECT_EQ(h.rreq, 22u);
    EXPECT_EQ(h.offset, got.size());  // each piece says where it goes
    EXPECT_LE(f.payload.size(), kChunk);
    got.insert(got.end(), f.payload.begin(), f.payload.end());
  }
  EXPECT_EQ(got, msg);
}

TEST(Frames, DataWaitsRatherThanSendASlimPieceButSendsASmallLastOne) {
  std::vector<uint8_t> msg(10000, 9);
  TypedBuffer data = bytes_of(msg);
  CtlHdr c{};
  c.type = MsgType::kData;
  FakeTransport tight(32 + 1000);  // room for 1000 bytes of 10000 left
  uint64_t done = 0;
  EXPECT_FALSE(write_data(tight, 0, c, data, &done, msg.size(), 4096));
  EXPECT_TRUE(tight.frames.empty());
  EXPECT_EQ(done, 0u);
  // The last 200 bytes go even though they are less than a slim piece.
  done = msg.size() - 200;
  EXPECT_TRUE(write_data(tight, 0, c, data, &done, msg.size(), 4096));
  ASSERT_EQ(tight.frames.size(), 1u);
  EXPECT_EQ(tight.frames[0].payload.size(), 200u);
  EXPECT_EQ(header_of<CtlHdr>(tight.frames[0]).offset, msg.size() - 200);
}

TEST(Frames, ShortEagerStandsForTheEagerItShortens) {
  MatchHdr h = match_envelope(MsgType::kEager, -7, 0x1234567890abcdefull, ProcId{5, 3}, 9, 4, 8);
  h.seq = 0x1122334455667788ull;
  const ShortHdr s = shorten(h);
  EXPECT_EQ(s.type, MsgType::kEagerShort);
  // 16-byte ring record header + 40 + 8 payload bytes: one 64-byte line.
  EXPECT_EQ(16 + sizeof s + 8, 64u);
  const MatchHdr e = expand_short(s, 8);
  EXPECT_EQ(e.type, MsgType::kEager);
  EXPECT_EQ(e.flags, 0);
  EXPECT_EQ(e.tag, -7);
  EXPECT_EQ(e.ctx, 0x1234567890abcdefull);
  EXPECT_EQ(e.src_slot, 5);
  EXPECT_EQ(e.src_inc, 3u);
  EXPECT_EQ(e.epoch, 9u);
  EXPECT_EQ(e.dst_inc, 4u);
  EXPECT_EQ(e.len, 8u);
  EXPECT_EQ(e.sreq, 0u);
  EXPECT_EQ(e.seq, 0x1122334455667788ull);
  EXPECT_EQ(e.sum, 0u);
  EXPECT_EQ(std::memcmp(&e, &h, sizeof h), 0);  // nothing lost: the same bytes
}

TEST(Frames, ShortEagerCarriesTheMessageWithoutTheRequestId) {
  FakeTransport tx(1 << 20);
  std::vector<uint8_t> msg(8);
  std::iota(msg.begin(), msg.end(), 1);
  TypedBuffer data = bytes_of(msg);
  MatchHdr h = match(MsgType::kEager, msg.size());
  h.ctx = 43;        // a collective context
  h.sreq = 0x1234;   // a collective's request: completes as the frame is written
  ASSERT_TRUE(write_eager_short(tx, 2, h, data));
  ASSERT_EQ(tx.frames.size(), 1u);
  ASSERT_EQ(tx.frames[0].hdr.size(), sizeof(ShortHdr));
  EXPECT_EQ(tx.frames[0].payload, msg);
  const MatchHdr e = expand_short(header_of<ShortHdr>(tx.frames[0]), tx.frames[0].payload.size());
  EXPECT_EQ(e.sreq, 0u);
  h.sreq = 0;
  EXPECT_EQ(std::memcmp(&e, &h, sizeof h), 0);  // all else arrives as sent
}
