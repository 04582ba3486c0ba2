#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "modules/logging/checksum.hpp"
#include "modules/logging/sender_log.hpp"

namespace ftmpi::logging {
namespace {

Envelope env(uint64_t len, int32_t tag = 7, uint64_t ctx = 3) {
  Envelope e;
  e.ctx = ctx;
  e.tag = tag;
  e.len = len;
  return e;
}

TEST(Checksum, SameBytesSameHashWhateverThePieces) {
  std::vector<uint8_t> b(1000);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 31 + 7);
  uint64_t whole = checksum(b.data(), b.size());
  Hasher h;
  std::vector<uint8_t> copy(b.size());
  size_t cuts[] = {0, 3, 35, 36, 100, 513, 1000};
  for (size_t i = 0; i + 1 < std::size(cuts); ++i)
    h.update(copy.data() + cuts[i], b.data() + cuts[i], cuts[i + 1] - cuts[i]);
  EXPECT_EQ(h.digest(), whole);
  EXPECT_EQ(copy, b);
  b[999] ^= 1;
  EXPECT_NE(checksum(b.data(), b.size()), whole);
  EXPECT_NE(checksum(b.data(), 999), checksum(b.data(), 998));
  EXPECT_NE(envelope_checksum(whole, 1, 2, 3), envelope_checksum(whole, 1, 3, 3));
  EXPECT_NE(envelope_checksum(whole, 1, 2, 3), envelope_checksum(whole, 2, 2, 3));
}

TEST(SenderLog, ChannelsNumberFromOneAndKeepCopies) {
  SenderLog log(1 << 20);
  std::vector<uint8_t> a(100, 0xab), b(5000, 0xcd);
  const LogEntry* e1 = log.append(2, env(a.size()), a.data());
  ASSERT_NE(e1, nullptr);
  EXPECT_EQ(e1->seq, 1u);
  a.assign(a.size(), 0);  // the log holds a copy, not the user's buffer
  EXPECT_EQ(e1->data()[0], 0xab);
  EXPECT_EQ(e1->data()[99], 0xab);
  const LogEntry* e2 = log.append(2, env(b.size()), b.data());
  const LogEntry* f1 = log.append(5, env(b.size()), b.data());
  EXPECT_EQ(e2->seq, 2u);
  EXPECT_EQ(f1->seq, 1u);
  EXPECT_EQ(log.next_seq(2), 3u);
  EXPECT_EQ(log.next_seq(5), 2u);
  EXPECT_EQ(log.next_seq(9), 1u);
  EXPECT_EQ(log.bytes(), 100u + 5000 + 5000);
  EXPECT_EQ(log.entries(), 3u);
  EXPECT_EQ(log.find(2, 2), e2);
  EXPECT_EQ(log.find(2, 3), nullptr);
  EXPECT_EQ(e2->checksum, f1->checksum);  // same envelope and bytes
  std::vector<uint64_t> seen;
  log.for_each_from(2, 2, [&](const LogEntry& e) { seen.push_back(e.seq); });
  EXPECT_EQ(seen, (std::vector<uint64_t>{2}));
}

TEST(SenderLog, SmallMessagesArePackedLargeOnesLineAligned) {
  // Arena bytes per message are page faults per message on a fresh arena:
  // an 8 B message takes 80 bytes (48 of entry, 32 of payload), and a
  // large payload still starts on a cache line.
  SenderLog log(1u << 30);
  std::vector<uint8_t> small(8, 1), mid(40, 2), large(4096, 3);
  const LogEntry* a = log.append(1, env(small.size()), small.data());
  const LogEntry* b = log.append(2, env(small.size()), small.data());
  const LogEntry* c = log.append(1, env(mid.size()), mid.data());
  const LogEntry* d = log.append(1, env(large.size()), large.data());
  const LogEntry* e = log.append(1, env(small.size()), small.data());
  ASSERT_TRUE(a && b && c && d && e);
  auto at = [](const LogEntry* x) { return reinterpret_cast<uintptr_t>(x); };
  EXPECT_EQ(at(b) - at(a), 80u);
  EXPECT_EQ(at(c) - at(b), 80u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d->data()) % 64, 0u);
  EXPECT_EQ(at(d) % 64, 0u);
  EXPECT_EQ(at(e) - at(d), 64u + 4096u);
  EXPECT_EQ(std::memcmp(c->data(), mid.data(), mid.size()), 0);
  EXPECT_EQ(std::memcmp(d->data(), large.data(), large.size()), 0);
  EXPECT_EQ(e->data()[7], 1);
}

