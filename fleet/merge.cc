#include "fleet/merge.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blkperf::fleet {
namespace {

std::map<uint32_t, v1::HistogramBucket> ByIndex(
    const v1::LatencyHistogram& h) {
  std::map<uint32_t, v1::HistogramBucket> buckets;
  for (const v1::HistogramBucket& b : h.buckets()) buckets[b.index()] = b;
  return buckets;
}

void SetBuckets(const std::map<uint32_t, v1::HistogramBucket>& buckets,
                v1::LatencyHistogram& h) {
  h.clear_buckets();
  for (const auto& [index, bucket] : buckets) {
    if (bucket.count() != 0) *h.add_buckets() = bucket;
  }
}

}  // namespace

absl::StatusOr<v1::LatencyHistogram> SubtractHistogram(
    const v1::LatencyHistogram& later, const v1::LatencyHistogram& earlier) {
  std::map<uint32_t, v1::HistogramBucket> buckets = ByIndex(later);
  for (const v1::HistogramBucket& b : earlier.buckets()) {
    auto it = buckets.find(b.index());
    if (it == buckets.end() || it->second.count() < b.count()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "histogram bucket ", b.index(),
          " holds fewer I/Os than an earlier snapshot of the same workload"));
    }
    it->second.set_count(it->second.count() - b.count());
  }
  v1::LatencyHistogram diff;
  *diff.mutable_layout() = later.layout();
  SetBuckets(buckets, diff);
  diff.set_count(later.count() - earlier.count());
  diff.set_sum_ns(later.sum_ns() - earlier.sum_ns());
  if (diff.buckets_size() > 0) {
    diff.set_min_ns(diff.buckets(0).lower_bound_ns());
    diff.set_max_ns(diff.buckets(diff.buckets_size() - 1).upper_bound_ns());
  }
  return diff;
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
