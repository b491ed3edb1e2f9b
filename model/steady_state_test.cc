#include "model/steady_state.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

// The expected slopes below are Python's statistics.linear_regression of
// the same points (x in seconds), computed by hand as a check.

TEST(SteadyStateTest, DeviationIsTheLargestDistanceFromTheMean) {
  const SteadyStateCriterion c = *ParseSteadyStateCriterion("iops:1.5%");
  // mean 1000, largest |x - mean| 10 (1010 and 990): 1.0%.
  const SteadyWindowFigures f = CheckSteadyWindow(
      c, {1000, 1010, 990, 1005, 995}, absl::Seconds(1));
  EXPECT_EQ(f.samples, 5);
  EXPECT_DOUBLE_EQ(f.mean, 1000);
  EXPECT_DOUBLE_EQ(f.min, 990);
  EXPECT_DOUBLE_EQ(f.max, 1010);
  EXPECT_DOUBLE_EQ(f.deviation, 10);
  EXPECT_DOUBLE_EQ(f.value, 1.0);
  EXPECT_DOUBLE_EQ(f.slope, -1.5);  // linear_regression: -1.5
  EXPECT_TRUE(f.met);
  // 1% is not below 1%: fio's strict comparison.
  EXPECT_FALSE(CheckSteadyWindow(*ParseSteadyStateCriterion("iops:1%"),
                                 {1000, 1010, 990, 1005, 995},
                                 absl::Seconds(1))
                   .met);
}

TEST(SteadyStateTest, SlopeIsPerSecondWhateverTheInterval) {
  const SteadyStateCriterion c = *ParseSteadyStateCriterion("iops_slope:25");
  // Half-second samples rising 10 per sample: 20 per second.
  const SteadyWindowFigures f = CheckSteadyWindow(
      c, {100, 110, 120, 130, 140}, absl::Milliseconds(500));
  EXPECT_DOUBLE_EQ(f.slope, 20);
  EXPECT_DOUBLE_EQ(f.value, 20);
  EXPECT_TRUE(f.met);
  EXPECT_FALSE(CheckSteadyWindow(*ParseSteadyStateCriterion("iops_slope:20"),
                                 {100, 110, 120, 130, 140},
                                 absl::Milliseconds(500))
                   .met);
}

TEST(SteadyStateTest, SlopePercentIsOfTheMean) {
  // linear_regression slope 24.5714..., mean 1060: 2.318...% of the mean.
  const std::vector<double> rising = {1000, 1020, 1050, 1070, 1100, 1120};
  const SteadyWindowFigures f = CheckSteadyWindow(
      *ParseSteadyStateCriterion("bw_slope:2.5%"), rising, absl::Seconds(1));
  EXPECT_NEAR(f.slope, 24.571428571428573, 1e-9);
  EXPECT_NEAR(f.value, 2.3180592991913747, 1e-9);
  EXPECT_TRUE(f.met);
  EXPECT_FALSE(CheckSteadyWindow(*ParseSteadyStateCriterion("bw_slope:2.3%"),
                                 rising, absl::Seconds(1))
                   .met);
}

TEST(SteadyStateTest, AWindowWithoutIoIsNeverSteadyInPercent) {
  const SteadyWindowFigures f = CheckSteadyWindow(
      *ParseSteadyStateCriterion("iops:5%"), {0, 0, 0}, absl::Seconds(1));
  EXPECT_TRUE(std::isinf(f.value));
  EXPECT_FALSE(f.met);
}