TEST(SenderLog, LimitRefusesAndLogsNothing) {
  SenderLog log(1000);
  std::vector<uint8_t> a(600, 1);
  ASSERT_NE(log.append(0, env(600), a.data()), nullptr);
  EXPECT_EQ(log.append(0, env(600), a.data()), nullptr);
  EXPECT_EQ(log.next_seq(0), 2u);
  EXPECT_EQ(log.bytes(), 600u);
  ASSERT_NE(log.append(0, env(400), a.data()), nullptr);
  EXPECT_EQ(log.bytes(), 1000u);
}

TEST(SenderLog, PiecewiseCommitMatchesAppend) {
  SenderLog log(1 << 20);
  std::vector<uint8_t> a(300);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i);
  uint8_t* to = log.reserve(1, env(300));
  ASSERT_NE(to, nullptr);
  Hasher h;
  h.update(to, a.data(), 100);
  h.update(to + 100, a.data() + 100, 200);
  const LogEntry* e = log.commit(1, h.digest());
  const LogEntry* f = log.append(1, env(300), a.data());
  EXPECT_EQ(e->checksum, f->checksum);
  EXPECT_EQ(std::memcmp(e->data(), a.data(), 300), 0);
}

TEST(SenderLog, DropBeforeReturnsMemoryAndKeepsTheRest) {
  SenderLog log(1ull << 32);
  std::vector<uint8_t> big(40u << 20, 9);  // two of these fill more than one chunk
  for (int i = 0; i < 4; ++i) ASSERT_NE(log.append(3, env(big.size()), big.data()), nullptr);
  std::vector<uint8_t> small(10, 4);
  log.append(4, env(10), small.data());
  uint64_t mapped = log.mapped();
  EXPECT_GE(mapped, 4 * big.size());
  log.drop_before(3, 3);
  EXPECT_EQ(log.find(3, 2), nullptr);
  ASSERT_NE(log.find(3, 3), nullptr);
  EXPECT_EQ(log.find(3, 3)->data()[12345], 9);
  EXPECT_EQ(log.bytes(), 2 * big.size() + 10);
  EXPECT_EQ(log.bytes_for(3), 2 * big.size());  // per channel, what a restart of 3 would be sent
  EXPECT_EQ(log.bytes_for(4), 10u);
  EXPECT_EQ(log.bytes_for(5), 0u);
  EXPECT_LT(log.mapped(), mapped);
  EXPECT_EQ(log.next_seq(3), 5u);  // numbering goes on
  EXPECT_EQ(log.find(4, 1)->data()[9], 4);
}

TEST(SenderLog, ZeroByteMessagesAreLogged) {
  SenderLog log(0);
  const LogEntry* e = log.append(0, env(0), nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->seq, 1u);
  EXPECT_NE(e->checksum, log.append(0, env(0, 8), nullptr)->checksum);
}

TEST(Checksum, ShortAndLongPathsAgreeAtEverySize) {
  std::vector<uint8_t> b(200);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 13 + 1);
  uint8_t out[32];
  for (size_t n = 0; n <= b.size(); ++n) {
    Hasher pieces;
    pieces.update(nullptr, b.data(), n / 3);
    pieces.update(nullptr, b.data() + n / 3, n - n / 3);
    EXPECT_EQ(pieces.digest(), checksum(b.data(), n)) << n;
    if (n < 32) {
      EXPECT_EQ(Hasher::copy_short(out, b.data(), n), checksum(b.data(), n)) << n;
      EXPECT_EQ(std::memcmp(out, b.data(), n), 0) << n;
    }
    if (n > 0) {  // every byte counts
      std::vector<uint8_t> c(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
      c[n - 1] ^= 0x80;
      EXPECT_NE(checksum(c.data(), n), checksum(b.data(), n)) << n;
      c[n - 1] ^= 0x80;
      c[0] ^= 1;
      EXPECT_NE(checksum(c.data(), n), checksum(b.data(), n)) << n;
    }
  }
}

