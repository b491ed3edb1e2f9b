#include "fleet/merge.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"

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

uint64_t Midpoint(const v1::HistogramBucket& b) {
  return b.lower_bound_ns() + (b.upper_bound_ns() - b.lower_bound_ns()) / 2;
}

}  // namespace

absl::Status MergeHistogram(const v1::LatencyHistogram& from,
                            v1::LatencyHistogram& into) {
  if (from.count() == 0 && from.buckets().empty()) return absl::OkStatus();
  if (into.count() == 0 && into.buckets().empty()) {
    const v1::HistogramLayout layout = into.layout();
    into = from;
    if (from.layout().name().empty()) *into.mutable_layout() = layout;
    return absl::OkStatus();
  }
  if (from.layout().SerializeAsString() != into.layout().SerializeAsString()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "histogram layouts differ (\"", from.layout().name(), "\" with ",
        from.layout().num_buckets(), " buckets vs \"", into.layout().name(),
        "\" with ", into.layout().num_buckets(),
        " buckets): cannot merge exactly"));
  }
  std::map<uint32_t, v1::HistogramBucket> buckets = ByIndex(into);
  for (const v1::HistogramBucket& b : from.buckets()) {
    auto [it, inserted] = buckets.emplace(b.index(), b);
    if (!inserted) it->second.set_count(it->second.count() + b.count());
  }
  SetBuckets(buckets, into);
  into.set_min_ns(std::min(into.min_ns(), from.min_ns()));
  into.set_max_ns(std::max(into.max_ns(), from.max_ns()));
  into.set_count(into.count() + from.count());
  into.set_sum_ns(into.sum_ns() + from.sum_ns());
  return absl::OkStatus();
}

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

uint64_t Percentile(const v1::LatencyHistogram& h, double p) {
  const uint64_t count = h.count();
  if (count == 0) return 0;
  if (!(p > 0.0)) p = 0.0;
  if (p > 100.0) p = 100.0;
  const double exact_rank = std::ceil(p * static_cast<double>(count) / 100.0);
  const uint64_t rank =
      exact_rank < 1.0 ? 1 : static_cast<uint64_t>(exact_rank);
  if (rank >= count) return h.max_ns();
  if (rank == 1) return h.min_ns();
  uint64_t seen = 0;
  for (const v1::HistogramBucket& b : h.buckets()) {
    seen += b.count();
    if (seen >= rank) return std::clamp(Midpoint(b), h.min_ns(), h.max_ns());
  }
  return h.max_ns();
}

v1::LatencyPercentiles PercentilesOf(const v1::LatencyHistogram& h) {
  v1::LatencyPercentiles p;
  p.set_p50_ns(Percentile(h, 50));
  p.set_p90_ns(Percentile(h, 90));
  p.set_p99_ns(Percentile(h, 99));
  p.set_p99_9_ns(Percentile(h, 99.9));
  p.set_p99_99_ns(Percentile(h, 99.99));
  p.set_min_ns(h.min_ns());
  p.set_max_ns(h.max_ns());
  p.set_count(h.count());
  p.set_mean_ns(h.count() == 0 ? 0.0
                               : static_cast<double>(h.sum_ns()) /
                                     static_cast<double>(h.count()));
  return p;
}

absl::Status MergeInto(const v1::ThreadStats& from, v1::ThreadStats& into) {
  into.set_thread_index(-1);
  into.set_ios(into.ios() + from.ios());
  into.set_bytes(into.bytes() + from.bytes());
  into.set_read_ios(into.read_ios() + from.read_ios());
  into.set_read_bytes(into.read_bytes() + from.read_bytes());
  into.set_write_ios(into.write_ios() + from.write_ios());
  into.set_write_bytes(into.write_bytes() + from.write_bytes());
  into.set_sqes(into.sqes() + from.sqes());
  into.set_enter_calls(into.enter_calls() + from.enter_calls());
  into.set_inflight(into.inflight() + from.inflight());
  into.set_cache_hits(into.cache_hits() + from.cache_hits());
  into.set_cache_misses(into.cache_misses() + from.cache_misses());
  into.set_user_cpu_seconds(into.user_cpu_seconds() + from.user_cpu_seconds());
  into.set_system_cpu_seconds(into.system_cpu_seconds() +
                              from.system_cpu_seconds());
  into.set_io_worker_cpu_seconds(into.io_worker_cpu_seconds() +
                                 from.io_worker_cpu_seconds());
  into.set_error_total(into.error_total() + from.error_total());
  for (const v1::ErrorCount& e : from.errors()) {
    v1::ErrorCount* match = nullptr;
    for (v1::ErrorCount& mine : *into.mutable_errors()) {
      if (mine.errno_value() == e.errno_value()) match = &mine;
    }
    if (match == nullptr) {
      *into.add_errors() = e;
    } else {
      match->set_count(match->count() + e.count());
    }
  }
  into.set_ios_per_call(into.enter_calls() == 0
                            ? 0.0
                            : static_cast<double>(into.ios()) /
                                  static_cast<double>(into.enter_calls()));
  return MergeHistogram(from.histogram(), *into.mutable_histogram());
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

Outliers MadOutliers(const std::vector<double>& values, double k) {
  Outliers o;
  o.median = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - o.median));
  o.mad = Median(deviations);
  for (double d : deviations) o.flagged.push_back(d > k * o.mad);
  return o;
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
