// Both transports through the one interface p2p uses (transport.hpp): the
// same frames, the same checks. Shm runs two endpoints of one memfd segment
// in this process (local indices 0 and 1); TCP two endpoints over loopback.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "transport/shm_transport.hpp"
#include "transport/tcp_transport.hpp"

using namespace ftmpi;
using namespace ftmpi::transport;

namespace {
struct Collect : Sink {
  std::vector<std::string> frames;
  void on_frame(int32_t, const uint8_t* hdr, size_t hlen, const uint8_t* p, size_t plen) override {
    std::string f(reinterpret_cast<const char*>(hdr), hlen);
    f += '|';
    f.append(reinterpret_cast<const char*>(p), plen);
    frames.push_back(std::move(f));
  }
  void on_peer_lost(int32_t) override {}
};

// A payload made by a producer: byte i of the stream is (offset + i) * 3.
void fill_pattern(void*, uint64_t offset, uint8_t* dst, uint64_t len) {
  for (uint64_t i = 0; i < len; ++i) dst[i] = static_cast<uint8_t>((offset + i) * 3);
}

std::string expected_frame(int i) {
  std::string f = "h" + std::to_string(i) + "|";
  if (i % 2 == 0) {
    f += std::string(static_cast<size_t>(i * 13), static_cast<char>('a' + i % 26));
  } else {
    for (uint64_t k = 0; k < static_cast<uint64_t>(i * 7); ++k) f += static_cast<char>((100 + k) * 3);
  }
  return f;
}

// Sends frame i (even: bytes in memory; odd: made by fill_pattern).
bool send_frame(Transport& tx, int peer, int i) {
  std::string h = "h" + std::to_string(i);
  std::string body(static_cast<size_t>(i * 13), static_cast<char>('a' + i % 26));
  Payload p;
  if (i % 2 == 0) {
    p.len = body.size();
    p.bytes = reinterpret_cast<const uint8_t*>(body.data());
  } else {
    p.len = static_cast<uint64_t>(i * 7);
    p.fill = fill_pattern;
    p.offset = 100;
  }
  return tx.send(peer, h.data(), h.size(), p);
}

// Sends n frames from `a` to `b` through the interface, polling `b` when
// `a` refuses; checks order and bytes.
void exchange(Transport& a, int to_b, Transport& b, int n) {
  Collect got;
  Collect none;
  for (int i = 0; i < n;) {
    if (send_frame(a, to_b, i)) {
      ++i;
      continue;
    }
    b.poll(got);
    a.poll(none);
  }
  for (int k = 0; k < 20000 && static_cast<int>(got.frames.size()) < n; ++k) {
    if (b.poll(got) == 0) usleep(50);
    a.poll(none);
  }
  ASSERT_EQ(static_cast<int>(got.frames.size()), n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got.frames[static_cast<size_t>(i)], expected_frame(i)) << "frame " << i;
  EXPECT_TRUE(none.frames.empty());
}

struct ShmPair {
  int memfd = memfd_create("ftmpi-iface", MFD_CLOEXEC);
  std::vector<int> bells = {eventfd(0, EFD_NONBLOCK), eventfd(0, EFD_NONBLOCK)};
  ShmTransport t0, t1;
  ShmPair() {
    ShmConfig cfg;
    cfg.memfd = memfd;
    cfg.local_slots = {20, 21};
    cfg.doorbells = bells;
    cfg.ring_bytes = 16384;
    cfg.my_local = 0;
    EXPECT_EQ(t0.init(cfg), Err::kOk);
    cfg.my_local = 1;
    EXPECT_EQ(t1.init(cfg), Err::kOk);
  }
  ~ShmPair() {
    t0.shutdown();
    t1.shutdown();
    for (int fd : bells) close(fd);
    close(memfd);
  }
};

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}
}  // namespace

TEST(TransportInterface, ShmCarriesFramesInOrderThroughFullRings) {
  ShmPair s;
  // 400 frames of up to ~5 KiB through a 16 KiB ring: many refusals.
  exchange(s.t0, 1, s.t1, 400);
  EXPECT_TRUE(s.t0.drained(1));
}

TEST(TransportInterface, ShmRoomIsHonouredAndAShortAnswerArmsTheWakeUp) {
  ShmPair s;
  const uint64_t big = s.t0.max_payload(8);
  EXPECT_EQ(big, 16384u / 2 - kRecHdr - 8);
  EXPECT_EQ(s.t0.room(1, 8, 100), 100u);
  // Fill the ring with frames of what room() offers until it offers nothing useful.
  std::vector<uint8_t> junk(big, 1);
  int sent = 0;
  for (;;) {
    uint64_t n = s.t0.room(1, 8, big);
    if (n < 64) break;
    Payload p;
    p.len = n;
    p.bytes = junk.data();
    ASSERT_TRUE(s.t0.send(1, "hdr_8B__", 8, p)) << "room() promised " << n;
    ++sent;
  }
  EXPECT_GE(sent, 2);
  EXPECT_FALSE(readable(s.bells[0]));
  // The short answer marked us waiting: the reader, freeing space, rings our doorbell.
  Collect c;
  EXPECT_EQ(s.t1.poll(c), sent);
  EXPECT_TRUE(readable(s.bells[0]));
  EXPECT_EQ(s.t0.room(1, 8, big), big);
}

TEST(TransportInterface, TcpCarriesFramesInOrderAndBoundsItsQueue) {
  auth::Secret secret = auth::make_secret();
  TcpTransport a, b;
  ASSERT_EQ(a.init("127.0.0.1", secret, ProcId{0, 0}), Err::kOk);
  ASSERT_EQ(b.init("127.0.0.1", secret, ProcId{1, 0}), Err::kOk);
  a.set_peer(1, b.addr(), b.port());
  b.set_peer(0, a.addr(), a.port());
  Transport& ta = a;
  EXPECT_EQ(ta.max_payload(16), TcpTransport::kMaxFrame - 8 - 16);
  EXPECT_EQ(ta.room(1, 16, 4096), 4096u);
  a.set_queue_limit(1);
  // Nothing leaves before the handshake: the first frame queues, and with a
  // one-byte limit room() now offers nothing; TCP itself never refuses.
  ASSERT_TRUE(send_frame(ta, 1, 0));
  EXPECT_FALSE(ta.drained(1));
  EXPECT_EQ(ta.room(1, 16, 4096), 0u);
  ASSERT_TRUE(send_frame(ta, 1, 1));
  a.set_queue_limit(512u << 10);
  Collect got, none;
  for (int k = 0; k < 20000 && got.frames.size() < 2; ++k) {
    if (b.poll(got) == 0) usleep(50);
    a.poll(none);
  }
  ASSERT_EQ(got.frames.size(), 2u);
  EXPECT_EQ(got.frames[0], expected_frame(0));
  EXPECT_EQ(got.frames[1], expected_frame(1));
  EXPECT_TRUE(ta.drained(1));
  exchange(a, 1, b, 300);
  // disconnect(): the peer's connection is gone; the next frame opens a new one.
  ta.disconnect(1);
  Collect after;
  ASSERT_TRUE(send_frame(ta, 1, 4));
  for (int k = 0; k < 20000 && after.frames.empty(); ++k) {
    if (b.poll(after) == 0) usleep(50);
    a.poll(none);
  }
  ASSERT_EQ(after.frames.size(), 1u);
  EXPECT_EQ(after.frames[0], expected_frame(4));
}
