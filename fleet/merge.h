// The statistics a fleet report needs beyond the exact merge of the hosts'
// results (which is //wire:merge, shared with the daemon and the client):
// per-interval histograms, the overlap window and the counts inside it,
// median and MAD outliers.
//
//   absl::StatusOr<Window> w = OverlapWindow(timelines);
//   double ios = 0;
//   for (const HostTimeline& t : timelines) ios += CountsIn(t, *w).ios;
#ifndef BLKPERF_FLEET_MERGE_H_
#define BLKPERF_FLEET_MERGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/blkperf.pb.h"

namespace blkperf::fleet {

// `later` - `earlier` of one host's cumulative histograms: the I/Os between
// them, by LatencyHistogram::Subtract (its min and max are estimates).
// FailedPrecondition when `earlier` is not contained in `later`
// (LatencyHistogram::Contains); InvalidArgument when either is not a valid
// histogram (HistogramFromProto).
absl::StatusOr<v1::LatencyHistogram> SubtractHistogram(
    const v1::LatencyHistogram& later, const v1::LatencyHistogram& earlier);

// Median of `values` (mean of the middle two for an even count); 0 if empty.
double Median(std::vector<double> values);

struct Outliers {
  double median = 0;
  // Median absolute deviation from the median.
  double mad = 0;
  // flagged[i]: |values[i] - median| > k * mad and > relative_floor *
  // |median|. The floor keeps a uniform fleet (MAD near 0) from flagging
  // hosts a fraction of a percent off.
  std::vector<bool> flagged;
  // The rule in words, for reports: "> 3 MAD and > 5% from the median".
  std::string rule;
};
Outliers MadOutliers(const std::vector<double>& values, double k = 3.0,
                     double relative_floor = 0.05);

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

// Samples a host keeps: the first and the last kKeptSamples / 2 (the
// overlap window's edges lie near a run's start and end; the middle only
// costs memory on long runs of large fleets).
inline constexpr size_t kKeptSamples = 64;

// Appends `sample` when its elapsed_ns is past the last one's, dropping the
// oldest of the tail half when over kKeptSamples.
void AddSample(std::vector<CountSample>& samples, const CountSample& sample);

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
