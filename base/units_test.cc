#include "base/units.h"

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(ParseSizeTest, AcceptsSuffixes) {
  uint64_t v = 0;
  ASSERT_TRUE(ParseSize("4096", &v));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(ParseSize("4k", &v));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(ParseSize("128KiB", &v));
  EXPECT_EQ(v, 131072u);
  ASSERT_TRUE(ParseSize("1M", &v));
  EXPECT_EQ(v, 1u << 20);
  ASSERT_TRUE(ParseSize("2g", &v));
  EXPECT_EQ(v, 2ull << 30);
}

TEST(ParseSizeTest, RejectsNonsense) {
  uint64_t v = 0;
  EXPECT_FALSE(ParseSize("", &v));
  EXPECT_FALSE(ParseSize("k", &v));
  EXPECT_FALSE(ParseSize("4x", &v));
  EXPECT_FALSE(ParseSize("-4k", &v));
  EXPECT_FALSE(ParseSize("99999999999999999999", &v));
  EXPECT_FALSE(ParseSize("20000000000000t", &v));
}

TEST(FormatTest, PicksReadableUnits) {
  EXPECT_EQ(FormatBytes(512), "512B");
  EXPECT_EQ(FormatBytes(1536), "1.50KiB");
  EXPECT_EQ(FormatCount(251234), "251.2k");
  EXPECT_EQ(FormatCount(1.5e6), "1.50M");
  EXPECT_EQ(FormatNanos(812), "812ns");
  EXPECT_EQ(FormatNanos(12345), "12.3us");
  EXPECT_EQ(FormatNanos(4.1e6), "4.10ms");
}

}  // namespace
}  // namespace blkperf