TEST(SenderLog, AppendMatchesReserveCommitAtEverySize) {
  SenderLog log(1 << 20);
  std::vector<uint8_t> a(150);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i ^ 0x5a);
  for (uint64_t n = 0; n <= a.size(); ++n) {
    const LogEntry* f = log.append(1, env(n), a.data());
    uint8_t* to = log.reserve(2, env(n));
    ASSERT_NE(to, nullptr);
    Hasher h;
    h.update(to, a.data(), static_cast<size_t>(n));
    const LogEntry* e = log.commit(2, h.digest());
    ASSERT_NE(f, nullptr);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->checksum, f->checksum) << n;
    EXPECT_EQ(std::memcmp(f->data(), a.data(), static_cast<size_t>(n)), 0) << n;
    EXPECT_EQ(f->env.len, n);
  }
  EXPECT_EQ(log.entries(), 2 * (a.size() + 1));
}

TEST(SenderLog, AppendRefusesASequenceNumberThatDoesNotGrow) {
  SenderLog log(1 << 20);
  uint8_t b[4] = {1, 2, 3, 4};
  ASSERT_NE(log.append(0, 5, env(4), b), nullptr);  // p2p skipped 1..4 (withdrawn)
  EXPECT_EQ(log.next_seq(0), 6u);
  EXPECT_EQ(log.append(0, 5, env(4), b), nullptr);
  EXPECT_EQ(log.entries(), 1u);
  EXPECT_EQ(log.bytes(), 4u);
  EXPECT_EQ(log.find(0, 5)->data()[3], 4);
}

TEST(SenderLog, AnEmptiedChunkIsReusedInsteadOfMappingAnother) {
  SenderLog log(1ull << 32);
  std::vector<uint8_t> big(20u << 20, 7);
  for (int i = 0; i < 3; ++i) ASSERT_NE(log.append(1, env(big.size()), big.data()), nullptr);  // chunk 1 full
  ASSERT_NE(log.append(1, env(big.size()), big.data()), nullptr);                              // chunk 2
  const uint64_t mapped = log.mapped();
  log.drop_before(1, 4);  // chunk 1 emptied: kept as the spare
  EXPECT_EQ(log.mapped(), mapped);
  for (int i = 0; i < 5; ++i) ASSERT_NE(log.append(1, env(big.size()), big.data()), nullptr);
  EXPECT_EQ(log.mapped(), mapped);  // 2 more in chunk 2, 3 in the spare: nothing mapped
  EXPECT_EQ(log.find(1, 9)->data()[(20u << 20) - 1], 7);
  EXPECT_EQ(log.find(1, 4)->data()[0], 7);
  EXPECT_EQ(log.entries(), 6u);
}

// Large payloads have their pages populated before the copy; whatever the
// offset they land at (after small entries, across a chunk's end, bigger
// than a chunk), every byte is there and the checksum is the same as for
// the same payload logged piecewise.
TEST(SenderLog, LargePayloadsAtAnyOffsetAreLoggedWhole) {
  SenderLog log(1ull << 32);
  SenderLog pieces(1ull << 32);
  const uint64_t sizes[] = {3, (256u << 10) - 1, 5, 256u << 10, 7, (256u << 10) + 4097, 1, 30u << 20, 40u << 20,
                            70u << 20};
  uint64_t seq = 0;
  for (uint64_t n : sizes) {
    std::vector<uint8_t> src(n);
    for (uint64_t i = 0; i < n; ++i) src[i] = static_cast<uint8_t>(i * 31 + n);
    const LogEntry* e = log.append(2, env(n), src.data());
    ASSERT_NE(e, nullptr) << n;
    ++seq;
    ASSERT_EQ(std::memcmp(e->data(), src.data(), n), 0) << n;
    uint8_t* to = pieces.reserve(2, env(n));
    ASSERT_NE(to, nullptr);
    std::memcpy(to, src.data(), n);
    const LogEntry* p = pieces.commit(2, checksum(src.data(), n));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(e->checksum, p->checksum) << n;
  }
  // Still intact once everything is logged (no later populate touched them).
  for (uint64_t k = 1; k <= seq; ++k) {
    const LogEntry* e = log.find(2, k);
    ASSERT_NE(e, nullptr);
    const uint64_t n = sizes[k - 1];
    EXPECT_EQ(e->env.len, n);
    EXPECT_EQ(e->data()[0], static_cast<uint8_t>(n));
    EXPECT_EQ(e->data()[n - 1], static_cast<uint8_t>((n - 1) * 31 + n));
  }
}

