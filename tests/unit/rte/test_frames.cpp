// Framing: streams cut at any byte still yield the same frames; malformed or
// oversized frames are rejected for good, and a Connection that receives one
// closes (and says why) instead of crashing.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "base/fd.hpp"
#include "rte/common/connection.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/rank_messages.hpp"
#include "rte/proto/stream_channel.hpp"

namespace ftmpi::rte {
namespace {

using proto::Frame;
using proto::FrameReader;

std::vector<uint8_t> three_frames() {
  std::vector<uint8_t> s;
  proto::append_frame(s, proto::RankHello{proto::kProtocolVersion, 11});
  proto::append_frame(s, proto::AbortRequest{3, std::string(5000, 'x')});
  proto::append_frame(s, proto::FenceEnter{});
  return s;
}

void expect_three(FrameReader& r) {
  Frame f;
  ASSERT_EQ(r.next(f), FrameReader::Next::kFrame);
  proto::RankHello h;
  ASSERT_TRUE(proto::parse(f, h));
  EXPECT_EQ(h.pid, 11);
  ASSERT_EQ(r.next(f), FrameReader::Next::kFrame);
  proto::AbortRequest a;
  ASSERT_TRUE(proto::parse(f, a));
  EXPECT_EQ(a.message.size(), 5000u);
  ASSERT_EQ(r.next(f), FrameReader::Next::kFrame);
  EXPECT_EQ(f.type, static_cast<uint16_t>(proto::MsgType::kFenceEnter));
  EXPECT_TRUE(f.payload.empty());
  EXPECT_EQ(r.next(f), FrameReader::Next::kNeedMore);
}

TEST(RteFrames, AnySplitOfTheStreamGivesTheSameFrames) {
  std::vector<uint8_t> s = three_frames();
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    FrameReader r;
    Frame f;
    size_t off = 0, frames = 0;
    while (off < s.size()) {
      size_t n = std::min<size_t>(s.size() - off, 1 + rng() % 40);
      r.feed(s.data() + off, n);
      off += n;
      while (r.next(f) == FrameReader::Next::kFrame) ++frames;
    }
    EXPECT_EQ(frames, 3u);
    EXPECT_EQ(r.buffered(), 0u);
  }
  FrameReader whole;
  whole.feed(s.data(), s.size());
  expect_three(whole);
}

TEST(RteFrames, HasFrameSaysWhetherNextCanCutOne) {
  std::vector<uint8_t> s = three_frames();
  const size_t first = proto::make_frame(proto::RankHello{proto::kProtocolVersion, 11}).size();
  FrameReader r;
  EXPECT_FALSE(r.has_frame());
  r.feed(s.data(), 3);  // not even a length
  EXPECT_FALSE(r.has_frame());
  r.feed(s.data() + 3, first - 4);  // one byte short of the first frame
  EXPECT_FALSE(r.has_frame());
  r.feed(s.data() + first - 1, s.size() - first + 1);
  Frame f;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(r.has_frame()) << i;
    ASSERT_EQ(r.next(f), FrameReader::Next::kFrame);
  }
  EXPECT_FALSE(r.has_frame());
  const uint8_t bad[6] = {1, 0, 0, 0, 0, 0};  // length 1: malformed, next() says so at once
  r.feed(bad, sizeof bad);
  EXPECT_TRUE(r.has_frame());
  EXPECT_EQ(r.next(f), FrameReader::Next::kBad);
}

TEST(RteFrames, OversizedAndUndersizedLengthsAreRejectedForGood) {
  for (uint32_t len : {0u, 1u, proto::kMaxFrame + 1, 0xffffffffu}) {
    FrameReader r;
    uint8_t hdr[6] = {static_cast<uint8_t>(len), static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len >> 16),
                      static_cast<uint8_t>(len >> 24), 1, 1};
    r.feed(hdr, sizeof hdr);
    Frame f;
    EXPECT_EQ(r.next(f), FrameReader::Next::kBad) << len;
    EXPECT_TRUE(r.failed());
    EXPECT_FALSE(r.error().empty());
    std::vector<uint8_t> good = make_frame(proto::FenceEnter{});
    r.feed(good.data(), good.size());
    EXPECT_EQ(r.next(f), FrameReader::Next::kBad) << "a broken stream cannot recover";
  }
}

TEST(RteFrames, ReaderHonoursItsOwnLimit) {
  proto::AbortRequest big{1, std::string(100, 'y')};
  std::vector<uint8_t> s = make_frame(big);
  uint32_t len = static_cast<uint32_t>(s.size() - 4);
  FrameReader exact(len), smaller(len - 1);
  Frame f;
  exact.feed(s.data(), s.size());
  EXPECT_EQ(exact.next(f), FrameReader::Next::kFrame);
  smaller.feed(s.data(), s.size());
  EXPECT_EQ(smaller.next(f), FrameReader::Next::kBad);
}

TEST(RteFrames, SplitFrameWantsExactlyOneFrame) {
  std::vector<uint8_t> s = make_frame(proto::JobAbort{3});
  Frame f;
  EXPECT_TRUE(proto::split_frame(s, f));
  s.push_back(0);
  EXPECT_FALSE(proto::split_frame(s, f));
  s.resize(5);
  EXPECT_FALSE(proto::split_frame(s, f));
}

