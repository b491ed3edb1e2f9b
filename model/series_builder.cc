#include "model/series_builder.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace blkperf {
namespace {

// p50/p99/p99.9 of a sparse histogram.
void FillPercentiles(const std::vector<std::pair<int, uint64_t>>& buckets,
                     SeriesPoint* point) {
  LatencyHistogram h;
  for (const auto& [index, count] : buckets) h.AddBucket(index, count).IgnoreError();
  point->p50_ns = h.Percentile(50);
  point->p99_ns = h.Percentile(99);
  point->p99_9_ns = h.Percentile(99.9);
}

}  // namespace

std::vector<std::pair<int, uint64_t>> MergeSparseBuckets(
    const std::vector<std::pair<int, uint64_t>>& a,
    const std::vector<std::pair<int, uint64_t>>& b) {
  std::vector<std::pair<int, uint64_t>> merged;
  merged.reserve(a.size() + b.size());
  auto x = a.cbegin();
  auto y = b.cbegin();
  while (x != a.cend() || y != b.cend()) {
    if (y == b.cend() || (x != a.cend() && x->first < y->first)) {
      merged.push_back(*x++);
    } else if (x == a.cend() || y->first < x->first) {
      merged.push_back(*y++);
    } else {
      merged.emplace_back(x->first, x->second + y->second);
      ++x;
      ++y;
    }
  }
  return merged;
}

void AddSeriesCounts(const SeriesPoint& from, SeriesPoint* into) {
  into->read_ios += from.read_ios;
  into->write_ios += from.write_ios;
  into->read_bytes += from.read_bytes;
  into->write_bytes += from.write_bytes;
  into->errors += from.errors;
  into->user_cpu_seconds += from.user_cpu_seconds;
  into->system_cpu_seconds += from.system_cpu_seconds;
  into->latency_buckets =
      MergeSparseBuckets(into->latency_buckets, from.latency_buckets);
  into->latency_sum_ns += from.latency_sum_ns;
}

void FillSeriesPercentiles(SeriesPoint* point) {
  FillPercentiles(point->latency_buckets, point);
}

SeriesBuilder::SeriesBuilder(absl::Duration interval, size_t max_points)
    : interval_(interval), max_points_(std::max<size_t>(max_points, 2)) {}

SeriesBuilder::Pending SeriesBuilder::Delta(
    absl::Duration at, const ThreadSnapshot& cumulative) const {
  ThreadSnapshot delta = cumulative;
  delta.Subtract(last_);
  Pending p;
  p.ticks = 1;
  SeriesPoint& pt = p.point;
  pt.start = last_at_;
  pt.length = at - last_at_;
  pt.read_ios = delta.read_ios;
  pt.write_ios = delta.write_ios;
  pt.read_bytes = delta.read_bytes;
  pt.write_bytes = delta.write_bytes;
  const uint64_t errors_now = cumulative.ErrorTotal();
  const uint64_t errors_before = last_.ErrorTotal();
  pt.errors = errors_now > errors_before ? errors_now - errors_before : 0;
  pt.user_cpu_seconds =
      std::max(0.0, cumulative.user_cpu_seconds - last_.user_cpu_seconds);
  pt.system_cpu_seconds =
      std::max(0.0, cumulative.system_cpu_seconds - last_.system_cpu_seconds);
  pt.latency_buckets = delta.latency.NonEmptyBuckets();
  pt.latency_sum_ns = delta.latency.Sum();
  FillPercentiles(pt.latency_buckets, &pt);
  return p;
}

void SeriesBuilder::MergeInto(const Pending& later, Pending* into) {
  SeriesPoint& a = into->point;
  const SeriesPoint& b = later.point;
  a.length = b.start + b.length - a.start;
  AddSeriesCounts(b, &a);
  into->ticks += later.ticks;
  FillPercentiles(a.latency_buckets, &a);
}

void SeriesBuilder::Downsample() {
  std::vector<Pending> halved;
  halved.reserve(points_.size() / 2 + 1);
  for (size_t i = 0; i < points_.size(); i += 2) {
    halved.push_back(std::move(points_[i]));
    if (i + 1 < points_.size()) MergeInto(points_[i + 1], &halved.back());
  }
  points_ = std::move(halved);
  ticks_per_point_ *= 2;
  downsampled_ = true;
}

SeriesPoint SeriesBuilder::Add(absl::Duration at,
                               const ThreadSnapshot& cumulative) {
  if (at <= last_at_) return SeriesPoint{};
  Pending p = Delta(at, cumulative);
  SeriesPoint own = p.point;
  last_at_ = at;
  last_ = cumulative;
  if (!points_.empty() && points_.back().ticks < ticks_per_point_) {
    MergeInto(p, &points_.back());
  } else {
    points_.push_back(std::move(p));
  }
  if (points_.size() > max_points_) Downsample();
  return own;
}

Series SeriesBuilder::Get(absl::Duration at,
                          const ThreadSnapshot& cumulative) const {
  Series s;
  s.interval = interval_;
  s.ticks_per_point = ticks_per_point_;
  s.downsampled = downsampled_;
  s.points.reserve(points_.size() + 1);
  for (const Pending& p : points_) s.points.push_back(p.point);
  if (at > last_at_) {
    const Pending tail = Delta(at, cumulative);
    if (!points_.empty() && points_.back().ticks < ticks_per_point_) {
      Pending last = points_.back();
      MergeInto(tail, &last);
      s.points.back() = last.point;
    } else {
      s.points.push_back(tail.point);
    }
  }
  return s;
}

}  // namespace blkperf
