#include "model/percentile_interval.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(PercentileRanksTest, MedianOfHundredIsTheClassicFortyToSixtyOne) {
  const RankInterval r = PercentileRanks(100, 50, 0.95);
  EXPECT_EQ(r.lower, 40u);
  EXPECT_EQ(r.upper, 61u);
}

TEST(PercentileRanksTest, P99OfHundredHasNoUpperBound) {
  // Failures F = 100 - B ~ Bin(100, 0.01): P(F >= 4) = 0.018, P(F >= 3) =
  // 0.079; P(B = 100) = 0.366 > 0.025.
  const RankInterval r = PercentileRanks(100, 99, 0.95);
  EXPECT_EQ(r.lower, 97u);
  EXPECT_EQ(r.upper, 101u);
}

TEST(PercentileRanksTest, CoversTheTruePercentileAtItsConfidence) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> latency(1.0);
  const double true_p99 = -std::log(0.01);
  int covered = 0;
  const int trials = 2000;
  const uint64_t n = 2000;
  const RankInterval r = PercentileRanks(n, 99, 0.95);
  ASSERT_GE(r.lower, 1u);
  ASSERT_LE(r.upper, n);
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x(n);
    for (double& v : x) v = latency(rng);
    std::sort(x.begin(), x.end());
    if (x[r.lower - 1] <= true_p99 && true_p99 <= x[r.upper - 1]) ++covered;
  }
  EXPECT_GE(covered, 0.94 * trials);
  EXPECT_LE(covered, 0.985 * trials);  // not a trivially wide interval
}

TEST(PercentileIntervalTest, FromAHistogramWithItsTailCount) {
  LatencyHistogram h;
  for (int i = 1; i <= 10000; ++i) h.Record(static_cast<uint64_t>(i) * 1000);
  const PercentileInterval ci = PercentileIntervalOf(h, 99, 0.95);
  EXPECT_EQ(ci.samples, 10000u);
  EXPECT_EQ(ci.tail_samples, 100u);
  EXPECT_TRUE(ci.bounded_above);
  EXPECT_LE(ci.low_ns, h.Percentile(99));
  EXPECT_GE(ci.high_ns, h.Percentile(99));
  // Ranks about 9880 and 9920 (+-2 sd of Bin(10000, 0.99)), within buckets.
  EXPECT_NEAR(static_cast<double>(ci.low_ns), 9.88e6, 0.03 * 9.88e6);
  EXPECT_NEAR(static_cast<double>(ci.high_ns), 9.92e6, 0.03 * 9.92e6);
}

TEST(PercentileIntervalTest, FewSamplesAreOpenAbove) {
  LatencyHistogram h;
  for (int i = 1; i <= 50; ++i) h.Record(static_cast<uint64_t>(i) * 1000);
  const PercentileInterval ci = PercentileIntervalOf(h, 99, 0.95);
  EXPECT_FALSE(ci.bounded_above);
  EXPECT_EQ(ci.tail_samples, 0u);
}

}  // namespace
}  // namespace blkperf
