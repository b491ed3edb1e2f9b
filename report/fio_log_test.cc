#include "report/fio_log.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

std::vector<uint64_t> Columns(const std::string& line) {
  std::vector<uint64_t> out;
  for (absl::string_view c : absl::StrSplit(line, ", ")) {
    uint64_t v = 0;
    EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(c), &v)) << c;
    out.push_back(v);
  }
  return out;
}

TEST(FioLogTest, AverageLineIsFiosFiveColumns) {
  EXPECT_EQ(FioAverageLine(200, 34895, 0), "200, 34895, 0, 0, 0\n");
}

TEST(FioLogTest, HistogramLineHasFiosBinsAndCountsEveryLatency) {
  LatencyHistogram h;
  h.Record(5);                          // bucket 5
  h.Record(1510);                       // fio's bin of 1512
  h.RecordN(uint64_t{1} << 40, 3);      // beyond fio's last bucket: clamped
  const std::vector<uint64_t> cols = Columns(FioHistogramLine(500, 1, h));
  ASSERT_EQ(cols.size(), 3u + kFioPlatBuckets);
  EXPECT_EQ(cols[0], 500u);
  EXPECT_EQ(cols[1], 1u);
  EXPECT_EQ(cols[2], 0u);
  EXPECT_EQ(cols[3 + 5], 1u);
  EXPECT_EQ(cols[3 + LatencyHistogram::BucketIndex(1510)], 1u);
  EXPECT_EQ(cols.back(), 3u);
  uint64_t sum = 0;
  for (size_t i = 3; i < cols.size(); ++i) sum += cols[i];
  EXPECT_EQ(sum, h.Count());
}

TEST(FioLogTest, WriterLogsTheWindowBetweenSnapshots) {
  const std::string prefix =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
      "/fio_log_test";
  FioLogSettings settings{.iops_prefix = prefix, .bw_prefix = prefix,
                          .lat_prefix = prefix, .hist_prefix = prefix};
  absl::StatusOr<FioLogWriter> w = FioLogWriter::Open(settings);
  ASSERT_TRUE(w.ok()) << w.status();
  WorkloadSnapshot a, b;
  a.elapsed = absl::Milliseconds(1000);
  b.elapsed = absl::Milliseconds(1500);
  a.total.read_ios = 100;
  a.total.read_bytes = 100 * 4096;
  b.total.read_ios = 600;  // 500 I/Os in 0.5 s
  b.total.read_bytes = 600 * 4096;
  a.total.completion_latency.RecordN(1000, 100);
  b.total.completion_latency.RecordN(1000, 100);
  b.total.completion_latency.RecordN(3000, 500);
  w->AddAverages(a, b);
  w->AddHistogram(a, b);
  ASSERT_TRUE(w->Close().ok());
  auto read = [&](const char* kind) {
    std::ifstream in(prefix + "_" + kind + ".1.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  EXPECT_EQ(read("iops"), "1500, 1000, 0, 0, 0\n");
  EXPECT_EQ(read("bw"), "1500, 4000, 0, 0, 0\n");
  EXPECT_EQ(read("clat"), "1500, 3000, 0, 0, 0\n");  // the window's mean
  const std::vector<uint64_t> hist = Columns(read("clat_hist"));
  EXPECT_EQ(hist[3 + LatencyHistogram::BucketIndex(3000)], 500u);
  EXPECT_EQ(hist[3 + LatencyHistogram::BucketIndex(1000)], 0u);
}

TEST(FioLogTest, OpenNamesAPathItCannotCreate) {
  absl::StatusOr<FioLogWriter> w =
      FioLogWriter::Open({.iops_prefix = "/nonexistent-dir/x"});
  ASSERT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(w.status().message(),
              ::testing::HasSubstr("/nonexistent-dir/x_iops.1.log"));
}

}  // namespace
}  // namespace blkperf
