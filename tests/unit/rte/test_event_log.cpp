// The daemon's event log store and the launcher's output-once filter.
#include <gtest/gtest.h>

#include "rte/daemon/event_log.hpp"
#include "rte/launcher/output.hpp"

namespace ftmpi::rte {
namespace {

using proto::DetBatch;

TEST(EventLog, KeepsBatchesInOrderOnceEach) {
  EventLog log;
  EXPECT_FALSE(log.has(3));
  EXPECT_TRUE(log.add(3, DetBatch{0, 1, "a"}));
  EXPECT_TRUE(log.add(3, DetBatch{0, 2, "bb"}));
  EXPECT_TRUE(log.add(3, DetBatch{1, 1, "c"}));
  EXPECT_FALSE(log.add(3, DetBatch{0, 2, "bb"})) << "a repeated batch (a resync) is not stored twice";
  EXPECT_TRUE(log.add(3, DetBatch{0, 3, "d"})) << "a late batch of an older incarnation goes in its place";
  EXPECT_EQ(log.concatenated(3), "abbdc");
  EXPECT_EQ(log.last_batch(3, 0), 3u);
  EXPECT_EQ(log.last_batch(3, 1), 1u);
  EXPECT_EQ(log.last_batch(3, 2), 0u);
  EXPECT_EQ(log.last_batch(4, 0), 0u);
  EXPECT_EQ(log.bytes(), 5u);
  EXPECT_EQ(log.slots(), std::vector<int32_t>{3});
  EXPECT_TRUE(log.batches(7).empty());
}

// Garbage collection after a checkpoint (spec/checkpoint-protocol.md §5).
TEST(EventLog, DropThroughAKeptCheckpointKeepsOnlyLaterBatches) {
  EventLog log;
  for (uint64_t i = 1; i <= 3; ++i) log.add(2, DetBatch{0, i, "x"});
  for (uint64_t i = 1; i <= 4; ++i) log.add(2, DetBatch{1, i, std::string(1, static_cast<char>('0' + i))});
  log.add(5, DetBatch{0, 1, "other"});
  EXPECT_EQ(log.bytes(), 12u);
  // Image of incarnation 1 had consumed its batches up to 2, and every one of incarnation 0.
  EXPECT_EQ(log.drop_through(2, 1, 2), 5u);
  EXPECT_EQ(log.concatenated(2), "34");
  EXPECT_EQ(log.concatenated(5), "other") << "another slot untouched";
  EXPECT_EQ(log.bytes(), 7u);
  EXPECT_FALSE(log.add(2, DetBatch{1, 2, "2"})) << "a dropped batch (a late replica) does not come back";
  EXPECT_FALSE(log.add(2, DetBatch{0, 3, "x"}));
  EXPECT_EQ(log.drop_through(2, 1, 1), 0u) << "an older checkpoint's word drops nothing";
  EXPECT_EQ(log.concatenated(2), "34");
  // Everything of the incarnation dropped: the next batch number still follows on.
  EXPECT_EQ(log.drop_through(2, 1, 4), 2u);
  EXPECT_TRUE(log.batches(2).empty());
  EXPECT_EQ(log.last_batch(2, 1), 4u) << "the daemon checks DET_LOG's order against this";
  EXPECT_EQ(log.last_batch(2, 2), 0u);
  EXPECT_TRUE(log.add(2, DetBatch{1, 5, "5"}));
  EXPECT_EQ(log.last_batch(2, 1), 5u);
  // A replica that never saw the slot: the floor alone.
  EventLog replica;
  EXPECT_EQ(replica.drop_through(2, 1, 4), 0u);
  EXPECT_FALSE(replica.add(2, DetBatch{1, 4, "4"}));
  EXPECT_TRUE(replica.add(2, DetBatch{1, 5, "5"}));
  EXPECT_EQ(replica.concatenated(2), "5");
}

TEST(EventLog, MergingTwoCopiesLosesNothing) {
  EventLog a, b, merged;
  for (uint64_t i = 1; i <= 5; ++i) a.add(0, DetBatch{0, i, std::string(1, static_cast<char>('0' + i))});
  for (uint64_t i = 3; i <= 7; ++i) b.add(0, DetBatch{0, i, std::string(1, static_cast<char>('0' + i))});
  for (const DetBatch& x : b.batches(0)) merged.add(0, x);
  for (const DetBatch& x : a.batches(0)) merged.add(0, x);
  EXPECT_EQ(merged.concatenated(0), "1234567");
}

TEST(EventLog, CutsIntoPiecesBelowTheBound) {
  std::vector<DetBatch> v;
  for (uint64_t i = 1; i <= 10; ++i) v.push_back(DetBatch{0, i, std::string(300, 'x')});
  auto pieces = cut_batches(v, 1000);
  ASSERT_EQ(pieces.size(), 4u);  // 3 + 3 + 3 + 1
  size_t n = 0;
  for (const auto& p : pieces) {
    size_t bytes = 0;
    for (const DetBatch& b : p) bytes += b.data.size();
    EXPECT_LE(bytes, 1000u);
    n += p.size();
  }
  EXPECT_EQ(n, 10u);
  // A batch larger than the bound travels alone.
  EXPECT_EQ(cut_batches({DetBatch{0, 1, std::string(5000, 'y')}}, 1000).size(), 1u);
  EXPECT_TRUE(cut_batches({}, 1000).empty());
}

TEST(OutputOnce, ALaterIncarnationPrintsOnlyWhatIsNew) {
  OutputOnce once;
  EXPECT_EQ(once.filter(1, 1, "hello "), "hello ");
  EXPECT_EQ(once.filter(1, 1, "wor"), "wor");
  EXPECT_EQ(once.filter(1, 2, "err\n"), "err\n");
  once.restart(1);
  // The replay writes the same bytes in other pieces.
  EXPECT_EQ(once.filter(1, 1, "hel"), "");
  EXPECT_EQ(once.filter(1, 1, "lo wo"), "");
  EXPECT_EQ(once.filter(1, 1, "rld\n"), "ld\n");
  EXPECT_EQ(once.filter(1, 2, "err\nmore\n"), "more\n");
  EXPECT_EQ(once.filter(2, 1, "other slot\n"), "other slot\n");
  once.restart(1);
  once.restart(1);  // died again before writing anything
  EXPECT_EQ(once.filter(1, 1, "hello world\nnext\n"), "next\n");
}

TEST(OutputOnce, AWokenImageContinuesFromItsCheckpoint) {
  OutputOnce once;
  EXPECT_EQ(once.filter(1, 1, "one\n"), "one\n");
  once.mark(1, 3);  // checkpoint 3: 4 bytes of stdout, none of stderr
  EXPECT_EQ(once.filter(1, 1, "two\nthr"), "two\nthr");
  EXPECT_EQ(once.filter(1, 2, "e\n"), "e\n");
  once.restart(1);
  EXPECT_FALSE(once.resume_at(1, 4));  // never marked
  ASSERT_TRUE(once.resume_at(1, 3));
  // The image writes what followed the fork again, and then more.
  EXPECT_EQ(once.filter(1, 1, "two\n"), "");
  EXPECT_EQ(once.filter(1, 1, "three\n"), "ee\n");
  EXPECT_EQ(once.filter(1, 2, "e\nf\n"), "f\n");
  // Woken from the same image again (the first wake-up died): still once.
  once.mark(1, 5);
  once.restart(1);
  ASSERT_TRUE(once.resume_at(1, 3));
  EXPECT_EQ(once.filter(1, 1, "two\nthree\nfour\n"), "four\n");
}

}  // namespace
}  // namespace ftmpi::rte
