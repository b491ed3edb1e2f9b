// The exported latency histogram's buckets, re-bucketed exactly from the
// engine's log-linear LatencyHistogram (model/histogram.h).
//
// Prometheus histograms are cumulative: bucket `le` counts the observations
// at or below it. Every exported boundary is the lower bound of an engine
// bucket, so its cumulative count is an exact sum of whole engine buckets;
// nothing is interpolated. The boundaries are log-spaced, four per decade,
// from 1 µs to about 10 s, each snapped to the nearest engine bucket bound
// (so `le` reads 1e-06, 1.776e-06, 3.168e-06, ...; prometheus-cpp prints
// 17 significant digits, so a few carry binary noise, e.g.
// 0.0009994240000000001, the same on every scrape).
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

// The finite exported boundaries in nanoseconds, ascending. Each is an
// engine bucket lower bound: LatencyHistogram::BucketLowerBound(
// LatencyHistogram::BucketIndex(b)) == b.
absl::Span<const uint64_t> LatencyBucketBoundsNs();

// Cumulative counts at each boundary of LatencyBucketBoundsNs() (as seconds)
// plus +Inf; sample_count and the +Inf bucket equal the sum of the engine
// bucket counts, sample_sum is Sum() in seconds.
prometheus::ClientMetric::Histogram ToPrometheusHistogram(
    const LatencyHistogram& histogram);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_LATENCY_BUCKETS_H_
