#include <gtest/gtest.h>

#include "base/err.hpp"
#include "modules/logging/determinant.hpp"

namespace ftmpi::logging {
namespace {

std::vector<Determinant> sample() {
  std::vector<Determinant> v(8);
  v[0].kind = DetKind::kMatch, v[0].index = 0, v[0].slot = 3, v[0].seq = 17;
  v[1].kind = DetKind::kPolls, v[1].index = 5, v[1].count = 12;
  v[2].kind = DetKind::kCompletion, v[2].index = 1, v[2].which = {4, 0, 2};
  v[3].kind = DetKind::kWtime, v[3].index = 2, v[3].value = 1234.5678901;
  v[4].kind = DetKind::kWtick, v[4].index = 0, v[4].value = 1e-9;
  v[5].kind = DetKind::kCancel, v[5].index = 9, v[5].flag = true;
  v[6].kind = DetKind::kWithdrawn, v[6].index = 1, v[6].slot = 2, v[6].seq = 40;
  v[7].kind = DetKind::kRound, v[7].index = 4, v[7].count = 11, v[7].slot = 2, v[7].seq = 1ull << 40;
  return v;
}

TEST(Determinants, BatchesRoundTripConcatenated) {
  auto v = sample();
  std::vector<uint8_t> bytes;
  encode_batch(v, bytes);
  std::vector<Determinant> second(v.begin(), v.begin() + 2);
  encode_batch(second, bytes);
  encode_batch({}, bytes);
  std::vector<Determinant> out;
  ASSERT_EQ(decode_batches(bytes.data(), bytes.size(), out), Err::kOk);
  ASSERT_EQ(out.size(), 10u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], v[i]) << describe(out[i]);
  EXPECT_EQ(out[8], v[0]);
  EXPECT_EQ(out[9], v[1]);
}

// The batch layout of spec/transparent-mode.md §3, byte for byte: what a
// restarted process fetches was written by the dead incarnation's encoder.
TEST(Determinants, BatchBytesFollowTheSpec) {
  std::vector<Determinant> v(3);
  v[0].kind = DetKind::kMatch, v[0].index = 0x0102, v[0].slot = -2, v[0].seq = 0x0a0b;
  v[1].kind = DetKind::kCompletion, v[1].index = 7, v[1].which = {5};
  v[2].kind = DetKind::kCancel, v[2].index = 1, v[2].flag = true;
  std::vector<uint8_t> bytes{0xee};  // appended after what is there
  encode_batch(v, bytes);
  const std::vector<uint8_t> want{
      0xee, 'D', 'T', 1, 0, 3, 0, 0, 0, 21 + 17 + 10, 0, 0, 0,                 // header
      1, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff,               // match #0x102, slot -2
      0x0b, 0x0a, 0, 0, 0, 0, 0, 0,                                          // seq 0x0a0b
      3, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0,                     // completion #7: {5}
      6, 1, 0, 0, 0, 0, 0, 0, 0, 1};                                         // cancel #1: cancelled
  EXPECT_EQ(bytes, want);
}

TEST(Determinants, MalformedInputIsRefusedWhole) {
  auto v = sample();
  std::vector<uint8_t> bytes;
  encode_batch(v, bytes);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    std::vector<Determinant> out;
    EXPECT_EQ(decode_batches(bytes.data(), cut, out), Err::kIntern) << cut;
    EXPECT_TRUE(out.empty());
  }
  auto bad = bytes;
  bad[0] = 'X';
  std::vector<Determinant> out;
  EXPECT_EQ(decode_batches(bad.data(), bad.size(), out), Err::kIntern);
  bad = bytes;
  bad[12] = 99;  // first record's kind
  EXPECT_EQ(decode_batches(bad.data(), bad.size(), out), Err::kIntern);
  EXPECT_EQ(decode_batches(nullptr, 0, out), Err::kOk);
  EXPECT_TRUE(out.empty());
}

TEST(Determinants, DescribeNamesTheEvent) {
  auto v = sample();
  EXPECT_EQ(describe(v[0]), "match #0: slot 3 seq 17");
  EXPECT_EQ(describe(v[1]), "polls #5..16 failed");
  EXPECT_EQ(describe(v[5]), "cancel #9: cancelled");
  EXPECT_EQ(describe(v[6]), "withdrawn #1: slot 2 seq 40");
}

}  // namespace
}  // namespace ftmpi::logging
