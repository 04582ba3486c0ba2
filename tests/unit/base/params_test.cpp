#include <gtest/gtest.h>
#include <stdlib.h>

#include "base/params.hpp"

using namespace ftmpi::params;

TEST(Params, SizesWithSuffixes) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_size("64k", v));
  EXPECT_EQ(v, 65536u);
  EXPECT_TRUE(parse_size("2M", v));
  EXPECT_EQ(v, 2u << 20);
  EXPECT_TRUE(parse_size("1gb", v));
  EXPECT_EQ(v, 1u << 30);
  EXPECT_TRUE(parse_size("123", v));
  EXPECT_EQ(v, 123u);
  EXPECT_FALSE(parse_size("12q", v));
  EXPECT_FALSE(parse_size("", v));
}

TEST(Params, EnvironmentWithDefaults) {
  setenv("FTMPI_TEST_INT", "0x10", 1);
  setenv("FTMPI_TEST_BAD", "12abc", 1);
  setenv("FTMPI_TEST_BOOL", "off", 1);
  EXPECT_EQ(get_int("FTMPI_TEST_INT", 3), 16);
  EXPECT_EQ(get_int("FTMPI_TEST_BAD", 3), 3);
  EXPECT_EQ(get_int("FTMPI_TEST_UNSET_XYZ", 7), 7);
  EXPECT_FALSE(get_bool("FTMPI_TEST_BOOL", true));
  EXPECT_TRUE(get_bool("FTMPI_TEST_UNSET_XYZ", true));
}
