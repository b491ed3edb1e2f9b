#include "cli/output_format.h"

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::string, output_format);
ABSL_DECLARE_FLAG(std::string, percentile_list);

namespace blkperf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(OutputFormatTest, ParsesEveryNameBack) {
  for (OutputFormat f : {OutputFormat::kText, OutputFormat::kJson,
                         OutputFormat::kFioJson, OutputFormat::kFioJsonPlus}) {
    absl::StatusOr<OutputFormat> parsed = ParseOutputFormat(OutputFormatName(f));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, f);
  }
  absl::StatusOr<OutputFormat> bad = ParseOutputFormat("xml");
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("--output_format 'xml'"));
}

TEST(OutputFormatTest, JsonFlagIsASynonymAndConflictsWithOthers) {
  absl::SetFlag(&FLAGS_output_format, "");
  EXPECT_EQ(*OutputFormatFromFlags(false), OutputFormat::kText);
  EXPECT_EQ(*OutputFormatFromFlags(true), OutputFormat::kJson);
  absl::SetFlag(&FLAGS_output_format, "fio-json+");
  EXPECT_EQ(*OutputFormatFromFlags(false), OutputFormat::kFioJsonPlus);
  absl::StatusOr<OutputFormat> both = OutputFormatFromFlags(true);
  ASSERT_EQ(both.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(both.status().message(), HasSubstr("--json conflicts"));
  absl::SetFlag(&FLAGS_output_format, "");
}

TEST(OutputFormatTest, PercentileListIsFiosSyntaxSorted) {
  EXPECT_THAT(*ParsePercentileList("99.9:25:75"), ElementsAre(25, 75, 99.9));
  EXPECT_THAT(*ParsePercentileList("50,99"), ElementsAre(50, 99));
  for (const char* bad : {"", "0", "101", "x", "50:abc"}) {
    absl::StatusOr<std::vector<double>> list = ParsePercentileList(bad);
    ASSERT_EQ(list.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(list.status().message(), HasSubstr("percentile_list")) << bad;
  }
  std::string many;
  for (int i = 1; i <= 21; ++i) many += std::to_string(i) + ":";
  EXPECT_THAT(ParsePercentileList(many).status().message(),
              HasSubstr("at most 20"));
}

TEST(OutputFormatTest, DefaultPercentilesAreFios) {
  absl::SetFlag(&FLAGS_percentile_list, "");
  std::vector<double> list = *PercentileListFromFlags();
  ASSERT_EQ(list.size(), 17u);
  EXPECT_EQ(list.front(), 1);
  EXPECT_EQ(list[12], 99);
  EXPECT_EQ(list.back(), 99.99);
}

}  // namespace
}  // namespace blkperf
