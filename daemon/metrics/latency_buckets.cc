#include "daemon/metrics/latency_buckets.h"

#include <cmath>
#include <limits>
#include <vector>

namespace blkperf {
namespace {

constexpr int kBucketsPerDecade = 4;
constexpr double kFirstBoundNs = 1e3;  // 1 µs
constexpr double kLastBoundNs = 1e10;  // 10 s

// The engine bucket lower bound nearest to `target_ns`.
uint64_t NearestEngineBound(double target_ns) {
  const uint64_t target = static_cast<uint64_t>(std::llround(target_ns));
  const int index = LatencyHistogram::BucketIndex(target);
  const uint64_t below = LatencyHistogram::BucketLowerBound(index);
  const uint64_t above = LatencyHistogram::BucketUpperBound(index) + 1;
  return target - below <= above - target ? below : above;
}

std::vector<uint64_t> MakeBounds() {
  std::vector<uint64_t> bounds;
  const int decades =
      static_cast<int>(std::lround(std::log10(kLastBoundNs / kFirstBoundNs)));
  for (int k = 0; k <= decades * kBucketsPerDecade; ++k) {
    const double target =
        kFirstBoundNs *
        std::pow(10.0, static_cast<double>(k) / kBucketsPerDecade);
    const uint64_t bound = NearestEngineBound(target);
    if (bounds.empty() || bound > bounds.back()) bounds.push_back(bound);
  }
  return bounds;
}

}  // namespace

absl::Span<const uint64_t> LatencyBucketBoundsNs() {
  static const std::vector<uint64_t>* const kBounds =
      new std::vector<uint64_t>(MakeBounds());
  return *kBounds;
}

prometheus::ClientMetric::Histogram ToPrometheusHistogram(
    const LatencyHistogram& histogram) {
  const absl::Span<const uint64_t> bounds = LatencyBucketBoundsNs();
  prometheus::ClientMetric::Histogram out;
  out.bucket.reserve(bounds.size() + 1);
  uint64_t cumulative = 0;
  int engine_index = 0;
  for (const uint64_t bound : bounds) {
    // Every engine bucket wholly below `bound` (bound is a lower bound, so
    // no engine bucket straddles it).
    const int end = LatencyHistogram::BucketIndex(bound);
    for (; engine_index < end; ++engine_index) {
      cumulative += histogram.BucketCount(engine_index);
    }
    out.bucket.push_back({.cumulative_count = cumulative,
                          .upper_bound = static_cast<double>(bound) / 1e9});
  }
  for (; engine_index < LatencyHistogram::kNumBuckets; ++engine_index) {
    cumulative += histogram.BucketCount(engine_index);
  }
  out.bucket.push_back(
      {.cumulative_count = cumulative,
       .upper_bound = std::numeric_limits<double>::infinity()});
  out.sample_count = cumulative;
  out.sample_sum = static_cast<double>(histogram.Sum()) / 1e9;
  return out;
}

}  // namespace blkperf
