#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "transport/shm_ring.hpp"

using namespace ftmpi::transport;

namespace {
struct RingMem {
  explicit RingMem(uint64_t size) : size(size), data(static_cast<uint8_t*>(std::aligned_alloc(64, size))) {
    new (&ctl) RingCtl{};
    ctl.tail.store(0);
    ctl.head.store(0);
    ctl.writer_attached.store(0);
    ctl.writer_waiting.store(0);
    std::memset(data, 0, size);
  }
  ~RingMem() { std::free(data); }
  uint64_t size;
  RingCtl ctl;
  uint8_t* data;
};

// A ring with its writer and reader attached, as most cases start.
struct AttachedRing {
  explicit AttachedRing(uint64_t size) : m(size) {
    w.attach(&m.ctl, m.data, m.size);
    r.attach(&m.ctl, m.data, m.size);
  }
  RingMem m;
  RingWriter w;
  RingReader r;
};
}  // namespace

TEST(Ring, RecordsKeepOrderAndContentAcrossWraparound) {
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
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
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
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
  AttachedRing ring(1 << 16);
  auto& [m, w, r] = ring;
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

namespace {
// Writes one frame whose 8-byte header is `id` and whose payload bytes are
// all `fill`; false if the ring is full.
bool put(RingWriter& w, uint64_t id, size_t plen, uint8_t fill) {
  uint8_t* rec = w.reserve(RingWriter::record_size(8, plen));
  if (!rec) return false;
  std::memcpy(rec + kRecHdr, &id, 8);
  std::memset(rec + kRecHdr + 8, fill, plen);
  w.publish(rec, static_cast<uint32_t>(plen), 8);
  return true;
}

struct Got {
  uint64_t id;
  size_t plen;
  bool intact;
};

std::vector<Got> take(RingReader& r, uint8_t fill) {
  std::vector<Got> out;
  bool wake = false;
  r.drain(
      [&](const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen) {
        uint64_t id = 0;
        if (hlen == 8) std::memcpy(&id, hdr, 8);
        bool intact = hlen == 8;
        for (size_t i = 0; i < plen; ++i) intact = intact && payload[i] == fill;
        out.push_back({id, plen, intact});
      },
      wake);
  return out;
}
}  // namespace

TEST(Ring, RecordSizesAtTheLineBoundary) {
  // A 40-byte header and 8 payload bytes: one cache line, the small EAGER's case.
  EXPECT_EQ(RingWriter::record_size(40, 0), 64u);
  EXPECT_EQ(RingWriter::record_size(40, 8), 64u);
  EXPECT_EQ(RingWriter::record_size(40, 9), 128u);
  EXPECT_EQ(RingWriter::record_size(64, 8), 128u);
  EXPECT_EQ(RingWriter::record_size(36, 12), 128u);  // the header is padded to 8 first
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  // Records start on line boundaries, and each frame arrives with its size.
  // With an 8-byte header: 40 payload bytes fill the first line, 41 start a second.
  for (size_t plen : {0, 40, 41, 104, 105}) {
    ASSERT_TRUE(put(w, plen, plen, 0x5a));
    auto got = take(r, 0x5a);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].id, plen);
    EXPECT_EQ(got[0].plen, plen);
    EXPECT_TRUE(got[0].intact);
    EXPECT_EQ(m.ctl.head.load() % 64, 0u);
  }
  EXPECT_EQ(m.ctl.head.load(), 64u + 64 + 128 + 128 + 192);
}

TEST(Ring, FullRingRefusesUntilTheReaderFreesAndWakesTheWriter) {
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  int n = 0;
  while (put(w, static_cast<uint64_t>(n), 40, 1)) ++n;
  EXPECT_EQ(n, 4096 / 64);  // every record one line: the ring holds exactly 64
  EXPECT_TRUE(r.nonempty());
  w.mark_waiting();
  EXPECT_FALSE(put(w, 999, 0, 1));  // refused, nothing written
  bool wake = false;
  int delivered = r.drain([](const uint8_t*, size_t, const uint8_t*, size_t) {}, wake);
  EXPECT_EQ(delivered, n);
  EXPECT_TRUE(wake);
  EXPECT_FALSE(r.nonempty());
  // The writer sees the freed space only now, through head.
  ASSERT_TRUE(put(w, 1000, 40, 2));
  auto got = take(r, 2);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, 1000u);
}

TEST(Ring, KnownRoomLooksAtTheReadersHeadOnlyWhenTheLastLookFallsShort) {
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  for (uint64_t i = 0; i < 40; ++i) ASSERT_TRUE(put(w, i, 40, 1));  // 2560 of 4096 bytes
  const uint64_t before = w.writable_payload(40);
  ASSERT_GT(before, 8u);
  EXPECT_EQ(take(r, 1).size(), 40u);  // the reader frees it all
  // Enough by the last look: answered from it, the freed space unseen.
  EXPECT_EQ(w.known_payload(40, 8), before);
  EXPECT_EQ(w.known_payload(40, before), before);
  // More than the last look allows: the head is read again.
  const uint64_t after = w.known_payload(40, before + 8);
  EXPECT_GT(after, before);
  EXPECT_EQ(after, w.writable_payload(40));
}

