// Exact merging of per-host results into one fleet result, in the API's
// terms (blkperf.v1 messages), plus the statistics a fleet report needs.
//
// Histograms merge exactly: every host uses the same fixed bucket layout
// (HistogramLayout.name), so the merged count of a bucket is the sum of the
// hosts' counts and any percentile of the merge is exact to the bucket;
// percentiles are never averaged.
//
//   v1::ThreadStats fleet;
//   for (const auto& host : hosts) RETURN_IF_ERROR(MergeInto(host.total, fleet));
//   FillPercentiles(fleet);
#ifndef BLKPERF_FLEET_MERGE_H_
#define BLKPERF_FLEET_MERGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/blkperf.pb.h"

namespace blkperf::fleet {

// Adds `from`'s histogram into `into` bucket by bucket (sum, count, min,
// max too). FailedPrecondition naming both layouts when they differ.
absl::Status MergeHistogram(const v1::LatencyHistogram& from,
                            v1::LatencyHistogram& into);

// `later` - `earlier` of one host's cumulative histograms: the I/Os between
// them. min/max are those of the buckets' bounds (exact ones are unknown).
// FailedPrecondition when `earlier` is not contained in `later`.
absl::StatusOr<v1::LatencyHistogram> SubtractHistogram(
    const v1::LatencyHistogram& later, const v1::LatencyHistogram& earlier);

// The value of rank ceil(p * count / 100) (at least 1): its bucket's
// midpoint clamped to [min, max]; the lowest and highest ranks give min and
// max exactly. The engine's LatencyHistogram::Percentile rule, on the wire
// form. 0 for an empty histogram.
uint64_t Percentile(const v1::LatencyHistogram& histogram, double p);

// Percentiles (p50..p99.99, min, max, mean, count) of a histogram.
v1::LatencyPercentiles PercentilesOf(const v1::LatencyHistogram& histogram);

// Adds every counter of `from` into `into` (ios, bytes, reads, writes,
// sqes, enter calls, cache hits/misses, CPU seconds, errors by errno) and
// merges the histograms. Rates and percentiles are left for the caller
// (they depend on the window). Fails as MergeHistogram does.
absl::Status MergeInto(const v1::ThreadStats& from, v1::ThreadStats& into);

// Median of `values` (mean of the middle two for an even count); 0 if empty.
double Median(std::vector<double> values);

struct Outliers {
  double median = 0;
  // Median absolute deviation from the median.
  double mad = 0;
  // flagged[i]: |values[i] - median| > k * mad. With mad == 0 every value
  // that differs from the median at all is flagged.
  std::vector<bool> flagged;
};
Outliers MadOutliers(const std::vector<double>& values, double k = 3.0);

// One host's cumulative counts at points of its measured time.
struct CountSample {
  int64_t elapsed_ns = 0;  // measured time since the host's measured start
  uint64_t ios = 0;
  uint64_t bytes = 0;
};

// A host's measured run on the orchestrator's clock.
struct HostTimeline {
  // Orchestrator CLOCK_MONOTONIC of the host's measured start.
  int64_t start_ns = 0;
  // Samples in increasing elapsed_ns order; the last is the final result.
  // (0, 0, 0) is implied at the start.
  std::vector<CountSample> samples;
  int64_t end_ns() const {
    return start_ns + (samples.empty() ? 0 : samples.back().elapsed_ns);
  }
};

struct Window {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t length_ns() const { return end_ns - begin_ns; }
};

// [latest start, earliest end] over `hosts`: the time every host was
// measuring. FailedPrecondition when it is empty (a host ended before
// another began) or `hosts` is empty.
absl::StatusOr<Window> OverlapWindow(const std::vector<HostTimeline>& hosts);

struct WindowCounts {
  double ios = 0;
  double bytes = 0;
};
// The host's I/Os and bytes completed inside `window`: its cumulative
// counts at the window's ends, linearly interpolated between the two
// samples around each end.
WindowCounts CountsIn(const HostTimeline& host, const Window& window);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_MERGE_H_
