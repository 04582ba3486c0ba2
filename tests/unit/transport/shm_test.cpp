// The shm transport between two real processes: a memfd and eventfds made
// before fork(), as the daemon does.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport/shm_transport.hpp"

using namespace ftmpi;
using namespace ftmpi::transport;

namespace {
struct Collect : Sink {
  std::vector<std::vector<uint8_t>> frames;
  void on_frame(int32_t, const uint8_t* hdr, size_t hlen, const uint8_t* p, size_t plen) override {
    std::vector<uint8_t> f(hdr, hdr + hlen);
    f.insert(f.end(), p, p + plen);
    frames.push_back(std::move(f));
  }
  void on_peer_lost(int32_t) override {}
};
}  // namespace

TEST(Shm, TwoProcessesExchangeFramesAndSleepOnTheDoorbell) {
  int memfd = memfd_create("ftmpi-test", MFD_CLOEXEC);
  ASSERT_GE(memfd, 0);
  std::vector<int> bells = {eventfd(0, EFD_NONBLOCK), eventfd(0, EFD_NONBLOCK)};
  ShmConfig base;
  base.memfd = memfd;
  base.local_slots = {10, 11};
  base.doorbells = bells;
  base.ring_bytes = 16384;
  const int kFrames = 5000;
  pid_t child = fork();
  if (child == 0) {
    ShmConfig cfg = base;
    cfg.my_local = 1;
    ShmTransport t;
    if (!ok(t.init(cfg))) _exit(2);
    // Sends kFrames frames of growing size to local 0, spinning when full.
    for (int i = 0; i < kFrames;) {
      size_t plen = static_cast<size_t>(i % 3000);
      uint8_t* rec = t.reserve(0, 4, plen);
      if (!rec) {
        usleep(10);
        continue;
      }
      std::memcpy(ShmTransport::hdr_ptr(rec), &i, 4);
      std::memset(ShmTransport::payload_ptr(rec, 4), i & 0xff, plen);
      t.commit(0, rec, 4, plen);
      ++i;
    }
    _exit(0);
  }
  ShmConfig cfg = base;
  cfg.my_local = 0;
  ShmTransport t;
  ASSERT_EQ(t.init(cfg), Err::kOk);
  Collect c;
  int sleeps = 0;
  while (static_cast<int>(c.frames.size()) < kFrames) {
    if (t.poll(c) > 0) continue;
    if (t.prepare_sleep()) {
      uint64_t v;
      // Block on the doorbell as the engine does (with a safety timeout).
      fd_set set;
      FD_ZERO(&set);
      FD_SET(t.doorbell_fd(), &set);
      timeval tv{5, 0};
      ASSERT_GT(select(t.doorbell_fd() + 1, &set, nullptr, nullptr, &tv), 0) << "lost wake-up";
      ++sleeps;
      (void)v;
      t.end_sleep();
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < kFrames; ++i) {
    int seq;
    std::memcpy(&seq, c.frames[static_cast<size_t>(i)].data(), 4);
    ASSERT_EQ(seq, i);
    ASSERT_EQ(c.frames[static_cast<size_t>(i)].size(), 4u + static_cast<size_t>(i % 3000));
    if (i % 3000) {
      ASSERT_EQ(c.frames[static_cast<size_t>(i)].back(), static_cast<uint8_t>(i & 0xff));
    }
  }
  close(memfd);
  for (int b : bells) close(b);
}
