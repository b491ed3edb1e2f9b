#include "model/split_strategy.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

SplitStrategy Fixed(uint64_t bytes) {
  SplitStrategy s;
  s.kind = SplitStrategy::Kind::kFixed;
  s.fixed_bytes = bytes;
  return s;
}

TEST(ParseSplitStrategyTest, ParsesNoneAndLimits) {
  absl::StatusOr<SplitStrategy> none = ParseSplitStrategy("none");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->kind, SplitStrategy::Kind::kNone);
  EXPECT_EQ(none->fixed_bytes, 0u);

  absl::StatusOr<SplitStrategy> limits = ParseSplitStrategy("limits");
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(limits->kind, SplitStrategy::Kind::kLimits);
  EXPECT_EQ(limits->fixed_bytes, 0u);
}

TEST(ParseSplitStrategyTest, ParsesFixedWithBinarySuffixes) {
  const struct {
    const char* text;
    uint64_t bytes;
  } kCases[] = {
      {"fixed:512", 512},
      {"fixed:4096", 4096},
      {"fixed:1k", 1024},
      {"fixed:128k", 128 * 1024},
      {"fixed:128K", 128 * 1024},
      {"fixed:1m", 1 << 20},
      {"fixed:3M", 3 << 20},
      {"fixed:1g", uint64_t{1} << 30},
      {"fixed:2G", uint64_t{2} << 30},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<SplitStrategy> s = ParseSplitStrategy(c.text);
    ASSERT_TRUE(s.ok()) << c.text << ": " << s.status();
    EXPECT_EQ(*s, Fixed(c.bytes)) << c.text;
  }
}

TEST(ParseSplitStrategyTest, NameRoundTrips) {
  EXPECT_EQ(SplitStrategyName(SplitStrategy{}), "none");
  SplitStrategy limits;
  limits.kind = SplitStrategy::Kind::kLimits;
  EXPECT_EQ(SplitStrategyName(limits), "limits");
  EXPECT_EQ(SplitStrategyName(Fixed(128 * 1024)), "fixed:131072");

  for (const char* text :
       {"none", "limits", "fixed:512", "fixed:128k", "fixed:1m", "fixed:4g"}) {
    absl::StatusOr<SplitStrategy> s = ParseSplitStrategy(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status();
    absl::StatusOr<SplitStrategy> again =
        ParseSplitStrategy(SplitStrategyName(*s));
    ASSERT_TRUE(again.ok()) << SplitStrategyName(*s) << ": " << again.status();
    EXPECT_EQ(*again, *s) << text;
  }
}

TEST(ParseSplitStrategyTest, NotAMultipleOf512NamesFieldTextAndSize) {
  absl::StatusOr<SplitStrategy> s = ParseSplitStrategy("fixed:1000");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(),
            "split \"fixed:1000\" : size 1000 is not a multiple of 512");
}

TEST(ParseSplitStrategyTest, UsesTheGivenFieldName) {
  absl::StatusOr<SplitStrategy> s =
      ParseSplitStrategy("fixed:1000", "spec.ab_strategies[1]");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()),
              StartsWith("spec.ab_strategies[1] \"fixed:1000\""));
}

TEST(ParseSplitStrategyTest, RejectsMalformedText) {
  const struct {
    const char* text;
    const char* problem;
  } kCases[] = {
      {"", "expected none, limits or fixed"},
      {"None", "expected none, limits or fixed"},
      {"limit", "expected none, limits or fixed"},
      {"fixed", "expected none, limits or fixed"},
      {" none", "expected none, limits or fixed"},
      {"fixed:", "missing size"},
      {"fixed:k", "missing size"},
      {"fixed:0", "greater than 0"},
      {"fixed:0k", "greater than 0"},
      {"fixed:-512", "decimal number"},
      {"fixed:+512", "decimal number"},
      {"fixed: 512", "decimal number"},
      {"fixed:512 ", "decimal number"},
      {"fixed:1.5k", "decimal number"},
      {"fixed:4kb", "decimal number"},
      {"fixed:4t", "decimal number"},
      {"fixed:0x200", "decimal number"},
      {"fixed:1000", "size 1000 is not a multiple of 512"},
      {"fixed:100", "size 100 is not a multiple of 512"},
      {"fixed:99999999999999999999999", "too large"},
      {"fixed:18446744073709551615", "not a multiple of 512"},
      {"fixed:18014398509481984k", "too large"},  // 2^54 KiB = 2^64 bytes
      {"fixed:17179869184g", "too large"},        // 2^34 GiB = 2^64 bytes
  };
  for (const auto& c : kCases) {
    absl::StatusOr<SplitStrategy> s = ParseSplitStrategy(c.text);
    ASSERT_FALSE(s.ok()) << "\"" << c.text << "\" parsed";
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    const std::string message(s.status().message());
    EXPECT_THAT(message, StartsWith("split \"")) << c.text;
    EXPECT_THAT(message, HasSubstr(c.problem)) << c.text;
  }
}

TEST(ParseSplitStrategyTest, QuotesTheTextEscaped) {
  absl::StatusOr<SplitStrategy> s = ParseSplitStrategy("fix\"ed\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              StartsWith("split \"fix\\\"ed\\n\" : "));
}

TEST(ParseSplitStrategyTest, LargestSizesThatFit) {
  absl::StatusOr<SplitStrategy> s = ParseSplitStrategy("fixed:16777215g");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->fixed_bytes, uint64_t{16777215} << 30);
}

}  // namespace
}  // namespace blkperf
