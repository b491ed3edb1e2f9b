// The fleet's merged time series (docs/results.md, docs/fleet.md): folded
// host by host as each host's final result arrives. Fleet interval k adds
// up interval k of every host (the k-th series_interval of its measured
// time; hosts start at the common instant, within the start offsets the
// report prints): counts, bytes, errors and CPU add, and the intervals'
// latency histograms add bucket by bucket, so a fleet point's p99 is the
// p99 of every host's I/Os in that interval, never an average of
// percentiles. Only intervals every host completed are fleet points (a
// host's last, partial interval is not). Memory: one sparse histogram per
// fleet interval whatever the number of hosts; a host's own series keeps
// its percentiles and drops its histograms once folded.
//
//   auto series = std::make_shared<SeriesMerger>();
//   series->Add("h1:9476", *final_workload.mutable_snapshot()->mutable_series());
//   absl::StatusOr<v1::Series> fleet = series->Result({"h1:9476", ...});
#ifndef BLKPERF_FLEET_SERIES_MERGE_H_
#define BLKPERF_FLEET_SERIES_MERGE_H_

#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "model/series.h"
#include "proto/blkperf.pb.h"

namespace blkperf::fleet {

class SeriesMerger {
 public:
  // Folds `host`'s final series in and clears its points' histograms. A
  // series without them (a daemon older than this blkperf, a result that
  // came from AbortRun) or with another interval or ticks_per_point than
  // the first host's makes the fleet series unmergeable (Result says why);
  // a second Add of the same host is ignored. Thread-safe.
  void Add(const std::string& host, v1::Series& series);

  // The fleet series over `hosts`, which must be exactly the hosts added
  // (otherwise FailedPrecondition naming one that differs), as are the
  // reasons Add gave. Series.hosts is their number.
  absl::StatusOr<v1::Series> Result(const std::vector<std::string>& hosts) const;

 private:
  // Fleet interval k so far: sums, the host-summed start and length (their
  // means are the point's), the merged histogram.
  struct Point {
    SeriesPoint sum;
    double start_seconds = 0;
    double length_seconds = 0;
  };
  mutable absl::Mutex mu_;
  std::set<std::string> hosts_ ABSL_GUARDED_BY(mu_);
  std::string unmergeable_ ABSL_GUARDED_BY(mu_);
  Series shape_ ABSL_GUARDED_BY(mu_);  // interval, ticks_per_point
  std::vector<Point> points_ ABSL_GUARDED_BY(mu_);
  size_t complete_ ABSL_GUARDED_BY(mu_) = 0;  // intervals every host completed
};

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_SERIES_MERGE_H_
