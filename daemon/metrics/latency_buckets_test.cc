#include "daemon/metrics/latency_buckets.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(LatencyBucketsTest, BoundsAreEngineBoundsLogSpacedFrom1usTo10s) {
  const absl::Span<const uint64_t> bounds = LatencyBucketBoundsNs();
  ASSERT_EQ(bounds.size(), 29u);  // 7 decades x 4 + 1
  EXPECT_EQ(bounds.front(), 1000u);
  EXPECT_NEAR(static_cast<double>(bounds.back()), 1e10, 1e10 * 0.01);
  for (size_t i = 0; i < bounds.size(); ++i) {
    const uint64_t b = bounds[i];
    EXPECT_EQ(
        LatencyHistogram::BucketLowerBound(LatencyHistogram::BucketIndex(b)), b)
        << "bound " << i << " = " << b << " ns is not an engine bucket bound";
    const double wanted = 1e3 * std::pow(10.0, i / 4.0);
    EXPECT_NEAR(static_cast<double>(b), wanted, wanted / 64) << i;
    if (i > 0) {
      EXPECT_GT(b, bounds[i - 1]);
    }
  }
}

TEST(LatencyBucketsTest, EmptyHistogramHasZeroBuckets) {
  const prometheus::ClientMetric::Histogram h =
      ToPrometheusHistogram(LatencyHistogram());
  ASSERT_EQ(h.bucket.size(), LatencyBucketBoundsNs().size() + 1);
  for (const auto& b : h.bucket) EXPECT_EQ(b.cumulative_count, 0u);
  EXPECT_EQ(h.sample_count, 0u);
  EXPECT_EQ(h.sample_sum, 0.0);
  EXPECT_TRUE(std::isinf(h.bucket.back().upper_bound));
}

TEST(LatencyBucketsTest, ValuesAtBoundsFallInTheNextBucket) {
  // A bucket counts the values below its bound: 999 ns is under 1 µs, 1000
  // ns is not.
  LatencyHistogram h;
  h.Record(999);
  h.Record(1000);
  h.Record(1775);  // below the second bound, 1776
  h.Record(1776);
  h.Record(50'000'000'000);  // 50 s: only +Inf
  const prometheus::ClientMetric::Histogram p = ToPrometheusHistogram(h);
  EXPECT_EQ(LatencyBucketBoundsNs()[1], 1776u);
  EXPECT_DOUBLE_EQ(p.bucket[0].upper_bound, 1e-6);
  EXPECT_EQ(p.bucket[0].cumulative_count, 1u);
  EXPECT_DOUBLE_EQ(p.bucket[1].upper_bound, 1.776e-6);
  EXPECT_EQ(p.bucket[1].cumulative_count, 3u);
  EXPECT_EQ(p.bucket[2].cumulative_count, 4u);
  EXPECT_EQ(p.bucket[p.bucket.size() - 2].cumulative_count, 4u);
  EXPECT_EQ(p.bucket.back().cumulative_count, 5u);
  EXPECT_EQ(p.sample_count, 5u);
  EXPECT_DOUBLE_EQ(p.sample_sum, (999 + 1000 + 1775 + 1776 + 50e9) / 1e9);
}

TEST(LatencyBucketsTest, CumulativeCountsMatchRawValuesExactly) {
  std::mt19937_64 rng(42);
  // Log-uniform latencies from 100 ns to 100 s.
  std::uniform_real_distribution<double> exponent(2.0, 11.0);
  std::vector<uint64_t> values;
  LatencyHistogram h;
  for (int i = 0; i < 100'000; ++i) {
    const uint64_t v = static_cast<uint64_t>(std::pow(10.0, exponent(rng)));
    values.push_back(v);
    h.Record(v);
  }
  const prometheus::ClientMetric::Histogram p = ToPrometheusHistogram(h);
  const absl::Span<const uint64_t> bounds = LatencyBucketBoundsNs();
  uint64_t previous = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    uint64_t below = 0;
    for (uint64_t v : values) below += v < bounds[i] ? 1 : 0;
    EXPECT_EQ(p.bucket[i].cumulative_count, below) << "le " << bounds[i];
    EXPECT_GE(p.bucket[i].cumulative_count, previous);
    previous = p.bucket[i].cumulative_count;
  }
  EXPECT_EQ(p.bucket.back().cumulative_count, values.size());
  EXPECT_EQ(p.sample_count, values.size());
  EXPECT_EQ(p.sample_count, h.Count());
  EXPECT_DOUBLE_EQ(p.sample_sum, static_cast<double>(h.Sum()) / 1e9);
}

}  // namespace
}  // namespace blkperf
