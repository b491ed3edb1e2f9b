// A result's time series: per interval (WorkloadSpec::series_interval,
// default 1 s) IOPS and bandwidth by direction, p50/p99/p99.9 of that
// interval's own latency histogram delta, CPU and errors. Built off the hot
// path by diffing cumulative totals (the engine's series thread), bounded:
// beyond kMaxSeriesPoints adjacent points are merged pairwise (their
// histograms exactly) and the series says so (`downsampled`).
// The builder is model/series_builder.h.
//
//   for (const SeriesPoint& p : snapshot.series.points) Plot(p.ReadIops());
#ifndef BLKPERF_MODEL_SERIES_H_
#define BLKPERF_MODEL_SERIES_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace blkperf {

inline constexpr size_t kMaxSeriesPoints = 1000;

// One interval. Counts are of I/Os completed in it; rates are counts over
// `length`; CPU is the submitter threads' CPU time in it.
struct SeriesPoint {
  absl::Duration start;   // since measuring began
  absl::Duration length;
  uint64_t read_ios = 0;
  uint64_t write_ios = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t errors = 0;
  // Of the interval's completions (total latency, docs/numbers.md).
  uint64_t p50_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t p99_9_ns = 0;
  double user_cpu_seconds = 0;
  double system_cpu_seconds = 0;
  // The interval's own latency histogram, sparse: (bucket index, count) in
  // increasing index order (LatencyHistogram's layout), and the exact sum of
  // its latencies. What an exact merge of intervals needs: downsampling
  // here, a fleet's series across hosts (fleet/series_merge.h).
  std::vector<std::pair<int, uint64_t>> latency_buckets;
  uint64_t latency_sum_ns = 0;

  double ReadIops() const;
  double WriteIops() const;
  double ReadBytesPerSecond() const;
  double WriteBytesPerSecond() const;
};

struct Series {
  absl::Duration interval;  // as asked (spec.series_interval)
  // Each point spans `ticks_per_point` intervals (the last may be shorter);
  // more than 1 once downsampled.
  int ticks_per_point = 1;
  bool downsampled = false;
  // A fleet's merged series: the hosts whose interval k each point k adds
  // up (fleet/series_merge.h); 0 for one host's own.
  int hosts = 0;
  std::vector<SeriesPoint> points;
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_SERIES_H_