// Garbage collection in steady state (spec/checkpoint-protocol.md §5): a
// sender that keeps sending to two peers and drops what their checkpoints
// accepted maps a bounded arena (the emptied chunk comes back as the spare,
// populated), reports the bytes it dropped, and keeps the entries after the
// cut intact, also those written into a recycled chunk.
TEST(SenderLog, DropBeforeInSteadyStateRecyclesChunksAndReportsBytes) {
  SenderLog log(1ull << 32);
  std::vector<uint8_t> msg(3u << 20);
  uint64_t mapped_peak = 0, reclaimed = 0, sent = 0;
  for (uint64_t round = 0; round < 60; ++round) {
    for (int32_t dst = 0; dst < 2; ++dst) {
      std::memset(msg.data(), static_cast<int>(round * 2 + static_cast<uint64_t>(dst)), 64);
      ASSERT_NE(log.append(dst, env(msg.size()), msg.data()), nullptr) << round;
      sent += msg.size();
    }
    mapped_peak = std::max(mapped_peak, log.mapped());
    if (round % 10 == 9) {  // both receivers checkpoint: they accepted all but the last 2
      const uint64_t keep_from = log.next_seq(0) - 2;
      reclaimed += log.drop_before(0, keep_from);
      reclaimed += log.drop_before(1, keep_from);
      EXPECT_EQ(log.bytes(), 4 * msg.size()) << round;
      EXPECT_EQ(log.bytes_for(0), 2 * msg.size()) << round;
      EXPECT_EQ(log.find(0, keep_from - 1), nullptr);
      ASSERT_NE(log.find(1, keep_from + 1), nullptr);
      EXPECT_EQ(log.find(1, keep_from + 1)->data()[63], static_cast<uint8_t>(round * 2 + 1));
      EXPECT_EQ(log.find(0, keep_from)->data()[0], static_cast<uint8_t>((round - 1) * 2));
    }
  }
  EXPECT_EQ(reclaimed + log.bytes(), sent);
  EXPECT_EQ(log.drop_before(0, 1), 0u) << "nothing below the first entry left";
  EXPECT_EQ(log.drop_before(5, 100), 0u) << "a channel never used";
  // 60 MiB logged between two collections, 360 MiB in all: the arena never
  // held more than the chunks live entries need plus the spare.
  EXPECT_LE(mapped_peak, 4 * (64ull << 20)) << "arena grew with the traffic instead of recycling";
  EXPECT_LT(log.mapped(), sent);
}

// What an image may leave out: pages no live entry touches. Entries to two
// receivers interleave; after one receiver's drop, the pages that held only
// its entries are unused, the other's stay, and the end of the chunk being
// filled is unused from the first page nothing was written to.
TEST(SenderLog, UnusedPagesAreThoseNoLiveEntryTouches) {
  SenderLog log(1ull << 32);
  std::vector<uint8_t> page_size(3 * 4096, 1), tiny(8, 2);
  std::vector<const LogEntry*> to_one;
  const LogEntry* to_two = nullptr;
  for (int i = 0; i < 8; ++i) to_one.push_back(log.append(1, env(page_size.size()), page_size.data()));
  to_two = log.append(2, env(tiny.size()), tiny.data());
  for (int i = 0; i < 8; ++i) to_one.push_back(log.append(1, env(page_size.size()), page_size.data()));
  auto covered = [](const std::vector<std::pair<uint64_t, uint64_t>>& runs, const void* p, uint64_t n) {
    const auto a = reinterpret_cast<uint64_t>(p);
    for (const auto& [lo, hi] : runs)
      if (a < hi && a + n > lo) return true;  // any overlap
    return false;
  };
  std::vector<std::pair<uint64_t, uint64_t>> unused;
  log.unused_pages(unused);
  ASSERT_EQ(unused.size(), 1u) << "only the chunk's unfilled end";
  const LogEntry* last = to_one.back();
  EXPECT_FALSE(covered(unused, last, last->data() + last->env.len - reinterpret_cast<const uint8_t*>(last)));
  EXPECT_EQ(unused[0].first % 4096, 0u);
  EXPECT_LE(unused[0].first - reinterpret_cast<uint64_t>(last->data() + last->env.len), 4096u);

  log.drop_before(1, 17);  // receiver 1 checkpointed: every entry to it dropped
  log.unused_pages(unused);
  for (size_t i = 1; i < unused.size(); ++i) EXPECT_LT(unused[i - 1].second, unused[i].first) << "sorted, merged";
  EXPECT_FALSE(covered(unused, to_two, kLogEntryBytes + 32)) << "a live entry's pages are kept";
  EXPECT_EQ(to_two->data()[7], 2);
  uint64_t left_out = 0;
  for (const auto& [lo, hi] : unused) left_out += hi - lo;
  // The whole chunk but the page or two the small entry (48 + 32 bytes) is on.
  const auto at = reinterpret_cast<uint64_t>(to_two);
  EXPECT_EQ(left_out, (64ull << 20) - ((at + 80 - 1) / 4096 - at / 4096 + 1) * 4096);
  EXPECT_EQ(log.entries(), 1u);
}

