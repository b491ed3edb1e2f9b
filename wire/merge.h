// Exact merging of results from several workloads or hosts, on the wire
// form: counters add, errors add by errno, latency histograms add bucket by
// bucket (every blkperf histogram has the same fixed log-linear layout, so
// the merge is exact: percentiles of the merge are those of one histogram
// that saw every I/O, never an average of percentiles).
//
//   absl::StatusOr<v1::ThreadStats> fleet =
//       MergeThreadStats({host_a.snapshot().total(), host_b.snapshot().total()},
//                        overlap_window, "hosts");
//   // fleet->ios() == a.ios() + b.ios(); fleet->iops() == ios / window.
//
// Rates (IOPS, bandwidth, IOs per call) are recomputed over the window the
// caller names; the inputs' own rates are ignored. The fleet orchestrator
// merges hosts' totals and job groups this way; the same helpers serve any
// tool that adds results up.
//
//   absl::StatusOr<std::vector<v1::GroupResult>> groups = MergeGroups(
//       {&host_a.snapshot(), &host_b.snapshot()}, overlap_window, "hosts");
//   // (*groups)[g].total().ios() == a.groups(g).total().ios() + b's.
#ifndef BLKPERF_WIRE_MERGE_H_
#define BLKPERF_WIRE_MERGE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

// The bucket-by-bucket sum of `histograms` (count, sum, min and max too).
// InvalidArgument naming "<field>[i]..." when one has another layout, an
// index out of range or counts that do not add up (see HistogramFromProto).
absl::StatusOr<v1::LatencyHistogram> MergeHistograms(
    const std::vector<v1::LatencyHistogram>& histograms,
    absl::string_view field);

// The sum of `stats` (thread_index and cpu -1, histogram always included,
// percentiles from the merged histogram, rates over `window`). Errors as
// MergeHistograms', naming "<field>[i]...". An input without a histogram
// but with completed I/Os cannot be merged exactly: InvalidArgument naming
// "<field>[i].histogram" (or "<field>[i].intended_histogram" for open-loop
// I/Os with intended-time latencies and no histogram of them).
absl::StatusOr<v1::ThreadStats> MergeThreadStats(
    const std::vector<v1::ThreadStats>& stats, absl::Duration window,
    absl::string_view field);
// The same over stats held elsewhere (no copy of each input: a fleet
// merges 10,000 hosts' totals). REQUIRES: no pointer is null.
absl::StatusOr<v1::ThreadStats> MergeThreadStats(
    const std::vector<const v1::ThreadStats*>& stats, absl::Duration window,
    absl::string_view field);

// Each job group summed across `snapshots` (one spec run on several hosts or
// workloads): result[g] holds groups(g) of every input merged as
// MergeThreadStats merges totals (rates over `window`), with the group's
// name and its threads' indexes (the same on every input). The inputs must
// list the same groups, by name and in order, each with the same threads:
// otherwise InvalidArgument naming the first input that differs from
// `snapshots[0]`, "<field>[i].groups[g]" (".threads" for threads), never a
// merge of unlike groups. Empty when no input has groups.
// REQUIRES: no pointer in `snapshots` is null.
absl::StatusOr<std::vector<v1::GroupResult>> MergeGroups(
    const std::vector<const v1::Snapshot*>& snapshots, absl::Duration window,
    absl::string_view field);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_MERGE_H_
