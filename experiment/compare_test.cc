#include "experiment/compare.h"

#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

std::string Report(const std::string& spec, double iops,
                   const std::string& extra = "") {
  return "{\"spec\":\"" + spec + "\",\"total\":{\"iops\":" +
         std::to_string(iops) + "},\"elapsed_seconds\":10" + extra + "}";
}

TEST(ParseRunReportTest, ReadsSpecIopsEnvironmentAndSeries) {
  absl::StatusOr<RunReport> r = ParseRunReport(
      Report("randread qd=32", 1000,
             ",\"environment\":{\"kernel_release\":\"6.1\",\"targets\":[{"
             "\"scheduler\":\"none\"}]},\"series\":[{\"iops\":990},{\"iops\":"
             "1010},{\"iops\":0}]"),
      "a.json");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec, "randread qd=32");
  EXPECT_EQ(r->iops, 1000);
  EXPECT_EQ(r->environment.at("kernel_release"), "6.1");
  EXPECT_EQ(r->environment.at("targets.0.scheduler"), "none");
  EXPECT_EQ(r->series_iops, (std::vector<double>{990, 1010}));
}

TEST(ParseRunReportTest, RefusesWhatIsNotAReportNamingTheFile) {
  for (const char* bad : {"", "[1]", "{\"spec\":\"x\"}", "{\"total\":{\"iops\":1}}"}) {
    absl::StatusOr<RunReport> r = ParseRunReport(bad, "b.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("b.json"), std::string::npos);
  }
}

TEST(SpecDifferencesTest, ChangedAddedAndRemovedTokens) {
  EXPECT_EQ(SpecDifferences("randread qd=32 direct", "randread qd=64 buffered"),
            (std::vector<std::string>{"buffered: only in B", "direct: only in A",
                                      "qd: 32 -> 64"}));
  EXPECT_TRUE(SpecDifferences("a=1 b", "b a=1").empty());
}

TEST(CompareTextTest, WithoutSeriesNoIntervalAndAWarning) {
  const RunReport a = *ParseRunReport(Report("randread qd=32", 1000), "a.json");
  const RunReport b = *ParseRunReport(Report("randread qd=64", 1200), "b.json");
  const std::string text = CompareText(a, b, 0.02, 0.95);
  EXPECT_NE(text.find("spec differences: qd: 32 -> 64"), std::string::npos) << text;
  EXPECT_NE(text.find("ratio B/A 1.200: no interval and no verdict"), std::string::npos) << text;
  EXPECT_NE(text.find("no series[]"), std::string::npos);
  EXPECT_NE(text.find("environment differences: unknown (neither report"), std::string::npos);
  EXPECT_NE(text.find("WARNING: A and B ran one after the other"), std::string::npos);
  EXPECT_EQ(text.find("faster"), std::string::npos);
  // The spec comes first.
  EXPECT_LT(text.find("spec differences"), text.find("IOPS:"));
}

TEST(CompareTextTest, WithSeriesAnIntervalAndAVerdict) {
  std::string sa = ",\"environment\":{\"kernel_release\":\"6.1\"},\"series\":[",
              sb = ",\"environment\":{\"kernel_release\":\"6.2\"},\"series\":[";
  for (int i = 0; i < 10; ++i) {
    sa += (i ? "," : "") + std::string("{\"iops\":") + std::to_string(1000 + (i % 3)) + "}";
    sb += (i ? "," : "") + std::string("{\"iops\":") + std::to_string(1200 + (i % 2)) + "}";
  }
  const RunReport a = *ParseRunReport(Report("randread", 1001, sa + "]"), "a.json");
  const RunReport b = *ParseRunReport(Report("randread", 1200, sb + "]"), "b.json");
  const std::string text = CompareText(a, b, 0.02, 0.95);
  EXPECT_NE(text.find("spec differences: none"), std::string::npos) << text;
  EXPECT_NE(text.find("environment differences: kernel_release: 6.1 -> 6.2"), std::string::npos) << text;
  EXPECT_NE(text.find("(10 intervals)"), std::string::npos) << text;
  EXPECT_NE(text.find("faster against a 2% margin"), std::string::npos) << text;
  EXPECT_NE(text.find("SUSPECT:"), std::string::npos);
}

}  // namespace
}  // namespace blkperf
