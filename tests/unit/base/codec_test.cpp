#include <gtest/gtest.h>

#include "base/codec.hpp"

using namespace ftmpi;

TEST(Codec, RoundTripsEveryFieldType) {
  Encoder e;
  e.u8(0xab);
  e.u16(0xbeef);
  e.u32(0xdeadbeef);
  e.u64(0x0123456789abcdefull);
  e.i32(-42);
  e.i64(-1234567890123ll);
  e.f64(3.25);
  e.str("hello");
  e.bytes("\0\1\2", 3);
  Decoder d(e.buffer());
  EXPECT_EQ(d.u8(), 0xab);
  EXPECT_EQ(d.u16(), 0xbeef);
  EXPECT_EQ(d.u32(), 0xdeadbeefu);
  EXPECT_EQ(d.u64(), 0x0123456789abcdefull);
  EXPECT_EQ(d.i32(), -42);
  EXPECT_EQ(d.i64(), -1234567890123ll);
  EXPECT_EQ(d.f64(), 3.25);
  EXPECT_EQ(d.str(), "hello");
  EXPECT_EQ(d.bytes(), (std::vector<uint8_t>{0, 1, 2}));
  EXPECT_TRUE(d.done());
}

TEST(Codec, LittleEndianOnTheWire) {
  Encoder e;
  e.u32(0x01020304);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e.buffer()[0], 4);
  EXPECT_EQ(e.buffer()[3], 1);
}

TEST(Codec, ShortInputFailsStickyWithoutReadingPast) {
  uint8_t two[2] = {1, 2};
  Decoder d(two, 2);
  EXPECT_EQ(d.u32(), 0u);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.u8(), 0);  // still failed
  EXPECT_EQ(d.remaining(), 0u);
}

TEST(Codec, StringLengthBeyondInputOrLimitFails) {
  Encoder e;
  e.u32(1000);  // claims 1000 bytes, has 3
  e.raw("abc", 3);
  Decoder d(e.buffer());
  EXPECT_EQ(d.str(), "");
  EXPECT_FALSE(d.ok());
  Encoder e2;
  e2.str(std::string(100, 'x'));
  Decoder d2(e2.buffer());
  EXPECT_EQ(d2.str(10), "");  // over the caller's limit
  EXPECT_FALSE(d2.ok());
}
