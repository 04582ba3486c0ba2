// The determinant staging area (rte/proto/det_stage.hpp): records come out
// whole and in order across the ring's wrap, a full ring refuses without
// writing, and the reader refuses what does not fit what was published.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "rte/proto/det_stage.hpp"

namespace ftmpi::rte::proto {
namespace {

struct Area {
  std::vector<uint64_t> mem;  // zeroed, 8-aligned, like a fresh memfd
  explicit Area(size_t ring) : mem((kStageHeaderBytes + ring) / 8, 0) {}
  void* base() { return mem.data(); }
  size_t bytes() const { return mem.size() * 8; }
  StageHeader* header() { return static_cast<StageHeader*>(base()); }
};

struct Taken {
  uint32_t incarnation;
  uint64_t batch;
  std::string data;
};

std::vector<Taken> take_all(StageReader& r, bool& ok) {
  std::vector<Taken> out;
  ok = r.take([&](uint32_t inc, uint64_t batch, const uint8_t* d, size_t n) {
    out.push_back(Taken{inc, batch, std::string(reinterpret_cast<const char*>(d), n)});
  });
  return out;
}

TEST(DetStage, RecordsComeOutWholeAndInOrderAcrossTheWrap) {
  Area a(256);
  ASSERT_TRUE(stage_init(a.base(), a.bytes()));
  StageWriter w(a.base(), a.bytes());
  StageReader r(a.base(), a.bytes());
  ASSERT_TRUE(w.valid() && r.valid());
  uint64_t next = 1, expect = 1;
  // Records of 16 + 8..40 bytes in a 256-byte ring: many laps, headers and
  // data cut by the end of the ring.
  for (int lap = 0; lap < 50; ++lap) {
    int put = 0;
    for (;;) {
      std::string d(3 + (next * 7) % 30, static_cast<char>('a' + next % 26));
      if (!w.put(2, next, d.data(), d.size())) break;
      ++next;
      ++put;
    }
    ASSERT_GT(put, 0);
    bool ok = false;
    for (const Taken& t : take_all(r, ok)) {
      EXPECT_EQ(t.incarnation, 2u);
      EXPECT_EQ(t.batch, expect);
      EXPECT_EQ(t.data, std::string(3 + (expect * 7) % 30, static_cast<char>('a' + expect % 26)));
      ++expect;
    }
    EXPECT_TRUE(ok);
    EXPECT_EQ(expect, next);
  }
  EXPECT_GT(a.header()->written.load(), 10 * 256u);
}

TEST(DetStage, AFullRingRefusesWithoutWritingAndTakesAgainOnceRead) {
  Area a(128);
  ASSERT_TRUE(stage_init(a.base(), a.bytes()));
  StageWriter w(a.base(), a.bytes());
  StageReader r(a.base(), a.bytes());
  const std::string d(40, 'x');  // 56 bytes a record: two fit in 128
  EXPECT_TRUE(w.put(0, 1, d.data(), d.size()));
  EXPECT_TRUE(w.put(0, 2, d.data(), d.size()));
  const uint64_t written = a.header()->written.load();
  EXPECT_FALSE(w.put(0, 3, d.data(), d.size()));
  EXPECT_EQ(a.header()->written.load(), written);
  std::vector<uint8_t> big(200, 1);
  EXPECT_FALSE(w.put(0, 3, big.data(), big.size()));
  bool ok = false;
  EXPECT_EQ(take_all(r, ok).size(), 2u);
  EXPECT_TRUE(w.put(0, 3, d.data(), d.size()));
  std::vector<Taken> t = take_all(r, ok);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].batch, 3u);
}

// The area is the slot's for every incarnation: a writer mapped by the next
// one starts from the counts the last left, and never writes over records
// the daemon has not taken yet.
TEST(DetStage, ANewWriterRespectsWhatAnEarlierOneLeft) {
  Area a(128);
  ASSERT_TRUE(stage_init(a.base(), a.bytes()));
  StageReader r(a.base(), a.bytes());
  const std::string d(40, 'z');  // 56 bytes a record: two fit in 128
  {
    StageWriter first(a.base(), a.bytes());
    for (uint64_t b = 1; b <= 2; ++b) ASSERT_TRUE(first.put(0, b, d.data(), d.size()));
    bool ok = false;
    (void)take_all(r, ok);
    ASSERT_TRUE(first.put(0, 5, d.data(), d.size()));
    ASSERT_TRUE(first.put(0, 6, d.data(), d.size()));  // the ring is full, nothing taken
  }
  StageWriter next(a.base(), a.bytes());
  EXPECT_FALSE(next.put(1, 1, d.data(), d.size())) << "records 5 and 6 are not taken yet";
  bool ok = false;
  std::vector<Taken> t = take_all(r, ok);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].batch, 5u);
  EXPECT_EQ(t[1].batch, 6u);
  EXPECT_TRUE(next.put(1, 1, d.data(), d.size()));
}

TEST(DetStage, TheStableWordIsTheDaemonsToSet) {
  Area a(128);
  ASSERT_TRUE(stage_init(a.base(), a.bytes()));
  StageWriter w(a.base(), a.bytes());
  StageReader r(a.base(), a.bytes());
  EXPECT_FALSE(w.stable());
  r.set_stable();
  EXPECT_TRUE(w.stable());
}

TEST(DetStage, AnAreaNotLaidOutIsRefused) {
  Area a(128);
  EXPECT_FALSE(StageWriter(a.base(), a.bytes()).valid());
  EXPECT_FALSE(StageReader(a.base(), a.bytes()).valid());
  EXPECT_FALSE(stage_init(a.base(), 64));
  ASSERT_TRUE(stage_init(a.base(), a.bytes()));
  // A header claiming a ring larger than the mapping.
  a.header()->capacity = 1 << 20;
  EXPECT_FALSE(StageWriter(a.base(), a.bytes()).valid());
}

TEST(DetStage, TheReaderRefusesWhatDoesNotFitWhatWasPublished) {
  Area a(128);
  ASSERT_TRUE(stage_init(a.base(), a.bytes()));
  StageWriter w(a.base(), a.bytes());
  StageReader r(a.base(), a.bytes());
  const std::string d(8, 'y');
  ASSERT_TRUE(w.put(1, 1, d.data(), d.size()));
  ASSERT_TRUE(w.put(1, 2, d.data(), d.size()));
  // The second record's length claims more than was published.
  uint8_t* ring = static_cast<uint8_t*>(a.base()) + kStageHeaderBytes;
  const uint32_t huge = 100;
  std::memcpy(ring + 24 + 4, &huge, 4);
  bool ok = true;
  std::vector<Taken> t = take_all(r, ok);
  EXPECT_FALSE(ok);
  ASSERT_EQ(t.size(), 1u) << "what came before it is handed over";
  EXPECT_EQ(t[0].batch, 1u);
  // More published than the ring holds.
  a.header()->written.store(a.header()->drained.load() + 1000);
  EXPECT_FALSE(r.take([](uint32_t, uint64_t, const uint8_t*, size_t) {}));
}

}  // namespace
}  // namespace ftmpi::rte::proto
