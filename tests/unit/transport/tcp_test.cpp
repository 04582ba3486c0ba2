#include <gtest/gtest.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "transport/tcp_transport.hpp"

using namespace ftmpi;
using namespace ftmpi::transport;

namespace {
struct Collect : Sink {
  std::vector<std::pair<int32_t, std::string>> frames;
  std::vector<int32_t> lost;
  void on_frame(int32_t peer, const uint8_t* hdr, size_t hlen, const uint8_t* p, size_t plen) override {
    std::string f(reinterpret_cast<const char*>(hdr), hlen);
    f.append(reinterpret_cast<const char*>(p), plen);
    frames.emplace_back(peer, f);
  }
  void on_peer_lost(int32_t peer) override { lost.push_back(peer); }
};

template <typename Pred>
void pump(TcpTransport& a, TcpTransport& b, Sink& sa, Sink& sb, Pred done) {
  for (int i = 0; i < 20000 && !done(); ++i) {
    a.poll(sa);
    b.poll(sb);
    usleep(50);
  }
}
}  // namespace

TEST(Tcp, FramesBothWaysInOrderIncludingLargeOnes) {
  auth::Secret s = auth::make_secret();
  TcpTransport a, b;
  ASSERT_EQ(a.init("127.0.0.1", s, ProcId{0, 0}), Err::kOk);
  ASSERT_EQ(b.init("127.0.0.1", s, ProcId{1, 0}), Err::kOk);
  a.set_peer(1, b.addr(), b.port());
  b.set_peer(0, a.addr(), a.port());
  std::string big(3 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i / 4096);
  for (int i = 0; i < 100; ++i) {
    std::string h = "h" + std::to_string(i);
    a.send(1, h.data(), h.size(), i == 50 ? big.data() : "p", i == 50 ? big.size() : 1);
  }
  b.send(0, "back", 4, nullptr, 0);
  Collect ca, cb;
  pump(a, b, ca, cb, [&] { return cb.frames.size() == 100 && ca.frames.size() == 1; });
  ASSERT_EQ(cb.frames.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(cb.frames[static_cast<size_t>(i)].first, 0);
    std::string h = "h" + std::to_string(i);
    EXPECT_EQ(cb.frames[static_cast<size_t>(i)].second, h + (i == 50 ? big : "p"));
  }
  ASSERT_EQ(ca.frames.size(), 1u);
  EXPECT_EQ(ca.frames[0], std::make_pair(1, std::string("back")));
}

TEST(Tcp, StrangersAndGarbageAreRefusedWithoutHarm) {
  auth::Secret s = auth::make_secret();
  TcpTransport a, b, intruder;
  ASSERT_EQ(a.init("127.0.0.1", s, ProcId{0, 0}), Err::kOk);
  ASSERT_EQ(b.init("127.0.0.1", s, ProcId{1, 0}), Err::kOk);
  ASSERT_EQ(intruder.init("127.0.0.1", auth::make_secret(), ProcId{7, 0}), Err::kOk);
  intruder.set_peer(1, b.addr(), b.port());
  intruder.send(1, "evil", 4, nullptr, 0);
  int raw = fd::tcp_connect(b.addr(), b.port(), false);
  ASSERT_GE(raw, 0);
  std::string junk(5000, '\x7f');
  ASSERT_TRUE(fd::write_all(raw, junk.data(), junk.size()));
  a.set_peer(1, b.addr(), b.port());
  a.send(1, "good", 4, nullptr, 0);
  Collect ca, cb, ci;
  for (int i = 0; i < 4000 && cb.frames.empty(); ++i) {
    a.poll(ca);
    b.poll(cb);
    intruder.poll(ci);
    usleep(100);
  }
  for (int i = 0; i < 200; ++i) {  // give the intruder's frame every chance to arrive
    b.poll(cb);
    intruder.poll(ci);
    usleep(100);
  }
  ASSERT_EQ(cb.frames.size(), 1u);
  EXPECT_EQ(cb.frames[0].second, "good");
  char c;
  EXPECT_LE(read(raw, &c, 1), 0) << "garbage connection should be closed";
  close(raw);
}

TEST(Tcp, PeerDeathIsReported) {
  auth::Secret s = auth::make_secret();
  TcpTransport a;
  auto b = std::make_unique<TcpTransport>();
  ASSERT_EQ(a.init("127.0.0.1", s, ProcId{0, 0}), Err::kOk);
  ASSERT_EQ(b->init("127.0.0.1", s, ProcId{1, 0}), Err::kOk);
  a.set_peer(1, b->addr(), b->port());
  a.send(1, "x", 1, nullptr, 0);
  Collect ca, cb;
  pump(a, *b, ca, cb, [&] { return !cb.frames.empty(); });
  ASSERT_EQ(cb.frames.size(), 1u);
  b.reset();  // the peer vanishes
  for (int i = 0; i < 2000 && ca.lost.empty(); ++i) {
    a.send(1, "y", 1, nullptr, 0);
    a.poll(ca);
    usleep(500);
  }
  ASSERT_FALSE(ca.lost.empty());
  EXPECT_EQ(ca.lost[0], 1);
}
