#include "daemon/metrics/latency_buckets.h"

#include <limits>
#include <vector>

namespace blkperf {
namespace {

// ISO 3's R20 series, times 100 (one decade).
constexpr uint64_t kR20[] = {100, 112, 125, 140, 160, 180, 200,
                             224, 250, 280, 315, 355, 400, 450,
                             500, 560, 630, 710, 800, 900};
constexpr uint64_t kFirstDecadeNs = 1000;          // 1 µs
constexpr uint64_t kLastBoundNs = 10'000'000'000;  // 10 s

std::vector<LatencyBucketBound> MakeBounds() {
  std::vector<LatencyBucketBound> bounds;
  for (uint64_t decade = kFirstDecadeNs; decade < kLastBoundNs;
       decade *= 10) {
    for (const uint64_t r : kR20) bounds.push_back({.nominal_ns = decade * r / 100});
  }
  bounds.push_back({.nominal_ns = kLastBoundNs});
  for (LatencyBucketBound& b : bounds) {
    b.edge_ns = LatencyHistogram::BucketLowerBound(
        LatencyHistogram::BucketIndex(b.nominal_ns));
  }
  return bounds;
}

}  // namespace

absl::Span<const LatencyBucketBound> LatencyBucketBounds() {
  static const std::vector<LatencyBucketBound>* const kBounds =
      new std::vector<LatencyBucketBound>(MakeBounds());
  return *kBounds;
}

absl::Span<const uint64_t> LatencyBucketBoundsNs() {
  static const std::vector<uint64_t>* const kEdges = [] {
    auto* edges = new std::vector<uint64_t>();
    for (const LatencyBucketBound& b : LatencyBucketBounds()) {
      edges->push_back(b.edge_ns);
    }
    return edges;
  }();
  return *kEdges;
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
