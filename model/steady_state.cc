#include "model/steady_state.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/units.h"

namespace blkperf {
namespace {

struct MetricName {
  SteadyMetric metric;
  absl::string_view name;
};
constexpr MetricName kMetrics[] = {
    {SteadyMetric::kIops, "iops"},
    {SteadyMetric::kBandwidth, "bw"},
    {SteadyMetric::kLatency, "lat"},
    {SteadyMetric::kP99, "p99"},
};

absl::string_view MetricText(SteadyMetric metric) {
  for (const MetricName& m : kMetrics) {
    if (m.metric == metric) return m.name;
  }
  return "?";
}

bool IsDurationMetric(SteadyMetric metric) {
  return metric == SteadyMetric::kLatency || metric == SteadyMetric::kP99;
}

absl::Status Invalid(absl::string_view field, absl::string_view text,
                     absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      field, " \"", absl::CEscape(text.substr(0, 64)), "\": ", why));
}

// The absolute limit `value` in the metric's unit; false when malformed.
bool ParseAbsoluteLimit(SteadyMetric metric, absl::string_view value,
                        double* limit) {
  if (IsDurationMetric(metric)) {
    absl::Duration d;
    if (!absl::ParseDuration(value, &d)) return false;
    *limit = absl::ToDoubleNanoseconds(d);
    return true;
  }
  if (absl::SimpleAtod(value, limit)) return true;
  uint64_t bytes = 0;
  if (metric != SteadyMetric::kBandwidth || !ParseSize(value, &bytes)) {
    return false;
  }
  *limit = static_cast<double>(bytes);
  return true;
}

// The limit in the metric's unit, for text.
std::string UnitText(SteadyMetric metric, double value) {
  switch (metric) {
    case SteadyMetric::kIops:
      return FormatCount(value);
    case SteadyMetric::kBandwidth:
      return absl::StrCat(FormatBytes(value), "/s");
    default:
      return FormatNanos(value);
  }
}

}  // namespace

absl::string_view SteadyStateModeName(SteadyStateMode mode) {
  return mode == SteadyStateMode::kGate ? "gate" : "stop";
}

bool ParseSteadyStateMode(absl::string_view text, SteadyStateMode* mode) {
  if (text == "stop") {
    *mode = SteadyStateMode::kStop;
  } else if (text == "gate") {
    *mode = SteadyStateMode::kGate;
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<SteadyStateCriterion> ParseSteadyStateCriterion(
    absl::string_view text, absl::string_view field) {
  const std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits(':', 1));
  if (parts.size() != 2) {
    return Invalid(field, text,
                   "expected METRIC:LIMIT, e.g. iops:5% (metrics iops, bw, "
                   "lat, p99, each also as *_slope)");
  }
  SteadyStateCriterion c;
  absl::string_view name = parts[0];
  c.slope = absl::ConsumeSuffix(&name, "_slope");
  bool known = false;
  for (const MetricName& m : kMetrics) {
    if (m.name == name) {
      c.metric = m.metric;
      known = true;
    }
  }
  if (!known) {
    return Invalid(field, text,
                   "unknown metric (iops, iops_slope, bw, bw_slope, lat, "
                   "lat_slope, p99, p99_slope)");
  }
  absl::string_view value = parts[1];
  c.percent = absl::ConsumeSuffix(&value, "%");
  const bool parsed = c.percent ? absl::SimpleAtod(value, &c.limit)
                                : ParseAbsoluteLimit(c.metric, value, &c.limit);
  if (!parsed || !std::isfinite(c.limit)) {
    return Invalid(field, text,
                   IsDurationMetric(c.metric)
                       ? "the limit is a percentage (5%) or a duration (20us)"
                       : "the limit is a percentage (5%) or a number");
  }
  if (c.limit <= 0 || (c.percent && c.limit > 100)) {
    return Invalid(field, text,
                   c.percent ? "a percentage limit is in (0, 100]"
                             : "the limit must be above 0");
  }
  return c;
}

std::string SteadyStateCriterionName(const SteadyStateCriterion& c) {
  std::string limit;
  if (c.percent) {
    limit = absl::StrCat(c.limit, "%");
  } else if (IsDurationMetric(c.metric)) {
    limit = absl::FormatDuration(absl::Nanoseconds(c.limit));
  } else {
    limit = absl::StrCat(c.limit);
  }
  return absl::StrCat(MetricText(c.metric), c.slope ? "_slope" : "", ":",
                      limit);
}

double SteadyMetricValue(SteadyMetric metric, const SeriesPoint& point) {
  switch (metric) {
    case SteadyMetric::kIops:
      return point.ReadIops() + point.WriteIops();
    case SteadyMetric::kBandwidth:
      return point.ReadBytesPerSecond() + point.WriteBytesPerSecond();
    case SteadyMetric::kLatency: {
      uint64_t count = 0;
      for (const auto& [bucket, n] : point.latency_buckets) count += n;
      return count == 0 ? 0
                        : static_cast<double>(point.latency_sum_ns) /
                              static_cast<double>(count);
    }
    case SteadyMetric::kP99:
      return static_cast<double>(point.p99_ns);
  }
  return 0;
}

SteadyWindowFigures CheckSteadyWindow(const SteadyStateCriterion& c,
                                      const std::vector<double>& samples,
                                      absl::Duration interval) {
  SteadyWindowFigures f;
  f.samples = static_cast<int>(samples.size());
  f.limit = c.limit;
  if (samples.empty()) return f;
  const double n = static_cast<double>(samples.size());
  double sum = 0;
  for (double x : samples) sum += x;
  f.mean = sum / n;
  f.min = *std::min_element(samples.begin(), samples.end());
  f.max = *std::max_element(samples.begin(), samples.end());
  for (double x : samples) f.deviation = std::max(f.deviation, std::fabs(x - f.mean));
  // Least squares over x_i = i * interval (seconds).
  const double dt = absl::ToDoubleSeconds(interval);
  const double x_mean = (n - 1) / 2 * dt;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double dx = static_cast<double>(i) * dt - x_mean;
    sxy += dx * (samples[i] - f.mean);
    sxx += dx * dx;
  }
  f.slope = sxx > 0 ? sxy / sxx : 0;
  const double raw = c.slope ? std::fabs(f.slope) : f.deviation;
  if (!c.percent) {
    f.value = raw;
  } else if (f.mean > 0) {
    f.value = 100 * raw / f.mean;
  } else {
    f.value = std::numeric_limits<double>::infinity();
  }
  // As fio: strictly below the limit; a slope needs two samples.
  f.met = f.value < c.limit && (!c.slope || samples.size() >= 2);
  return f;
}