// Pages resident in memory among `pages` from the one holding `from`.
size_t resident(const void* from, size_t pages) {
  const auto a = reinterpret_cast<uintptr_t>(from) & ~uintptr_t{4095};
  std::vector<unsigned char> v(pages);
  if (mincore(reinterpret_cast<void*>(a), pages * 4096, v.data()) != 0) return 0;
  return static_cast<size_t>(std::count_if(v.begin(), v.end(), [](unsigned char c) { return c & 1; }));
}

// An entry of 256 bytes or more finds the next 256 KiB of its chunk
// populated (one call instead of a fault per page); an 8-byte one does not
// populate ahead.
TEST(SenderLog, MidSizeEntriesPopulateAheadSmallOnesDoNot) {
  std::vector<uint8_t> tiny(8, 1), mid(300, 2);
  SenderLog small_only(1ull << 30);
  const LogEntry* s = small_only.append(1, env(tiny.size()), tiny.data());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(resident(s, 64), 1u) << "only the page the entry was written to";
  SenderLog with_mid(1ull << 30);
  const LogEntry* m = with_mid.append(1, env(mid.size()), mid.data());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(resident(m, 64), 64u);
  EXPECT_EQ(m->data()[299], 2);
}

// Idle time populates the pages of the next entries piece by piece, 16 MiB
// ahead of the fill point and no further; across a chunk's end the spare
// takes the rest, and the next chunk is that spare. Nothing before the first
// append.
TEST(SenderLog, IdleTimePopulatesAheadOfTheFillPointUpToABound) {
  SenderLog log(1ull << 32);
  EXPECT_FALSE(log.populate_ahead()) << "nothing logged yet";
  std::vector<uint8_t> tiny(8, 1);
  const LogEntry* e = log.append(1, env(tiny.size()), tiny.data());
  ASSERT_NE(e, nullptr);
  int pieces = 0;
  while (log.populate_ahead()) ++pieces;
  EXPECT_EQ(pieces, 64) << "16 MiB in 256 KiB pieces";
  const size_t ahead = (16u << 20) / 4096;
  EXPECT_EQ(resident(e, ahead), ahead);
  EXPECT_LT(resident(reinterpret_cast<const uint8_t*>(e) + (17u << 20), 256), 256u) << "not beyond the bound";
  EXPECT_EQ(log.mapped(), 64ull << 20) << "no spare yet: the chunk holds the bound";

  // Fill the chunk to 8 MiB short of its end: the spare takes the other 8.
  std::vector<uint8_t> big(1u << 20, 3);
  while (log.mapped() == (64ull << 20) && log.bytes() + (9u << 20) < (64ull << 20))
    ASSERT_NE(log.append(1, env(big.size()), big.data()), nullptr);
  pieces = 0;
  while (log.populate_ahead()) ++pieces;
  EXPECT_EQ(log.mapped(), 128ull << 20) << "the spare was mapped";
  EXPECT_GT(pieces, 0);
  // The next chunk is the spare, already populated at its start.
  while (log.mapped() == (128ull << 20) && log.bytes() < (64ull << 20))
    ASSERT_NE(log.append(1, env(big.size()), big.data()), nullptr);
  const LogEntry* next = log.append(1, env(big.size()), big.data());
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(log.mapped(), 128ull << 20) << "the spare became the chunk: nothing new mapped";
  EXPECT_EQ(next->data()[0], 3);
}

}  // namespace
}  // namespace ftmpi::logging
