#include "model/slo_search.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blkperf {

const char* SloVerdictName(SloVerdict verdict) {
  switch (verdict) {
    case SloVerdict::kMet:
      return "met";
    case SloVerdict::kMissed:
      return "missed";
    case SloVerdict::kUndecided:
      return "undecided";
  }
  return "?";
}

namespace {

SloVerdict VerdictOf(const SloTarget& target, const SloStep& step) {
  if (step.ios == 0) return SloVerdict::kMissed;
  if (!step.interval_known) {
    return target.Met(step.value_ns) ? SloVerdict::kMet : SloVerdict::kMissed;
  }
  if (step.value_bounded_above && target.Met(step.value_high_ns)) {
    return SloVerdict::kMet;
  }
  if (!target.Met(step.value_low_ns)) return SloVerdict::kMissed;
  return SloVerdict::kUndecided;
}

std::string Iops(double rate) { return absl::StrFormat("%.0f IOPS", rate); }

}  // namespace

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
  if (repeating_) return summary_.steps.back().asked_iops;
  if (!retests_.empty()) return retests_.front();
  return (lo_ + hi_) / 2;
}

void SloSearch::Record(SloStep step) {
  step.verdict = VerdictOf(summary_.target, step);
  step.met = step.verdict == SloVerdict::kMet;
  const bool closed = summary_.steps.empty();
  if (closed) {
    summary_.steps.push_back(step);
    summary_.max_iops = step.iops;
    lo_ = 0;
    hi_ = step.iops;
    summary_.failed_iops = hi_;
    if (step.ios == 0) {
      Finish("the closed-loop step completed no I/O: nothing to search");
    }
    return;
  }
  if (!retests_.empty() && !repeating_) {
    step.retest = true;
    summary_.steps.push_back(step);
    RecordRetest(step);
  } else {
    summary_.steps.push_back(step);
    RecordBisection(step);
  }
  if (!summary_.done &&
      static_cast<int>(summary_.steps.size()) >= kMaxSloSteps) {
    Finish(absl::StrCat("stopped after ", kMaxSloSteps,
                        " steps before reaching the precision"));
  }
}

void SloSearch::RecordBisection(const SloStep& step) {
  if (step.verdict == SloVerdict::kUndecided && !repeating_) {
    repeating_ = true;  // once more at the same rate
    return;
  }
  if (repeating_) {
    if (step.verdict != SloVerdict::kUndecided) {
      Warn(absl::StrCat("the step at ", Iops(step.asked_iops),
                        " was undecided, its repeat ",
                        SloVerdictName(step.verdict)));
    }
    repeating_ = false;
  }
  if (step.met) {
    lo_ = step.asked_iops;
    summary_.best_iops = lo_;
    summary_.best_achieved_iops = step.iops;
    summary_.best_value_low_ns = step.value_low_ns;
    summary_.best_value_high_ns = step.value_high_ns;
  } else {
    hi_ = step.asked_iops;
    summary_.failed_iops = hi_;
  }
  // (The tolerance absorbs rounding of the midpoints: the bracket halves
  // exactly in real numbers.)
  if (hi_ - lo_ <= summary_.precision * summary_.max_iops * (1 + 1e-9)) {
    Converged();
  }
}

void SloSearch::Converged() {
  if (lo_ == 0) {
    summary_.note = absl::StrCat("no rate tested met ",
                                 SloTargetName(summary_.target),
                                 " (the lowest missed was ", Iops(hi_), ")");
  }
  if (lo_ > 0) retests_.push_back(lo_);
  if (hi_ < summary_.max_iops) retests_.push_back(hi_);
  if (retests_.empty()) Finish(summary_.note);
}

void SloSearch::RecordRetest(const SloStep& step) {
  const double rate = retests_.front();
  retests_.erase(retests_.begin());
  const bool was_met = rate == lo_ && lo_ > 0;
  if (step.met != was_met) {
    Warn(absl::StrCat("the re-test at ", Iops(rate), " ",
                      SloVerdictName(step.verdict), " where its first step ",
                      was_met ? "met" : "did not meet", " the objective"));
  }
  if (retests_.empty()) Finish(summary_.note);
}

void SloSearch::Warn(const std::string& warning) {
  if (!summary_.warning.empty()) absl::StrAppend(&summary_.warning, "; ");
  absl::StrAppend(&summary_.warning, warning);
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
