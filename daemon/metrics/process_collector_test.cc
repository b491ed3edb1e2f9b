#include "daemon/metrics/process_collector.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

// A real /proc/pid/stat line whose command name holds ") (" and spaces.
constexpr char kStat[] =
    "4242 (blk) (perf d) S 1 4242 4242 0 -1 4194560 1234 0 0 0 "
    "250 125 0 0 20 0 7 0 1000 1052672000 2048 18446744073709551615 1 1 0 0 "
    "0 0 0 0 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0";

TEST(ProcessCollectorTest, ParsesStatFieldsIntoBaseUnits) {
  const absl::StatusOr<ProcessStat> stat = ParseProcessStat(kStat, 100, 4096);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_DOUBLE_EQ(stat->user_cpu_seconds, 2.5);
  EXPECT_DOUBLE_EQ(stat->system_cpu_seconds, 1.25);
  EXPECT_EQ(stat->threads, 7);
  EXPECT_DOUBLE_EQ(stat->start_seconds_after_boot, 10.0);
  EXPECT_EQ(stat->virtual_memory_bytes, 1052672000u);
  EXPECT_EQ(stat->resident_memory_bytes, 2048u * 4096u);
}

TEST(ProcessCollectorTest, MalformedStatNamesTheField) {
  absl::StatusOr<ProcessStat> stat =
      ParseProcessStat("4242 blk S 1", 100, 4096);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  stat = ParseProcessStat("4242 (blk) S 1 2 3", 100, 4096);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("field 14"));
}

TEST(ProcessCollectorTest, ParsesBootTime) {
  EXPECT_EQ(*ParseBootTime("cpu 1 2 3\nbtime 1700000000\nprocesses 9\n"),
            1700000000);
  EXPECT_EQ(ParseBootTime("cpu 1 2 3\n").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ProcessCollectorTest, CollectsThisProcess) {
  const std::vector<prometheus::MetricFamily> families =
      ProcessCollector("1.2.3").Collect();
  bool build = false, rss = false, cpu = false, start = false;
  for (const auto& f : families) {
    if (f.name == "blkperf_build_info") {
      build = true;
      ASSERT_EQ(f.metric.size(), 1u);
      EXPECT_EQ(f.metric[0].label[0].name, "version");
      EXPECT_EQ(f.metric[0].label[0].value, "1.2.3");
      EXPECT_EQ(f.metric[0].gauge.value, 1.0);
    } else if (f.name == "blkperf_process_resident_memory_bytes") {
      rss = true;
      EXPECT_GT(f.metric[0].gauge.value, 1 << 20);
    } else if (f.name == "blkperf_process_cpu_seconds_total") {
      cpu = true;
      EXPECT_EQ(f.metric.size(), 2u);
    } else if (f.name == "blkperf_process_start_time_seconds") {
      start = true;
      EXPECT_GT(f.metric[0].gauge.value, 1.5e9);
    }
  }
  EXPECT_TRUE(build && rss && cpu && start);
}

}  // namespace
}  // namespace blkperf
