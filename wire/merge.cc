#include "wire/merge.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "daemon/engine/histogram.h"
#include "daemon/engine/snapshot.h"
#include "wire/snapshot_convert.h"

namespace blkperf {

absl::StatusOr<v1::LatencyHistogram> MergeHistograms(
    const std::vector<v1::LatencyHistogram>& histograms,
    absl::string_view field) {
  LatencyHistogram merged;
  for (size_t i = 0; i < histograms.size(); ++i) {
    absl::StatusOr<LatencyHistogram> h = HistogramFromProto(histograms[i]);
    if (!h.ok()) {
      return absl::Status(h.status().code(), absl::StrCat(field, "[", i, "].",
                                                          h.status().message()));
    }
    merged.Merge(*h);
  }
  v1::LatencyHistogram proto;
  HistogramToProto(merged, &proto);
  return proto;
}

absl::StatusOr<v1::ThreadStats> MergeThreadStats(
    const std::vector<v1::ThreadStats>& stats, absl::Duration window,
    absl::string_view field) {
  ThreadSnapshot merged;
  for (size_t i = 0; i < stats.size(); ++i) {
    const std::string name = absl::StrCat(field, "[", i, "]");
    if (!stats[i].has_histogram() && stats[i].ios() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ".histogram is missing for ", stats[i].ios(),
          " completed I/Os: latency cannot be merged exactly without it"));
    }
    if (!stats[i].has_intended_histogram() &&
        stats[i].intended_latency().count() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ".intended_histogram is missing for ",
          stats[i].intended_latency().count(),
          " open-loop I/Os: intended-time latency cannot be merged exactly "
          "without it"));
    }
    absl::StatusOr<ThreadSnapshot> t = ThreadFromProto(stats[i], name);
    if (!t.ok()) return t.status();
    merged.Merge(*t);
  }
  merged.thread_index = -1;
  merged.cpu = -1;
  v1::ThreadStats proto;
  ThreadToProto(merged, window, /*with_histogram=*/true, &proto);
  return proto;
}

}  // namespace blkperf