TEST(SteadyStateTest, MetricsOfAPoint) {
  SeriesPoint p;
  p.length = absl::Milliseconds(500);
  p.read_ios = 300;
  p.write_ios = 100;
  p.read_bytes = 300 * 4096;
  p.write_bytes = 100 * 4096;
  LatencyHistogram h;
  h.RecordN(100'000, 396);
  h.RecordN(9'000'000, 4);
  p.latency_buckets = h.NonEmptyBuckets();
  p.latency_sum_ns = h.Sum();
  p.p99_ns = 123'456;
  EXPECT_DOUBLE_EQ(SteadyMetricValue(SteadyMetric::kIops, p), 800);
  EXPECT_DOUBLE_EQ(SteadyMetricValue(SteadyMetric::kBandwidth, p),
                   800.0 * 4096);
  EXPECT_DOUBLE_EQ(SteadyMetricValue(SteadyMetric::kLatency, p),
                   static_cast<double>(h.Sum()) / 400);
  EXPECT_DOUBLE_EQ(SteadyMetricValue(SteadyMetric::kP99, p), 123'456);
}

TEST(SteadyStateTest, ParsesEveryFioFormAndNamesItBack) {
  for (const char* text :
       {"iops:5%", "iops_slope:0.5%", "bw:10%", "bw_slope:2%", "lat:3%",
        "lat_slope:1%", "p99:10%", "p99_slope:4%", "iops:300"}) {
    absl::StatusOr<SteadyStateCriterion> c = ParseSteadyStateCriterion(text);
    ASSERT_TRUE(c.ok()) << text << ": " << c.status();
    EXPECT_EQ(SteadyStateCriterionName(*c), text);
  }
  const SteadyStateCriterion lat = *ParseSteadyStateCriterion("lat:20us");
  EXPECT_FALSE(lat.percent);
  EXPECT_DOUBLE_EQ(lat.limit, 20'000);
  const SteadyStateCriterion bw = *ParseSteadyStateCriterion("bw:64MiB");
  EXPECT_DOUBLE_EQ(bw.limit, 64.0 * 1024 * 1024);
  EXPECT_EQ(ParseSteadyStateCriterion("p99_slope:1%")->metric,
            SteadyMetric::kP99);
  EXPECT_TRUE(ParseSteadyStateCriterion("p99_slope:1%")->slope);
}

TEST(SteadyStateTest, RefusesMalformedCriteriaNamingTheField) {
  for (const char* text : {"iops", "iop:5%", "iops:0%", "iops:101%",
                           "iops:-3", "lat:fast", "iops:x%", "iops:nan"}) {
    absl::StatusOr<SteadyStateCriterion> c =
        ParseSteadyStateCriterion(text, "spec.steady_state.criterion");
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(c.status().message(),
                HasSubstr("spec.steady_state.criterion"));
  }
}

SeriesPoint PointAt(double iops) {
  SeriesPoint p;
  p.length = absl::Seconds(1);
  p.read_ios = static_cast<uint64_t>(iops);
  return p;
}

TEST(SteadyStateTest, CheckerAttainsWhenTheWindowSettlesThenWarnsOnLeaving) {
  SteadyStateSpec spec;
  spec.enabled = true;
  spec.criterion = *ParseSteadyStateCriterion("iops:5%");
  spec.window = absl::Seconds(3);
  SteadyStateChecker checker(spec, absl::Seconds(1));
  using Event = SteadyStateChecker::Event;
  // Rising, then settled at 1000 from t=4s: the window [3s,6s) of three
  // samples 1000 is the first within 5%.
  EXPECT_EQ(checker.Add(PointAt(200)), Event::kNone);
  EXPECT_EQ(checker.Add(PointAt(500)), Event::kNone);
  EXPECT_EQ(checker.Add(PointAt(900)), Event::kNone);
  EXPECT_EQ(checker.Add(PointAt(1000)), Event::kNone);
  EXPECT_EQ(checker.Add(PointAt(1000)), Event::kNone);  // 900,1000,1000
  EXPECT_EQ(checker.result().checks, 3);
  EXPECT_FALSE(checker.result().attained);
  EXPECT_EQ(checker.Add(PointAt(1010)), Event::kAttained);
  EXPECT_TRUE(checker.result().attained);
  EXPECT_EQ(checker.result().attained_at, absl::Seconds(6));
  EXPECT_NEAR(checker.result().figures.mean, 1003.33, 0.01);
  EXPECT_EQ(checker.Add(PointAt(990)), Event::kNone);
  // An SLC cache runs out: the rate halves.
  EXPECT_EQ(checker.Add(PointAt(500)), Event::kLeft);
  EXPECT_TRUE(checker.result().left);
  EXPECT_EQ(checker.result().left_at, absl::Seconds(8));
  EXPECT_THAT(checker.result().warning,
              HasSubstr("left steady state at t=8s: iops deviation"));
  EXPECT_THAT(checker.result().warning, HasSubstr(">= 5%"));
  // Still attained at 6s; the first leaving is kept.
  EXPECT_EQ(checker.Add(PointAt(100)), Event::kNone);
  EXPECT_EQ(checker.result().attained_at, absl::Seconds(6));
  EXPECT_EQ(checker.result().left_at, absl::Seconds(8));
}

TEST(SteadyStateTest, CheckerChecksOncePerCheckInterval) {
  SteadyStateSpec spec;
  spec.enabled = true;
  spec.criterion = *ParseSteadyStateCriterion("iops:5%");
  spec.window = absl::Seconds(2);
  spec.check = absl::Seconds(3);
  SteadyStateChecker checker(spec, absl::Seconds(1));
  using Event = SteadyStateChecker::Event;
  EXPECT_EQ(checker.Add(PointAt(1000)), Event::kNone);
  EXPECT_EQ(checker.Add(PointAt(1000)), Event::kNone);  // full, not checked
  EXPECT_EQ(checker.result().checks, 0);
  EXPECT_EQ(checker.Add(PointAt(1000)), Event::kAttained);  // t=3s
  EXPECT_EQ(checker.result().checks, 1);
  EXPECT_EQ(checker.result().attained_at, absl::Seconds(3));
  EXPECT_EQ(checker.result().check, absl::Seconds(3));
}

}  // namespace
}  // namespace blkperf
