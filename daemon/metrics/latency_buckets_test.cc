#include "daemon/metrics/latency_buckets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <iostream>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(LatencyBucketsTest, BoundsAreEngineEdgesAtOrBelowR20From1usTo10s) {
  const absl::Span<const LatencyBucketBound> bounds = LatencyBucketBounds();
  ASSERT_EQ(bounds.size(), 141u);  // 7 decades x 20 + 1
  ASSERT_EQ(LatencyBucketBoundsNs().size(), bounds.size());
  EXPECT_EQ(bounds.front().nominal_ns, 1000u);
  EXPECT_EQ(bounds.back().nominal_ns, 10'000'000'000u);
  for (size_t i = 0; i < bounds.size(); ++i) {
    const uint64_t edge = bounds[i].edge_ns;
    const uint64_t nominal = bounds[i].nominal_ns;
    EXPECT_EQ(LatencyBucketBoundsNs()[i], edge);
    EXPECT_EQ(LatencyHistogram::BucketLowerBound(
                  LatencyHistogram::BucketIndex(edge)),
              edge)
        << "bound " << i << " = " << edge << " ns is not an engine edge";
    // The largest edge at or below the nominal bound.
    EXPECT_LE(edge, nominal);
    EXPECT_GT(LatencyHistogram::BucketUpperBound(
                  LatencyHistogram::BucketIndex(edge)),
              nominal - 1)
        << "edge " << edge << " is not the last one at or below " << nominal;
    if (i > 0) {
      EXPECT_GT(edge, bounds[i - 1].edge_ns);
      // Neighbours at most 16 % apart (R20 has 1.4 then 1.6): the resolution quantiles rest on.
      EXPECT_LE(static_cast<double>(edge),
                1.16 * static_cast<double>(bounds[i - 1].edge_ns))
          << i;
    }
  }
}

TEST(LatencyBucketsTest, UsualSloBoundsHaveTheirEdges) {
  const std::pair<uint64_t, uint64_t> wanted[] = {
      // nominal ns, engine edge ns (fio's layout: 64 buckets per octave)
      {1'000, 1'000},          {10'000, 9'984},
      {100'000, 99'328},       {250'000, 249'856},
      {500'000, 499'712},      {1'000'000, 999'424},
      {2'000'000, 1'998'848},  {2'500'000, 2'490'368},
      {5'000'000, 4'980'736},  {10'000'000, 9'961'472},
      {100'000'000, 99'614'720}, {1'000'000'000, 998'244'352},
  };
  for (const auto& [nominal, edge] : wanted) {
    bool found = false;
    for (const LatencyBucketBound& b : LatencyBucketBounds()) {
      if (b.nominal_ns != nominal) continue;
      found = true;
      EXPECT_EQ(b.edge_ns, edge) << nominal;
    }
    EXPECT_TRUE(found) << nominal << " ns has no bucket";
  }
}

// Prometheus' histogram_quantile: linear interpolation inside the bucket
// holding rank q * count, the first bucket starting at 0.
double PromQuantile(double q, const prometheus::ClientMetric::Histogram& h) {
  const double rank = q * static_cast<double>(h.sample_count);
  double lower = 0;
  double below = 0;
  for (const auto& b : h.bucket) {
    const double count = static_cast<double>(b.cumulative_count);
    if (count >= rank) {
      if (std::isinf(b.upper_bound)) return lower;
      return lower + (b.upper_bound - lower) * (rank - below) / (count - below);
    }
    lower = b.upper_bound;
    below = count;
  }
  return lower;
}

TEST(LatencyBucketsTest, HistogramQuantileWithinAFewPercentOfTheExact) {
  // Log-normal latencies around 10 µs, 100 µs and 1 ms (sigma 0.5 and 1):
  // shapes of NVMe, SATA SSD and loaded disk I/O.
  std::mt19937_64 rng(7);
  double worst = 0;
  for (const double median_ns : {10e3, 100e3, 1e6}) {
    for (const double sigma : {0.5, 1.0}) {
      std::lognormal_distribution<double> dist(std::log(median_ns), sigma);
      std::vector<uint64_t> values;
      LatencyHistogram h;
      for (int i = 0; i < 200'000; ++i) {
        values.push_back(static_cast<uint64_t>(dist(rng)));
        h.Record(values.back());
      }
      std::sort(values.begin(), values.end());
      const prometheus::ClientMetric::Histogram p = ToPrometheusHistogram(h);
      for (const double q : {0.5, 0.9, 0.99, 0.999}) {
        const double exact =
            static_cast<double>(values[static_cast<size_t>(
                std::ceil(q * static_cast<double>(values.size()))) - 1]) /
            1e9;
        const double error = std::abs(PromQuantile(q, p) / exact - 1);
        worst = std::max(worst, error);
        EXPECT_LT(error, 0.03) << "median " << median_ns << " ns, sigma "
                               << sigma << ", q " << q;
      }
    }
  }
  std::cout << "worst histogram_quantile error: " << worst * 100 << " %\n";
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
  h.Record(1119);  // below the second bound, 1120
  h.Record(1120);
  h.Record(50'000'000'000);  // 50 s: only +Inf
  const prometheus::ClientMetric::Histogram p = ToPrometheusHistogram(h);
  EXPECT_EQ(LatencyBucketBoundsNs()[1], 1120u);
  EXPECT_DOUBLE_EQ(p.bucket[0].upper_bound, 1e-6);
  EXPECT_EQ(p.bucket[0].cumulative_count, 1u);
  EXPECT_DOUBLE_EQ(p.bucket[1].upper_bound, 1.12e-6);
  EXPECT_EQ(p.bucket[1].cumulative_count, 3u);
  EXPECT_EQ(p.bucket[2].cumulative_count, 4u);
  EXPECT_EQ(p.bucket[p.bucket.size() - 2].cumulative_count, 4u);
  EXPECT_EQ(p.bucket.back().cumulative_count, 5u);
  EXPECT_EQ(p.sample_count, 5u);
  EXPECT_DOUBLE_EQ(p.sample_sum, (999 + 1000 + 1119 + 1120 + 50e9) / 1e9);
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
