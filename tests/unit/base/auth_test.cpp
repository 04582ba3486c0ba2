#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "base/auth.hpp"

using namespace ftmpi::auth;

namespace {
// Feeds two handshakes into each other through memory; returns final states.
std::pair<Handshake::State, Handshake::State> run(const Secret& a, const Secret& b) {
  Handshake ha(a, true), hb(b, false);
  std::vector<uint8_t> a_out, b_out;
  ha.start(a_out);
  hb.start(b_out);
  for (int round = 0; round < 4; ++round) {
    std::vector<uint8_t> a_in = std::move(b_out), b_in = std::move(a_out);
    a_out.clear();
    b_out.clear();
    ha.feed(a_in.data(), a_in.size(), a_out);
    hb.feed(b_in.data(), b_in.size(), b_out);
  }
  return {ha.state(), hb.state()};
}
}  // namespace

TEST(Auth, SameSecretAuthenticatesBothSides) {
  Secret s = make_secret();
  auto [a, b] = run(s, s);
  EXPECT_EQ(a, Handshake::State::kDone);
  EXPECT_EQ(b, Handshake::State::kDone);
}

TEST(Auth, DifferentSecretFailsBothSides) {
  auto [a, b] = run(make_secret(), make_secret());
  EXPECT_EQ(a, Handshake::State::kFailed);
  EXPECT_EQ(b, Handshake::State::kFailed);
}

TEST(Auth, GarbageIsRejected) {
  Handshake h(make_secret(), false);
  std::vector<uint8_t> out;
  h.start(out);
  uint8_t junk[64];
  for (int i = 0; i < 64; ++i) junk[i] = static_cast<uint8_t>(i * 7);
  h.feed(junk, sizeof junk, out);
  EXPECT_EQ(h.state(), Handshake::State::kFailed);
}

TEST(Auth, ReflectedProofDoesNotVerify) {
  // An attacker without the secret echoes our own HELLO and PROOF back.
  Secret s = make_secret();
  Handshake h(s, true);
  std::vector<uint8_t> out;
  h.start(out);
  std::vector<uint8_t> echo = out;  // our HELLO
  std::vector<uint8_t> more;
  h.feed(echo.data(), echo.size(), more);  // we answer with our PROOF
  ASSERT_EQ(h.state(), Handshake::State::kWaitProof);
  std::vector<uint8_t> sink;
  h.feed(more.data(), more.size(), sink);  // reflect the proof
  EXPECT_EQ(h.state(), Handshake::State::kFailed);
}

TEST(Auth, HexRoundTrip) {
  Secret s = make_secret(), t{};
  ASSERT_TRUE(from_hex(to_hex(s), t));
  EXPECT_EQ(s, t);
  EXPECT_FALSE(from_hex("zz", t));
}

TEST(Auth, BlockingHandshakeOverSocketsLeavesStreamBytesUnread) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Secret s = make_secret();
  bool ok_b = false;
  std::thread t([&] {
    ok_b = handshake_fd(sv[1], s, false, 2000);
    ssize_t w = write(sv[1], "after", 5);  // first stream bytes right behind the proof
    (void)w;
  });
  bool ok_a = handshake_fd(sv[0], s, true, 2000);
  t.join();
  EXPECT_TRUE(ok_a);
  EXPECT_TRUE(ok_b);
  char buf[8] = {};
  ASSERT_EQ(read(sv[0], buf, 5), 5);
  EXPECT_STREQ(buf, "after");
  close(sv[0]);
  close(sv[1]);
}
