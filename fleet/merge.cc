#include "fleet/merge.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "model/histogram.h"
#include "wire/snapshot_convert.h"

namespace blkperf::fleet {

absl::StatusOr<v1::LatencyHistogram> SubtractHistogram(
    const v1::LatencyHistogram& later, const v1::LatencyHistogram& earlier) {
  BLKPERF_ASSIGN_OR_RETURN(LatencyHistogram delta, HistogramFromProto(later));
  BLKPERF_ASSIGN_OR_RETURN(const LatencyHistogram before,
                           HistogramFromProto(earlier));
  if (!delta.Contains(before)) {
    return absl::FailedPreconditionError(
        "a histogram holds fewer I/Os in some bucket than an earlier "
        "snapshot of the same workload");
  }
  delta.Subtract(before);
  v1::LatencyHistogram out;
  HistogramToProto(delta, &out);
  return out;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

Outliers MadOutliers(const std::vector<double>& values, double k,
                     double relative_floor) {
  Outliers o;
  o.rule = absl::StrFormat("> %g MAD and > %g%% from the median", k,
                           relative_floor * 100);
  o.median = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - o.median));
  o.mad = Median(deviations);
  const double floor = relative_floor * std::fabs(o.median);
  for (double d : deviations) {
    o.flagged.push_back(d > k * o.mad && d > floor);
  }
  return o;
}

void AddSample(std::vector<CountSample>& samples, const CountSample& sample) {
  if (!samples.empty() && sample.elapsed_ns <= samples.back().elapsed_ns) {
    return;
  }
  samples.push_back(sample);
  if (samples.size() > kKeptSamples) {
    samples.erase(samples.begin() + kKeptSamples / 2);
  }
}

absl::StatusOr<Window> OverlapWindow(const std::vector<HostTimeline>& hosts) {
  if (hosts.empty()) {
    return absl::FailedPreconditionError("no host result to merge");
  }
  Window w{hosts[0].start_ns, hosts[0].end_ns()};
  for (const HostTimeline& h : hosts) {
    w.begin_ns = std::max(w.begin_ns, h.start_ns);
    w.end_ns = std::min(w.end_ns, h.end_ns());
  }
  if (w.end_ns <= w.begin_ns) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the hosts' measured windows do not overlap (latest start is ",
        (w.begin_ns - w.end_ns) / 1000, "us after the earliest end)"));
  }
  return w;
}

namespace {

// Cumulative counts at elapsed `t`, interpolated.
WindowCounts CountsAt(const HostTimeline& host, int64_t t) {
  CountSample previous;  // (0, 0, 0) at the start
  for (const CountSample& s : host.samples) {
    if (s.elapsed_ns >= t) {
      const int64_t span = s.elapsed_ns - previous.elapsed_ns;
      const double f =
          span <= 0 ? 1.0
                    : static_cast<double>(t - previous.elapsed_ns) /
                          static_cast<double>(span);
      const double ios = static_cast<double>(previous.ios) +
                         f * static_cast<double>(s.ios - previous.ios);
      const double bytes = static_cast<double>(previous.bytes) +
                           f * static_cast<double>(s.bytes - previous.bytes);
      return {ios, bytes};
    }
    previous = s;
  }
  return {static_cast<double>(previous.ios),
          static_cast<double>(previous.bytes)};
}

}  // namespace

WindowCounts CountsIn(const HostTimeline& host, const Window& window) {
  const WindowCounts begin =
      CountsAt(host, std::max<int64_t>(0, window.begin_ns - host.start_ns));
  const WindowCounts end =
      CountsAt(host, std::max<int64_t>(0, window.end_ns - host.start_ns));
  return {end.ios - begin.ios, end.bytes - begin.bytes};
}

}  // namespace blkperf::fleet
