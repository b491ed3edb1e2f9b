// The exported latency histogram's buckets, re-bucketed exactly from the
// engine's log-linear LatencyHistogram (model/histogram.h, fio's layout).
//
// Prometheus histograms are cumulative: bucket `le` counts the observations
// at or below it. Every exported boundary is the lower bound of an engine
// bucket, so its cumulative count is an exact sum of whole engine buckets;
// nothing is interpolated.
//
// The boundaries follow the R20 preferred numbers (ISO 3: 1, 1.12, 1.25,
// 1.4, 1.6, 1.8, 2, 2.24, 2.5, 2.8, 3.15, 3.55, 4, 4.5, 5, 5.6, 6.3, 7.1, 8,
// 9 per decade) from 1 µs to 10 s: 141 finite boundaries, neighbours at most
// 16 % apart (1.4 to 1.6), so histogram_quantile's linear interpolation
// lands within a few percent of the exact percentile (under 3 % for the
// log-normal shapes of latency_buckets_test), and the usual SLO bounds (100 µs,
// 250 µs, 500 µs, 1 ms, 2 ms, 2.5 ms, 5 ms, 10 ms, ...) each have a bucket.
// Each nominal bound N is exported at the engine edge at or below it (the
// largest engine bucket lower bound <= N; at most 1/64 below N, 0 where N is
// itself an edge: every value up to 127 ns, and e.g. 1 µs, 2 µs, 4 µs,
// 8 µs), so the bucket counts I/Os certainly faster than N. The `le` label is
// that edge in seconds (exposition.h writes it as the shortest decimal
// that reads back the same, e.g. 1 ms is le="0.000999424");
// docs/metrics.md lists every SLO bound with its edge and `le` string.
//
// Series budget: 141 + 1 (+Inf) buckets + _sum + _count = 144 series per
// histogram.
//
//   prometheus::ClientMetric metric;
//   metric.histogram = ToPrometheusHistogram(snapshot.total.latency);
//
// The engine records whole nanoseconds: a recorded v stands for a latency in
// [v, v+1) ns. The bucket at boundary b ns counts recorded values below b,
// i.e. latencies below b ns, which equals "at or below b" up to the clock's
// one-nanosecond granularity.
#ifndef BLKPERF_DAEMON_METRICS_LATENCY_BUCKETS_H_
#define BLKPERF_DAEMON_METRICS_LATENCY_BUCKETS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "model/histogram.h"
#include "prometheus/client_metric.h"

namespace blkperf {

// One exported boundary: the round bound it stands for and the engine edge
// that is exported.
struct LatencyBucketBound {
  uint64_t nominal_ns;  // an R20 number: 1000, 1120, 1250, ..., 10^10
  uint64_t edge_ns;     // the engine bucket lower bound at or below it
};

// The finite exported boundaries, ascending (both fields strictly).
// LatencyHistogram::BucketLowerBound(LatencyHistogram::BucketIndex(
// edge_ns)) == edge_ns, edge_ns <= nominal_ns < edge_ns * 65 / 64.
absl::Span<const LatencyBucketBound> LatencyBucketBounds();

// The edges of LatencyBucketBounds() in nanoseconds, ascending.
absl::Span<const uint64_t> LatencyBucketBoundsNs();

// Cumulative counts at each boundary of LatencyBucketBoundsNs() (as seconds)
// plus +Inf; sample_count and the +Inf bucket equal the sum of the engine
// bucket counts, sample_sum is Sum() in seconds.
prometheus::ClientMetric::Histogram ToPrometheusHistogram(
    const LatencyHistogram& histogram);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_LATENCY_BUCKETS_H_
