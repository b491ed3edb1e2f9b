#include "model/slo_search.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blkperf {

SloSearch::SloSearch(const SloTarget& target, double precision,
                     absl::Duration step, absl::Duration settle) {
  summary_.enabled = true;
  summary_.target = target;
  summary_.precision = precision;
  summary_.step = step;
  summary_.settle = settle;
}

std::optional<double> SloSearch::NextRate() const {
  if (summary_.done) return std::nullopt;
  if (summary_.steps.empty()) return 0.0;
  return (lo_ + hi_) / 2;
}

void SloSearch::Record(SloStep step) {
  step.met = step.ios != 0 && summary_.target.Met(step.value_ns);
  const bool closed = summary_.steps.empty();
  summary_.steps.push_back(step);
  if (closed) {
    summary_.max_iops = step.iops;
    lo_ = 0;
    hi_ = step.iops;
    summary_.failed_iops = hi_;
    if (step.ios == 0) {
      Finish("the closed-loop step completed no I/O: nothing to search");
    }
    return;
  }
  if (step.met) {
    lo_ = step.asked_iops;
    summary_.best_iops = lo_;
    summary_.best_achieved_iops = step.iops;
  } else {
    hi_ = step.asked_iops;
    summary_.failed_iops = hi_;
  }
  // (The tolerance absorbs rounding of the midpoints: the bracket halves
  // exactly in real numbers.)
  if (hi_ - lo_ <= summary_.precision * summary_.max_iops * (1 + 1e-9)) {
    Finish(lo_ == 0 ? absl::StrCat("no rate tested met ",
                                   SloTargetName(summary_.target),
                                   " (the lowest missed was ",
                                   absl::StrFormat("%.0f", hi_), " IOPS)")
                    : "");
  } else if (static_cast<int>(summary_.steps.size()) >= kMaxSloSteps) {
    Finish(absl::StrCat("stopped after ", kMaxSloSteps,
                        " steps before reaching the precision"));
  }
}

void SloSearch::Finish(std::string note) {
  summary_.done = true;
  summary_.note = std::move(note);
  FindKnee();
}

void SloSearch::FindKnee() {
  std::vector<std::pair<double, double>> points;
  for (const SloStep& s : summary_.steps) {
    if (s.asked_iops > 0) {
      points.emplace_back(s.asked_iops, static_cast<double>(s.value_ns));
    }
  }
  summary_.knee_iops = KneeRate(std::move(points));
}

double KneeRate(std::vector<std::pair<double, double>> points) {
  if (points.size() < 3) return 0;
  std::sort(points.begin(), points.end());
  for (size_t i = 1; i < points.size(); ++i) {
    points[i].second = std::max(points[i].second, points[i - 1].second);
  }
  const double x0 = points.front().first, x1 = points.back().first;
  const double y0 = points.front().second, y1 = points.back().second;
  if (!(x1 > x0) || !(y1 > y0)) return 0;
  double best = 0, knee = 0;
  for (const auto& [x, y] : points) {
    const double distance = (x - x0) / (x1 - x0) - (y - y0) / (y1 - y0);
    if (distance > best) {
      best = distance;
      knee = x;
    }
  }
  return knee;
}

}  // namespace blkperf