TEST(RteFrames, StreamChannelOverASocketPair) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  proto::StreamChannel a(sv[0]), b(sv[1]);
  a.send(proto::RankHello{proto::kProtocolVersion, 11});
  a.send(proto::AbortRequest{3, std::string(5000, 'x')});
  a.send(proto::FenceEnter{});
  ASSERT_EQ(a.flush(), proto::StreamChannel::Io::kOk);
  EXPECT_EQ(a.pending(), 0u);
  ASSERT_EQ(b.read_available(), proto::StreamChannel::Io::kOk);
  Frame f;
  int n = 0;
  while (b.next(f) == FrameReader::Next::kFrame) ++n;
  EXPECT_EQ(n, 3);
  a.close();
  EXPECT_EQ(b.read_available(), proto::StreamChannel::Io::kEof);
}

// A Connection driven by the loop, fed by a raw socket we control.
struct ConnectionFixture : ::testing::Test {
  EventLoop loop;
  int peer = -1;
  int ours = -1;  // the Connection's end (a forked child must close its copy)
  std::unique_ptr<Connection> conn;
  std::vector<Frame> got;
  std::string closed_why;
  int closes = 0;

  void make(const auth::Secret* secret, int handshake_timeout_ms = 10000) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    fd::set_nonblocking(sv[0]);
    ours = sv[0];
    peer = sv[1];
    Connection::Handlers h;
    h.on_frame = [this](const Frame& f) { got.push_back(f); };
    h.on_close = [this](const std::string& why) {
      closed_why = why;
      ++closes;
    };
    conn = std::make_unique<Connection>(loop, sv[0], "test", secret, std::move(h), handshake_timeout_ms);
  }
  void TearDown() override {
    conn.reset();
    if (peer >= 0) ::close(peer);
  }
  void spin(int rounds = 20) {
    for (int i = 0; i < rounds; ++i) loop.run_once(10);
  }
  // Runs the loop until `done` or 10 s passed (the machine may be busy).
  template <typename Pred>
  void spin_until(Pred done) {
    for (int i = 0; i < 1000 && !done(); ++i) loop.run_once(10);
  }
};

TEST_F(ConnectionFixture, MalformedFrameClosesTheConnection) {
  make(nullptr);
  std::vector<uint8_t> s = make_frame(proto::JobAbort{5});
  uint8_t bad[6] = {0xff, 0xff, 0xff, 0x7f, 0, 0};  // length far beyond the limit
  s.insert(s.end(), bad, bad + 6);
  ASSERT_TRUE(fd::write_all(peer, s.data(), s.size()));
  spin();
  ASSERT_EQ(got.size(), 1u) << "the good frame before the bad one is still delivered";
  EXPECT_EQ(closes, 1);
  EXPECT_EQ(closed_why, "malformed frame");
  EXPECT_TRUE(conn->closed());
  char c;
  EXPECT_EQ(::read(peer, &c, 1), 0) << "our side of the socket must be closed";
}

TEST_F(ConnectionFixture, PeerEofIsReportedOnce) {
  make(nullptr);
  ::close(peer);
  peer = -1;
  spin();
  EXPECT_EQ(closes, 1);
  EXPECT_EQ(closed_why, "connection closed by peer");
}

TEST_F(ConnectionFixture, HandshakeWithTheRightSecretThenFrames) {
  auth::Secret s = auth::make_secret();
  make(&s);
  conn->send(proto::JobAbort{9});  // queued until the peer is authenticated
  // The peer side runs the blocking initiator handshake in a child process.
  pid_t child = fork();
  if (child == 0) {
    bool ok = auth::handshake_fd(peer, s, true, 10000);
    std::vector<uint8_t> f = make_frame(proto::FenceEnter{});
    if (ok) fd::write_all(peer, f.data(), f.size());
    proto::StreamChannel ch(peer);
    Frame got_back;
    for (int i = 0; i < 1000 && ok; ++i) {
      ch.read_available();
      if (ch.next(got_back) == FrameReader::Next::kFrame) _exit(0);
      usleep(10000);
    }
    _exit(1);
  }
  spin_until([&] { return !got.empty(); });
  spin(5);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(conn->authenticated());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].type, static_cast<uint16_t>(proto::MsgType::kFenceEnter));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "peer did not get the queued frame";
  EXPECT_EQ(closes, 0);
}

TEST_F(ConnectionFixture, WrongSecretIsRefused) {
  auth::Secret mine = auth::make_secret();
  make(&mine);
  // A stranger: a well-formed hello, then a proof made up without the secret.
  // It then reads until we hang up; its exit status says whether we sent it
  // anything beyond our own hello and proof.
  pid_t child = fork();
  if (child == 0) {
    ::close(ours);
    uint8_t out[auth::kHelloSize + auth::kProofSize] = {'F', 'T', 'M', 'P', 'I', 'A', 'U', '1'};
    std::memset(out + 8, 0x5a, sizeof out - 8);
    if (!fd::write_all(peer, out, sizeof out)) _exit(2);
    size_t total = 0;
    char buf[256];
    for (ssize_t r; (r = ::read(peer, buf, sizeof buf)) > 0;) total += static_cast<size_t>(r);
    _exit(total <= auth::kHelloSize + auth::kProofSize ? 0 : 1);
  }
  ::close(peer);  // only the child holds the stranger's end now
  peer = -1;
  conn->send(proto::JobAbort{1});  // must never reach the stranger
  spin_until([&] { return closes > 0; });
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(closes, 1);
  EXPECT_EQ(closed_why, "peer failed to prove the job secret");
  EXPECT_TRUE(got.empty());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "we talked to a stranger";
}

TEST_F(ConnectionFixture, SilentPeerTimesOut) {
  auth::Secret s = auth::make_secret();
  make(&s, 300);
  spin_until([&] { return closes > 0; });
  EXPECT_EQ(closes, 1);
  EXPECT_EQ(closed_why, "did not authenticate in time");
}

}  // namespace
}  // namespace ftmpi::rte
