#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "comm/model/topology.hpp"

using namespace ftmpi;
using namespace ftmpi::comm;

namespace {

std::vector<int> dims_of(int nnodes, std::vector<int> dims) {
  EXPECT_EQ(dims_create(nnodes, static_cast<int>(dims.size()), dims.data()), Err::kOk) << nnodes;
  return dims;
}

// Every non-increasing k-tuple with product n; the best by the documented
// criterion (smallest max - min, then smallest largest value, then the
// lexicographically smallest).
std::vector<int> brute_force_dims(int n, int k) {
  std::vector<int> best, cur(static_cast<size_t>(k));
  auto rec = [&](auto&& self, int pos, int rest, int limit) -> void {
    if (pos == k) {
      if (rest != 1) return;
      if (best.empty()) {
        best = cur;
        return;
      }
      const int sc = cur.front() - cur.back(), sb = best.front() - best.back();
      if (sc < sb || (sc == sb && cur < best)) best = cur;
      return;
    }
    for (int f = 1; f <= limit; ++f)
      if (rest % f == 0) {
        cur[static_cast<size_t>(pos)] = f;
        self(self, pos + 1, rest / f, f);
      }
  };
  rec(rec, 0, n, n);
  return best;
}

CartTopology cart(std::vector<int> dims, std::vector<int> periods) {
  CartTopology c;
  c.dims = std::move(dims);
  c.periods = std::move(periods);
  return c;
}

}  // namespace

