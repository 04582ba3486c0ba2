// The selection interpreter on synthetic tables, the real table against the
// real catalogs, and FTMPI_COLL parsing.
#include <gtest/gtest.h>

#include "coll/select.hpp"

namespace ftmpi::coll {
namespace {

const AlgoDesc kCat[] = {{"small", kNeedsNothing}, {"comm", kNeedsCommutative}, {"pow2", kNeedsPow2}};
const Rule kRules[] = {
    {CollOp::kBcast, 4, 100, "pow2"},
    {CollOp::kBcast, kAnySize, 1000, "comm"},
    {CollOp::kBcast, kAnySize, kAnyBytes, "small"},
    {CollOp::kReduce, kAnySize, kAnyBytes, "comm"},
};

int pick(CollOp op, int size, uint64_t bytes, bool comm = true, std::string_view forced = {}) {
  return select_algorithm(op, CallInfo{size, bytes, comm}, kCat, kRules, forced);
}

TEST(Select, FirstMatchingRowWins) {
  EXPECT_EQ(pick(CollOp::kBcast, 4, 100), 2);   // limits are inclusive
  EXPECT_EQ(pick(CollOp::kBcast, 4, 101), 1);
  EXPECT_EQ(pick(CollOp::kBcast, 5, 10), 1);
  EXPECT_EQ(pick(CollOp::kBcast, 64, 1000), 1);
  EXPECT_EQ(pick(CollOp::kBcast, 64, 1001), 0);
}

TEST(Select, RestrictionsSkipRows) {
  EXPECT_EQ(pick(CollOp::kBcast, 3, 10), 1);         // not a power of two: next row
  EXPECT_EQ(pick(CollOp::kBcast, 3, 10, false), 0);  // nor commutative: last row
  EXPECT_EQ(pick(CollOp::kBcast, 2, 10, false), 2);
}

TEST(Select, NoUsableRowFallsBackToFirstUsableAlgorithm) {
  EXPECT_EQ(pick(CollOp::kReduce, 8, 10, true), 1);
  EXPECT_EQ(pick(CollOp::kReduce, 8, 10, false), 0);
  EXPECT_EQ(pick(CollOp::kScan, 8, 10), 0);  // no row at all
}

TEST(Select, ForcedAlgorithmWhenUsable) {
  EXPECT_EQ(pick(CollOp::kBcast, 64, 5000, true, "pow2"), 2);
  EXPECT_EQ(pick(CollOp::kBcast, 6, 5000, true, "pow2"), 0);   // not usable: the table decides
  EXPECT_EQ(pick(CollOp::kBcast, 6, 500, false, "comm"), 0);
  EXPECT_EQ(pick(CollOp::kBcast, 6, 500, true, "nosuch"), 1);  // unknown: the table decides
}

TEST(Select, UsableChecksEveryNeed) {
  EXPECT_TRUE(usable({"x", kNeedsCommutative | kNeedsPow2}, {8, 0, true}));
  EXPECT_FALSE(usable({"x", kNeedsCommutative | kNeedsPow2}, {8, 0, false}));
  EXPECT_FALSE(usable({"x", kNeedsCommutative | kNeedsPow2}, {12, 0, true}));
  EXPECT_TRUE(usable({"x", kNeedsPow2}, {1, 0, true}));
}

TEST(Select, ParseForced) {
  Forced f;
  std::string err;
  ASSERT_TRUE(parse_forced("bcast:linear,allreduce:ring,,reduce_scatter:halving", &f, &err)) << err;
  EXPECT_EQ(f.name[static_cast<int>(CollOp::kBcast)], "linear");
  EXPECT_EQ(f.name[static_cast<int>(CollOp::kAllreduce)], "ring");
  EXPECT_EQ(f.name[static_cast<int>(CollOp::kReduceScatter)], "halving");
  EXPECT_EQ(f.name[static_cast<int>(CollOp::kReduce)], "");
  EXPECT_FALSE(parse_forced("bcast", &f, &err));
  EXPECT_FALSE(parse_forced("bcast:", &f, &err));
  EXPECT_FALSE(parse_forced("frobnicate:x", &f, &err));
  EXPECT_NE(err.find("frobnicate"), std::string::npos);
  EXPECT_TRUE(parse_forced("", &f, &err));
}

// Every row of the real table names an algorithm of its collective, and
// every collective ends with a row without limits whose algorithm has no
// restriction, so any call finds a row.
TEST(TuningTable, RowsNameRealAlgorithms) {
  for (const Rule& r : tuning_table()) {
    bool found = false;
    for (const AlgoDesc& a : catalog(r.op)) found |= std::string_view(a.name) == r.algorithm;
    EXPECT_TRUE(found) << coll_name(r.op) << ": " << r.algorithm;
  }
}

TEST(TuningTable, EveryCollectiveHasAnUnrestrictedLastResort) {
  for (int i = 0; i < static_cast<int>(CollOp::kCount); ++i) {
    const CollOp op = static_cast<CollOp>(i);
    bool covered = false;
    for (const Rule& r : tuning_table()) {
      if (r.op != op || r.max_size != kAnySize || r.max_bytes != kAnyBytes) continue;
      for (const AlgoDesc& a : catalog(op))
        if (std::string_view(a.name) == r.algorithm && a.needs == kNeedsNothing) covered = true;
    }
    // Collectives whose last row needs commutativity still have an
    // unrestricted algorithm for the fallback.
    bool any_free = false;
    for (const AlgoDesc& a : catalog(op)) any_free |= a.needs == kNeedsNothing;
    EXPECT_TRUE(any_free) << coll_name(op);
    if (!covered) {
      const int idx = select_algorithm(op, {7, 1 << 20, false}, catalog(op), tuning_table(), {});
      EXPECT_EQ(catalog(op)[idx].needs, kNeedsNothing) << coll_name(op);
    }
  }
}

TEST(TuningTable, NonCommutativeOpsGetOrderedAlgorithms) {
  for (CollOp op : {CollOp::kReduce, CollOp::kAllreduce, CollOp::kReduceScatter, CollOp::kScan}) {
    for (int size : {2, 3, 8, 16, 100})
      for (uint64_t bytes : {uint64_t{8}, uint64_t{1} << 16, uint64_t{1} << 24}) {
        const int idx = select_algorithm(op, {size, bytes, false}, catalog(op), tuning_table(), {});
        EXPECT_EQ(catalog(op)[idx].needs & kNeedsCommutative, 0u) << coll_name(op) << " " << size << " " << bytes;
      }
  }
}

}  // namespace
}  // namespace ftmpi::coll
