// Builds a Series (model/series.h) from cumulative totals read once per
// interval, off the hot path: each point is the difference of two reads,
// its percentiles from the interval's own histogram delta. Beyond
// `max_points` neighbours merge pairwise, histograms exactly; Get() returns
// at most max_points + 1 points (the partial last interval).
//
//   SeriesBuilder b(absl::Seconds(1));
//   b.Add(absl::Seconds(1), totals_at_1s);   // cumulative ThreadSnapshot
//   b.Add(absl::Seconds(2), totals_at_2s);
//   Series s = b.Get(elapsed, final_totals);  // plus the partial tail
#ifndef BLKPERF_MODEL_SERIES_BUILDER_H_
#define BLKPERF_MODEL_SERIES_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "model/series.h"
#include "model/snapshot.h"

namespace blkperf {

// The bucket-by-bucket sum of two sparse histograms (SeriesPoint's
// latency_buckets form): exact.
std::vector<std::pair<int, uint64_t>> MergeSparseBuckets(
    const std::vector<std::pair<int, uint64_t>>& a,
    const std::vector<std::pair<int, uint64_t>>& b);

// Adds `from`'s counts, CPU times and latency histogram (buckets and sum)
// into `into`: an exact merge of two intervals' measurements, whether
// adjacent (downsampling) or the same interval of two hosts (a fleet's
// series). Times and percentiles are the caller's.
void AddSeriesCounts(const SeriesPoint& from, SeriesPoint* into);

// Sets point's p50/p99/p99.9 from its latency_buckets.
void FillSeriesPercentiles(SeriesPoint* point);

// Not thread-safe: the engine guards it with a mutex.
class SeriesBuilder {
 public:
  explicit SeriesBuilder(absl::Duration interval,
                         size_t max_points = kMaxSeriesPoints);

  // One tick: the totals since measuring began, read at `at` (since
  // measuring began). Ticks must come in time order; one at or before the
  // last is ignored (and returns a point of zero length). Returns the
  // tick's own interval (before any downsampling merges it), what a
  // steady-state check (model/steady_state.h) reads.
  SeriesPoint Add(absl::Duration at, const ThreadSnapshot& cumulative);

  // The points so far plus, when `at` is past the last tick, a last
  // partial interval up to `at` from `cumulative` (a snapshot's elapsed and
  // totals), so the points' counts add up to those totals.
  Series Get(absl::Duration at, const ThreadSnapshot& cumulative) const;

 private:
  // A point (with its interval's latency histogram, so that a merge of two
  // points has exact percentiles) and the ticks it spans.
  struct Pending {
    SeriesPoint point;
    int ticks = 0;
  };
  Pending Delta(absl::Duration at, const ThreadSnapshot& cumulative) const;
  // Adds `later` (the next interval) into `*into`.
  static void MergeInto(const Pending& later, Pending* into);
  // Halves the points by merging neighbours.
  void Downsample();

  const absl::Duration interval_;
  const size_t max_points_;
  int ticks_per_point_ = 1;
  bool downsampled_ = false;
  absl::Duration last_at_;
  ThreadSnapshot last_;  // cumulative totals at last_at_
  std::vector<Pending> points_;
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_SERIES_BUILDER_H_