TEST(DimsCreate, BalancedFactorisations) {
  EXPECT_EQ(dims_of(6, {0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims_of(12, {0, 0, 0}), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(dims_of(16, {0, 0, 0}), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(dims_of(16, {0, 0, 0, 0}), (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(dims_of(7, {0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims_of(24, {0, 0, 0}), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(dims_of(60, {0, 0, 0}), (std::vector<int>{5, 4, 3}));
  EXPECT_EQ(dims_of(100, {0, 0, 0}), (std::vector<int>{5, 5, 4}));
  EXPECT_EQ(dims_of(36, {0, 0}), (std::vector<int>{6, 6}));
  EXPECT_EQ(dims_of(1, {0, 0, 0}), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(dims_of(8, {0}), (std::vector<int>{8}));
  EXPECT_EQ(dims_of(997 * 991, {0, 0}), (std::vector<int>{997, 991}));
}

TEST(DimsCreate, FixedEntriesAreKeptAndTheRestFilled) {
  EXPECT_EQ(dims_of(12, {0, 3, 0}), (std::vector<int>{2, 3, 2}));
  EXPECT_EQ(dims_of(24, {0, 0, 2}), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(dims_of(6, {2, 3}), (std::vector<int>{2, 3}));
  EXPECT_EQ(dims_of(40, {5, 0, 0}), (std::vector<int>{5, 4, 2}));
}

TEST(DimsCreate, Errors) {
  std::vector<int> d{0, 3};
  EXPECT_EQ(dims_create(10, 2, d.data()), Err::kDims);  // 3 does not divide 10
  d = {2, 2};
  EXPECT_EQ(dims_create(6, 2, d.data()), Err::kDims);  // all fixed, wrong product
  d = {-1, 0};
  EXPECT_EQ(dims_create(6, 2, d.data()), Err::kDims);
  EXPECT_EQ(dims_create(4, -1, d.data()), Err::kDims);
  EXPECT_EQ(dims_create(0, 1, d.data()), Err::kDims);
  EXPECT_EQ(dims_create(1, 0, nullptr), Err::kOk);
  EXPECT_EQ(dims_create(2, 0, nullptr), Err::kDims);
}

TEST(DimsCreate, MatchesBruteForceOnSmallCases) {
  for (int k = 1; k <= 4; ++k)
    for (int n = 1; n <= 180; ++n) {
      std::vector<int> d(static_cast<size_t>(k), 0);
      ASSERT_EQ(dims_create(n, k, d.data()), Err::kOk);
      EXPECT_EQ(d, brute_force_dims(n, k)) << "n=" << n << " k=" << k;
    }
}

TEST(DimsCreate, LargeInputsStayFast) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<int> d(10, 0);
  ASSERT_EQ(dims_create(1 << 20, 10, d.data()), Err::kOk);
  EXPECT_EQ(d, std::vector<int>(10, 4));
  std::vector<int> e(3, 0);
  ASSERT_EQ(dims_create(720720, 3, e.data()), Err::kOk);
  EXPECT_EQ(static_cast<long long>(e[0]) * e[1] * e[2], 720720);
  EXPECT_LE(e[0] - e[2], 10);  // 720720 = 90 * 91 * 88
  std::vector<int> f(2, 0);
  ASSERT_EQ(dims_create(2147483647, 2, f.data()), Err::kOk);  // a prime
  EXPECT_EQ(f, (std::vector<int>{2147483647, 1}));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST(Cart, CoordsAndRanksAreRowMajorInverses) {
  CartTopology c = cart({3, 4, 2}, {0, 0, 0});
  EXPECT_EQ(c.size(), 24);
  EXPECT_EQ(c.coords_of(0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(c.coords_of(1), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(c.coords_of(2), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(c.coords_of(23), (std::vector<int>{2, 3, 1}));
  for (int r = 0; r < c.size(); ++r) {
    std::vector<int> x = c.coords_of(r);
    int back = -1;
    ASSERT_EQ(c.rank_of(x.data(), &back), Err::kOk);
    EXPECT_EQ(back, r);
  }
}

TEST(Cart, RankOfWrapsPeriodicDimensionsOnly) {
  CartTopology c = cart({3, 4}, {1, 0});
  int r = -1;
  int a[2] = {-1, 2};  // row -1 wraps to 2
  ASSERT_EQ(c.rank_of(a, &r), Err::kOk);
  EXPECT_EQ(r, 2 * 4 + 2);
  int b[2] = {7, 0};  // 7 mod 3 = 1
  ASSERT_EQ(c.rank_of(b, &r), Err::kOk);
  EXPECT_EQ(r, 4);
  int bad[2] = {0, 4};
  EXPECT_EQ(c.rank_of(bad, &r), Err::kArg);
  int neg[2] = {0, -1};
  EXPECT_EQ(c.rank_of(neg, &r), Err::kArg);
}

TEST(Cart, ShiftAtBordersWithoutPeriods) {
  CartTopology c = cart({4}, {0});
  int src, dst;
  ASSERT_EQ(c.shift(0, 0, 1, &src, &dst), Err::kOk);
  EXPECT_EQ(src, kRankProcNull);
  EXPECT_EQ(dst, 1);
  ASSERT_EQ(c.shift(3, 0, 1, &src, &dst), Err::kOk);
  EXPECT_EQ(src, 2);
  EXPECT_EQ(dst, kRankProcNull);
  ASSERT_EQ(c.shift(1, 0, -2, &src, &dst), Err::kOk);
  EXPECT_EQ(src, 3);
  EXPECT_EQ(dst, kRankProcNull);
  ASSERT_EQ(c.shift(2, 0, 7, &src, &dst), Err::kOk);
  EXPECT_EQ(src, kRankProcNull);
  EXPECT_EQ(dst, kRankProcNull);
  ASSERT_EQ(c.shift(2, 0, 0, &src, &dst), Err::kOk);
  EXPECT_EQ(src, 2);
  EXPECT_EQ(dst, 2);
}

TEST(Cart, ShiftWrapsWithPeriods) {
  CartTopology c = cart({4}, {1});
  int src, dst;
  ASSERT_EQ(c.shift(0, 0, 1, &src, &dst), Err::kOk);
  EXPECT_EQ(src, 3);
  EXPECT_EQ(dst, 1);
  ASSERT_EQ(c.shift(3, 0, 1, &src, &dst), Err::kOk);
  EXPECT_EQ(src, 2);
  EXPECT_EQ(dst, 0);
  ASSERT_EQ(c.shift(1, 0, 6, &src, &dst), Err::kOk);  // 6 = 4 + 2
  EXPECT_EQ(src, 3);
  EXPECT_EQ(dst, 3);
  ASSERT_EQ(c.shift(0, 0, -5, &src, &dst), Err::kOk);
  EXPECT_EQ(src, 1);
  EXPECT_EQ(dst, 3);
}

TEST(Cart, ShiftInTwoDimensionsMovesOneCoordinate) {
  CartTopology c = cart({2, 3}, {0, 1});  // ranks: (r, c) -> 3r + c
  int src, dst;
  ASSERT_EQ(c.shift(4, 1, 1, &src, &dst), Err::kOk);  // (1,1): along columns, periodic
  EXPECT_EQ(src, 3);
  EXPECT_EQ(dst, 5);
  ASSERT_EQ(c.shift(5, 1, 1, &src, &dst), Err::kOk);  // (1,2) wraps to (1,0)
  EXPECT_EQ(dst, 3);
  ASSERT_EQ(c.shift(4, 0, 1, &src, &dst), Err::kOk);  // along rows, not periodic
  EXPECT_EQ(src, 1);
  EXPECT_EQ(dst, kRankProcNull);
  EXPECT_EQ(c.shift(4, 2, 1, &src, &dst), Err::kDims);
  EXPECT_EQ(c.shift(4, -1, 1, &src, &dst), Err::kDims);
}

TEST(Cart, SubPlanColorsByDroppedAndKeysByKeptCoordinates) {
  CartTopology c = cart({2, 3, 4}, {1, 0, 1});
  const int remain[3] = {1, 0, 1};
  for (int r = 0; r < c.size(); ++r) {
    std::vector<int> x = c.coords_of(r);
    CartSubPlan p = cart_sub_plan(c, r, remain);
    EXPECT_EQ(p.color, x[1]);
    EXPECT_EQ(p.key, x[0] * 4 + x[2]);
    EXPECT_EQ(p.sub.dims, (std::vector<int>{2, 4}));
    EXPECT_EQ(p.sub.periods, (std::vector<int>{1, 1}));
  }
  const int none[3] = {0, 0, 0};
  CartSubPlan p = cart_sub_plan(c, 23, none);
  EXPECT_EQ(p.color, 23);
  EXPECT_EQ(p.key, 0);
  EXPECT_EQ(p.sub.ndims(), 0);
  EXPECT_EQ(p.sub.size(), 1);
}

TEST(Cart, MakeCartChecksDimensions) {
  CartTopology c;
  const int dims[2] = {2, 3}, periods[2] = {0, 5};
  ASSERT_EQ(make_cart(2, dims, periods, 6, &c), Err::kOk);
  EXPECT_EQ(c.periods, (std::vector<int>{0, 1}));
  EXPECT_EQ(make_cart(2, dims, periods, 5, &c), Err::kDims);  // grid larger than the group
  const int zero[2] = {2, 0};
  EXPECT_EQ(make_cart(2, zero, periods, 6, &c), Err::kDims);
  EXPECT_EQ(make_cart(-1, dims, periods, 6, &c), Err::kDims);
}

TEST(Graph, NeighboursFromIndexAndEdges) {
  // The standard's example: 0-{1,3}, 1-{0}, 2-{3}, 3-{0,2}.
  const int index[4] = {2, 3, 4, 6}, edges[6] = {1, 3, 0, 3, 0, 2};
  GraphTopology g;
  ASSERT_EQ(make_graph(4, index, edges, 4, &g), Err::kOk);
  EXPECT_EQ(g.nnodes(), 4);
  EXPECT_EQ(g.degree(0), 2);
  EXPECT_EQ(g.degree(1), 1);
  EXPECT_EQ(g.degree(3), 2);
  EXPECT_EQ(std::vector<int>(g.neighbors(3), g.neighbors(3) + 2), (std::vector<int>{0, 2}));
  EXPECT_EQ(g.neighbors(2)[0], 3);
}

TEST(Graph, InvalidArgumentsAreRejected) {
  GraphTopology g;
  const int dec[3] = {2, 1, 3}, e3[3] = {1, 2, 0};
  EXPECT_EQ(make_graph(3, dec, e3, 3, &g), Err::kArg);
  const int idx[3] = {1, 2, 3}, out_of_range[3] = {1, 2, 3};
  EXPECT_EQ(make_graph(3, idx, out_of_range, 3, &g), Err::kArg);
  EXPECT_EQ(make_graph(3, idx, e3, 2, &g), Err::kArg);  // more nodes than processes
  EXPECT_EQ(make_graph(-1, idx, e3, 2, &g), Err::kArg);
  EXPECT_EQ(make_graph(0, nullptr, nullptr, 2, &g), Err::kOk);
}