TEST(Ring, WrapAroundWithAPadAndTheLargestRecord) {
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  const size_t biggest = w.max_record() - kRecHdr - 8;
  EXPECT_EQ(RingWriter::record_size(8, biggest), w.max_record());
  EXPECT_EQ(RingWriter::record_size(8, biggest + 1), w.max_record() + 64);
  // After a small record the largest one no longer fits before the end: a
  // pad covers the rest of the lap and the record starts at 0.
  int pads = 0;
  for (int lap = 0; lap < 6; ++lap) {
    ASSERT_TRUE(put(w, 1, 100, 3));
    auto small = take(r, 3);
    ASSERT_EQ(small.size(), 1u);
    EXPECT_TRUE(small[0].intact);
    uint64_t before = m.ctl.head.load();
    ASSERT_TRUE(put(w, 2, biggest, 4)) << "lap " << lap;
    auto big = take(r, 4);
    ASSERT_EQ(big.size(), 1u);
    EXPECT_EQ(big[0].plen, biggest);
    EXPECT_TRUE(big[0].intact);
    uint64_t moved = m.ctl.head.load() - before;
    EXPECT_TRUE(moved == w.max_record() || moved > w.max_record()) << moved;
    pads += moved > w.max_record();
  }
  EXPECT_GT(pads, 0);
}

TEST(Ring, PayloadThatLooksLikeAStampIsNeverARecord) {
  // Fill the payload with every position's stamp (position + 1), so a reader
  // that trusted a stale line start would accept user bytes as a record.
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  for (int round = 0; round < 40; ++round) {
    size_t plen = 64 * 12 + 24;
    uint64_t size = RingWriter::record_size(8, plen);
    // Where the record will start (the ring is empty: head is the tail).
    uint64_t pos = m.ctl.head.load();
    if (size > 4096 - (pos & 4095)) pos += 4096 - (pos & 4095);
    uint8_t* rec = w.reserve(size);
    ASSERT_NE(rec, nullptr);
    ASSERT_EQ(rec, m.data + (pos & 4095));
    uint64_t id = static_cast<uint64_t>(round);
    std::memcpy(rec + kRecHdr, &id, 8);
    // Each word: the stamp a record starting on its line one lap later has.
    for (size_t o = kRecHdr + 8; o + 8 <= kRecHdr + 8 + plen; o += 8) {
      uint64_t fake = pos + (o & ~size_t{63}) + 4096 + 1;
      std::memcpy(rec + o, &fake, 8);
    }
    w.publish(rec, static_cast<uint32_t>(plen), 8);
    bool wake = false;
    int seen = r.drain([](const uint8_t*, size_t, const uint8_t*, size_t) {}, wake);
    ASSERT_EQ(seen, 1);
    // Small records now start inside the previous large one.
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(put(w, 100 + static_cast<uint64_t>(k), 8, 9));
    auto got = take(r, 9);
    ASSERT_EQ(got.size(), 3u) << "round " << round;
    EXPECT_FALSE(r.nonempty());
  }
}

TEST(Ring, SuccessorOfADeadWriterSkipsItsPartialRecord) {
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  ASSERT_TRUE(put(w, 1, 300, 7));
  ASSERT_EQ(take(r, 7).size(), 1u);
  ASSERT_TRUE(put(w, 2, 10, 7));  // committed, not yet read
  // The writer dies in the middle of a record: payload bytes written, the
  // stamp not. Its bytes mimic stamps of the positions after it.
  uint64_t at = m.ctl.tail.load();
  uint8_t* rec = w.reserve(RingWriter::record_size(8, 1000));
  ASSERT_NE(rec, nullptr);
  for (size_t i = 8; i + 8 <= 1000; i += 8) {
    uint64_t fake = at + i + 1;
    std::memcpy(rec + i, &fake, 8);
  }
  RingWriter next;
  next.attach(&m.ctl, m.data, m.size);
  EXPECT_EQ(m.ctl.tail.load(), at);
  ASSERT_TRUE(put(next, 3, 8, 7));
  ASSERT_TRUE(put(next, 4, 8, 7));
  auto got = take(r, 7);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].id, 2u);
  EXPECT_EQ(got[1].id, 3u);
  EXPECT_EQ(got[2].id, 4u);
  EXPECT_FALSE(r.nonempty());
}

TEST(Ring, SuccessorResumesAfterARecordCommittedPastTheHint) {
  AttachedRing ring(4096);
  auto& [m, w, r] = ring;
  ASSERT_TRUE(put(w, 1, 8, 7));
  uint64_t hint = m.ctl.tail.load();
  ASSERT_TRUE(put(w, 2, 200, 7));
  ASSERT_TRUE(put(w, 3, 8, 7));
  // The writer died after committing two records but before storing the hint.
  m.ctl.tail.store(hint);
  RingWriter next;
  next.attach(&m.ctl, m.data, m.size);
  ASSERT_TRUE(put(next, 4, 8, 7));
  auto got = take(r, 7);
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].id, i + 1);
}
