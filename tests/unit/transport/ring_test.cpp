#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

#include "transport/shm_ring.hpp"

using namespace ftmpi::transport;

namespace {
struct RingMem {
  explicit RingMem(uint64_t size) : size(size), data(static_cast<uint8_t*>(std::aligned_alloc(64, size))) {
    new (&ctl) RingCtl{};
    ctl.tail.store(0);
    ctl.head.store(0);
    ctl.writer_waiting.store(0);
  }
  ~RingMem() { std::free(data); }
  uint64_t size;
  RingCtl ctl;
  uint8_t* data;
};
}  // namespace

TEST(Ring, RecordsKeepOrderAndContentAcrossWraparound) {
  RingMem m(4096);
  RingWriter w;
  RingReader r;
  w.attach(&m.ctl, m.data, m.size);
  r.attach(&m.ctl, m.data, m.size);
  std::mt19937 rng(1);
  uint32_t sent = 0, received = 0;
  for (int round = 0; round < 2000; ++round) {
    // Fill with random-sized frames until full, then drain all.
    for (;;) {
      size_t plen = rng() % 900;
      uint8_t* rec = w.reserve(RingWriter::record_size(4, plen));
      if (!rec) break;
      std::memcpy(rec + kRecHdr, &sent, 4);
      for (size_t i = 0; i < plen; ++i) rec[kRecHdr + 8 + i] = static_cast<uint8_t>(sent + i);
      w.publish(rec, static_cast<uint32_t>(plen), 4);
      ++sent;
    }
    bool wake = false;
    r.drain(
        [&](const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen) {
          ASSERT_EQ(hlen, 4u);
          uint32_t seq;
          std::memcpy(&seq, hdr, 4);
          ASSERT_EQ(seq, received);
          for (size_t i = 0; i < plen; ++i) ASSERT_EQ(payload[i], static_cast<uint8_t>(seq + i));
          ++received;
        },
        wake);
  }
  EXPECT_EQ(sent, received);
  EXPECT_GT(sent, 4000u);
}

TEST(Ring, LargestRecordAlwaysFitsOnceDrained) {
  RingMem m(4096);
  RingWriter w;
  RingReader r;
  w.attach(&m.ctl, m.data, m.size);
  r.attach(&m.ctl, m.data, m.size);
  const uint64_t max_plen = w.max_record() - kRecHdr - 8;
  for (int i = 0; i < 50; ++i) {
    // Shift the position by an odd small record, then send the largest one.
    uint8_t* small = w.reserve(RingWriter::record_size(8, static_cast<size_t>(8 * (i % 7))));
    ASSERT_NE(small, nullptr);
    w.publish(small, static_cast<uint32_t>(8 * (i % 7)), 8);
    bool wake = false;
    r.drain([](const uint8_t*, size_t, const uint8_t*, size_t) {}, wake);
    uint8_t* big = w.reserve(RingWriter::record_size(8, max_plen));
    ASSERT_NE(big, nullptr) << "iteration " << i;
    w.publish(big, static_cast<uint32_t>(max_plen), 8);
    size_t seen = 0;
    r.drain([&](const uint8_t*, size_t, const uint8_t*, size_t plen) { seen = plen; }, wake);
    EXPECT_EQ(seen, max_plen);
  }
}

TEST(Ring, ConcurrentProducerConsumer) {
  RingMem m(1 << 16);
  RingWriter w;
  RingReader r;
  w.attach(&m.ctl, m.data, m.size);
  r.attach(&m.ctl, m.data, m.size);
  const uint32_t n = 200000;
  std::thread producer([&] {
    std::mt19937 rng(7);
    for (uint32_t seq = 0; seq < n;) {
      size_t plen = rng() % 2000;
      uint8_t* rec = w.reserve(RingWriter::record_size(4, plen));
      if (!rec) {
        std::this_thread::yield();
        continue;
      }
      std::memcpy(rec + kRecHdr, &seq, 4);
      for (size_t i = 0; i < plen; i += 97) rec[kRecHdr + 8 + i] = static_cast<uint8_t>(seq ^ i);
      w.publish(rec, static_cast<uint32_t>(plen), 4);
      ++seq;
    }
  });
  uint32_t expect = 0;
  bool bad = false;
  while (expect < n && !bad) {
    bool wake = false;
    r.drain(
        [&](const uint8_t* hdr, size_t, const uint8_t* payload, size_t plen) {
          uint32_t seq;
          std::memcpy(&seq, hdr, 4);
          if (seq != expect) bad = true;
          for (size_t i = 0; i < plen; i += 97)
            if (payload[i] != static_cast<uint8_t>(seq ^ i)) bad = true;
          ++expect;
        },
        wake);
  }
  producer.join();
  EXPECT_FALSE(bad);
  EXPECT_EQ(expect, n);
}
