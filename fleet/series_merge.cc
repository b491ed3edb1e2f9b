#include "fleet/series_merge.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "model/series_builder.h"
#include "wire/context_convert.h"

namespace blkperf::fleet {
namespace {

// The intervals `s` completed: all its points but a last one shorter than
// the interval (the partial interval up to the end).
size_t CompleteIntervals(const Series& s) {
  size_t n = s.points.size();
  if (n > 0 && s.points.back().length < s.interval * s.ticks_per_point) --n;
  return n;
}

}  // namespace

void SeriesMerger::Add(const std::string& host, v1::Series& proto) {
  const bool with_histograms =
      std::all_of(proto.points().begin(), proto.points().end(),
                  [](const v1::SeriesPoint& p) { return p.has_histogram(); });
  const Series s = SeriesFromProto(proto);
  for (v1::SeriesPoint& p : *proto.mutable_points()) p.clear_histogram();
  absl::MutexLock lock(&mu_);
  const bool first = hosts_.empty();
  if (!hosts_.insert(host).second || !unmergeable_.empty()) return;
  if (!with_histograms) {
    unmergeable_ = absl::StrCat(
        host, " sent its series without the intervals' histograms (a daemon "
              "older than this blkperf, or a result read from AbortRun)");
    return;
  }
  if (first) {
    shape_.interval = s.interval;
    shape_.ticks_per_point = s.ticks_per_point;
    complete_ = std::numeric_limits<size_t>::max();
  } else if (s.interval != shape_.interval ||
             s.ticks_per_point != shape_.ticks_per_point) {
    unmergeable_ = absl::StrCat(
        host, "'s series has points of ", s.ticks_per_point, " x ",
        absl::FormatDuration(s.interval), ", another host's of ",
        shape_.ticks_per_point, " x ", absl::FormatDuration(shape_.interval));
    return;
  }
  complete_ = std::min(complete_, CompleteIntervals(s));
  points_.resize(complete_);
  for (size_t k = 0; k < complete_; ++k) {
    AddSeriesCounts(s.points[k], &points_[k].sum);
    points_[k].start_seconds += absl::ToDoubleSeconds(s.points[k].start);
    points_[k].length_seconds += absl::ToDoubleSeconds(s.points[k].length);
  }
}

absl::StatusOr<v1::Series> SeriesMerger::Result(
    const std::vector<std::string>& hosts) const {
  absl::MutexLock lock(&mu_);
  if (!unmergeable_.empty()) return absl::FailedPreconditionError(unmergeable_);
  const std::set<std::string> want(hosts.begin(), hosts.end());
  for (const std::string& h : want) {
    if (hosts_.count(h) == 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          h, " is in the report but its final series was not folded in (it "
             "did not finish)"));
    }
  }
  for (const std::string& h : hosts_) {
    if (want.count(h) == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(h, "'s series was folded in but it is not in the report"));
    }
  }
  Series out;
  out.interval = shape_.interval;
  out.ticks_per_point = shape_.ticks_per_point;
  out.downsampled = shape_.ticks_per_point > 1;
  const double n = static_cast<double>(hosts_.size());
  for (const Point& p : points_) {
    SeriesPoint& q = out.points.emplace_back(p.sum);
    q.start = absl::Seconds(p.start_seconds / n);
    q.length = absl::Seconds(p.length_seconds / n);
    FillSeriesPercentiles(&q);
  }
  out.hosts = static_cast<int>(hosts_.size());
  v1::Series proto;
  SeriesToProto(out, &proto);
  return proto;
}

}  // namespace blkperf::fleet