std::string SteadyFiguresText(const SteadyStateCriterion& c,
                              const SteadyWindowFigures& f) {
  const absl::string_view what = c.slope ? "slope" : "deviation";
  const absl::string_view per = c.slope ? "/s" : "";
  const absl::string_view cmp = f.met ? " < " : " >= ";
  std::string value, limit;
  if (c.percent) {
    value = std::isfinite(f.value) ? absl::StrFormat("%.2f%%", f.value)
                                   : std::string("inf% (mean 0)");
    limit = absl::StrCat(c.limit, "%");
  } else {
    value = UnitText(c.metric, f.value);
    limit = UnitText(c.metric, c.limit);
  }
  return absl::StrCat(MetricText(c.metric), " ", what, " ", value, per, cmp,
                      limit, per, " (mean ", UnitText(c.metric, f.mean),
                      ", range ", UnitText(c.metric, f.min), "..",
                      UnitText(c.metric, f.max), ", ", f.samples,
                      " samples)");
}

SteadyStateChecker::SteadyStateChecker(const SteadyStateSpec& spec,
                                       absl::Duration interval)
    : criterion_(spec.criterion),
      interval_(interval),
      window_samples_(static_cast<size_t>(
          std::max<int64_t>(1, spec.window / interval))),
      check_every_(spec.check > absl::ZeroDuration()
                       ? std::max<int64_t>(1, spec.check / interval)
                       : 1) {
  result_.enabled = true;
  result_.criterion = SteadyStateCriterionName(spec.criterion);
  result_.mode = std::string(SteadyStateModeName(spec.mode));
  result_.window = spec.window;
  result_.check = check_every_ * interval;
}

SteadyStateChecker::Event SteadyStateChecker::Add(const SeriesPoint& point) {
  samples_.push_back(SteadyMetricValue(criterion_.metric, point));
  if (samples_.size() > window_samples_) samples_.pop_front();
  ++intervals_;
  if (samples_.size() < window_samples_ || intervals_ % check_every_ != 0) {
    return Event::kNone;
  }
  const SteadyWindowFigures f = CheckSteadyWindow(
      criterion_, std::vector<double>(samples_.begin(), samples_.end()),
      interval_);
  ++result_.checks;
  const absl::Duration at = intervals_ * interval_;
  if (!result_.attained) {
    result_.figures = f;
    if (!f.met) return Event::kNone;
    result_.attained = true;
    result_.attained_at = at;
    return Event::kAttained;
  }
  if (f.met || result_.left) return Event::kNone;
  result_.left = true;
  result_.left_at = at;
  result_.left_figures = f;
  result_.warning =
      absl::StrCat("left steady state at t=", absl::FormatDuration(at), ": ",
                   SteadyFiguresText(criterion_, f));
  return Event::kLeft;
}

}  // namespace blkperf
