#include "wire/merge.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "model/histogram.h"
#include "model/snapshot.h"
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

namespace {

// Adds `stats` (input `name`) to `merged`. InvalidArgument naming `name`
// when it cannot be merged exactly (see MergeThreadStats).
absl::Status MergeInto(const v1::ThreadStats& stats, absl::string_view name,
                       ThreadSnapshot* merged) {
  if (!stats.has_histogram() && stats.ios() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ".histogram is missing for ", stats.ios(),
        " completed I/Os: latency cannot be merged exactly without it"));
  }
  if (!stats.has_intended_histogram() &&
      stats.intended_latency().count() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ".intended_histogram is missing for ",
        stats.intended_latency().count(),
        " open-loop I/Os: intended-time latency cannot be merged exactly "
        "without it"));
  }
  if (!stats.has_issue_lag_histogram() && stats.issue_lag().count() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ".issue_lag_histogram is missing for ",
        stats.issue_lag().count(),
        " open-loop I/Os: issue lag cannot be merged exactly without it"));
  }
  absl::StatusOr<ThreadSnapshot> t = ThreadFromProto(stats, name);
  if (!t.ok()) return t.status();
  merged->Merge(*t);
  return absl::OkStatus();
}

v1::ThreadStats MergedToProto(ThreadSnapshot merged, absl::Duration window) {
  merged.thread_index = -1;
  merged.cpu = -1;
  v1::ThreadStats proto;
  ThreadToProto(merged, window, /*with_histogram=*/true, &proto);
  return proto;
}

// OK when `snapshot` (input `i`) lists the groups of `first` (input 0) by
// name, in order, with the same threads.
absl::Status CheckSameGroups(const v1::Snapshot& first,
                             const v1::Snapshot& snapshot, size_t i,
                             absl::string_view field) {
  const int n = std::max(first.groups_size(), snapshot.groups_size());
  for (int g = 0; g < n; ++g) {
    const std::string name = absl::StrCat(field, "[", i, "].groups[", g, "]");
    const std::string reference =
        absl::StrCat(field, "[0].groups[", g, "]");
    if (g >= snapshot.groups_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " is missing where ", reference, " is \"",
          first.groups(g).name(),
          "\": the inputs ran different job groups, which cannot be merged"));
    }
    if (g >= first.groups_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " \"", snapshot.groups(g).name(), "\" has no counterpart (",
          field, "[0] has ", first.groups_size(),
          " groups): the inputs ran different job groups, which cannot be "
          "merged"));
    }
    const v1::GroupResult& a = first.groups(g);
    const v1::GroupResult& b = snapshot.groups(g);
    if (a.name() != b.name()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " is \"", b.name(), "\" where ", reference, " is \"",
          a.name(),
          "\": the inputs list different job groups or list them in another "
          "order, which cannot be merged"));
    }
    if (!std::equal(a.threads().begin(), a.threads().end(),
                    b.threads().begin(), b.threads().end())) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ".threads [", absl::StrJoin(b.threads(), ","), "] differ from ",
          reference, ".threads [", absl::StrJoin(a.threads(), ","),
          "] (group \"", a.name(), "\"): the inputs ran different job groups"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ThreadStats> MergeThreadStats(
    const std::vector<const v1::ThreadStats*>& stats, absl::Duration window,
    absl::string_view field) {
  ThreadSnapshot merged;
  for (size_t i = 0; i < stats.size(); ++i) {
    const absl::Status s =
        MergeInto(*stats[i], absl::StrCat(field, "[", i, "]"), &merged);
    if (!s.ok()) return s;
  }
  return MergedToProto(std::move(merged), window);
}

absl::StatusOr<v1::ThreadStats> MergeThreadStats(
    const std::vector<v1::ThreadStats>& stats, absl::Duration window,
    absl::string_view field) {
  std::vector<const v1::ThreadStats*> pointers;
  pointers.reserve(stats.size());
  for (const v1::ThreadStats& s : stats) pointers.push_back(&s);
  return MergeThreadStats(pointers, window, field);
}

absl::StatusOr<std::vector<v1::GroupResult>> MergeGroups(
    const std::vector<const v1::Snapshot*>& snapshots, absl::Duration window,
    absl::string_view field) {
  if (snapshots.empty()) return std::vector<v1::GroupResult>();
  const v1::Snapshot& first = *snapshots[0];
  for (size_t i = 1; i < snapshots.size(); ++i) {
    const absl::Status s = CheckSameGroups(first, *snapshots[i], i, field);
    if (!s.ok()) return s;
  }
  std::vector<v1::GroupResult> groups(first.groups_size());
  for (int g = 0; g < first.groups_size(); ++g) {
    ThreadSnapshot merged;
    for (size_t i = 0; i < snapshots.size(); ++i) {
      const absl::Status s = MergeInto(
          snapshots[i]->groups(g).total(),
          absl::StrCat(field, "[", i, "].groups[", g, "].total"), &merged);
      if (!s.ok()) return s;
    }
    groups[g].set_name(first.groups(g).name());
    *groups[g].mutable_threads() = first.groups(g).threads();
    *groups[g].mutable_total() = MergedToProto(std::move(merged), window);
  }
  return groups;
}

}  // namespace blkperf
