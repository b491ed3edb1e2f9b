// Steady state (fio's steadystate / ss, with a gate): a criterion on a
// sliding window of a result's series intervals, checked off the hot path
// by the engine's series thread after every check interval.
//
// Criteria, as fio defines them (fio's steadystate.c), on the window's
// samples x_1..x_n (one per series interval; n = window / interval):
//   iops, bw, lat, p99            every sample within the limit of the
//       window's mean: max |x_i - mean| < limit (a percentage: of the mean)
//   iops_slope, bw_slope, lat_slope, p99_slope   the least-squares slope of
//       the samples over time, per second, within the limit:
//       |slope| < limit (a percentage: |slope| / mean * 100 < limit)
// iops: I/Os completed per second; bw: bytes per second; lat: the mean
// latency (total, docs/numbers.md) of the interval's I/Os; p99: its 99th
// percentile from the interval's own histogram. An interval without I/O
// counts 0 (never steady in a percentage).
//
//   absl::StatusOr<SteadyStateCriterion> c =
//       ParseSteadyStateCriterion("iops:5%");
//   SteadyStateChecker checker(spec.steady_state, spec.series_interval);
//   for (each interval's SeriesPoint p) {
//     const SteadyStateChecker::Event e = checker.Add(p);
//     if (e == SteadyStateChecker::Event::kAttained) ...
//   }
//   SteadyStateResult r = checker.result();
#ifndef BLKPERF_MODEL_STEADY_STATE_H_
#define BLKPERF_MODEL_STEADY_STATE_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "model/series.h"

namespace blkperf {

enum class SteadyMetric { kIops, kBandwidth, kLatency, kP99 };
enum class SteadyStateMode {
  kStop,  // the run ends once steady state is attained
  kGate,  // measuring (totals, histograms, phases) begins at attainment
};

absl::string_view SteadyStateModeName(SteadyStateMode mode);  // "stop"...
bool ParseSteadyStateMode(absl::string_view text, SteadyStateMode* mode);

struct SteadyStateCriterion {
  SteadyMetric metric = SteadyMetric::kIops;
  bool slope = false;  // the *_slope form; else the deviation form
  // The limit: a percentage of the window's mean when `percent`, else in
  // the metric's unit (IOPS; bytes/s; ns for lat and p99), per second for
  // a slope.
  double limit = 0;
  bool percent = true;

  bool operator==(const SteadyStateCriterion&) const = default;
};

// "iops:5%", "iops_slope:0.5%", "bw:10%", "bw_slope:1048576",
// "lat:20us", "lat_slope:2%", "p99:10%", "p99_slope:1%". A percentage in
// (0, 100]; an absolute limit > 0: a plain number for iops and bw (bw:
// bytes/s, units such as 64MiB allowed), a duration for lat and p99 (lat
// slopes: per second). InvalidArgument naming `field` and the reason.
absl::StatusOr<SteadyStateCriterion> ParseSteadyStateCriterion(
    absl::string_view text, absl::string_view field = "steady_state");
// The canonical text ParseSteadyStateCriterion() accepts.
std::string SteadyStateCriterionName(const SteadyStateCriterion& c);

// The most series intervals a window holds (the checker keeps one double
// per interval of the window).
inline constexpr size_t kMaxSteadyStateSamples = 1000;

// WorkloadSpec::steady_state.
struct SteadyStateSpec {
  bool enabled = false;
  SteadyStateCriterion criterion;
  // The window checked: this many series intervals' samples. fio's ss_dur.
  absl::Duration window = absl::Seconds(30);
  // How often the window is checked; zero: every series interval. A
  // multiple of series_interval, as the window.
  absl::Duration check = absl::ZeroDuration();
  SteadyStateMode mode = SteadyStateMode::kStop;

  bool operator==(const SteadyStateSpec&) const = default;
};

// One window checked.
struct SteadyWindowFigures {
  int samples = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  // max |x_i - mean| (deviation form), and the least-squares slope per
  // second (both forms compute it).
  double deviation = 0;
  double slope = 0;
  // What the limit is compared with: deviation or |slope|, as a
  // percentage of the mean when the limit is one (infinite for a mean of 0).
  double value = 0;
  double limit = 0;
  bool met = false;
};

// The value of `metric` in one interval.
double SteadyMetricValue(SteadyMetric metric, const SeriesPoint& point);

// Checks `samples` (one per `interval`, oldest first) against `c`.
SteadyWindowFigures CheckSteadyWindow(const SteadyStateCriterion& c,
                                      const std::vector<double>& samples,
                                      absl::Duration interval);

// "iops deviation 14.0% > 5%", "iops slope 0.2%/s < 0.5%/s".
std::string SteadyFiguresText(const SteadyStateCriterion& c,
                              const SteadyWindowFigures& f);

// What a result says about steady state.
struct SteadyStateResult {
  bool enabled = false;
  std::string criterion;  // SteadyStateCriterionName
  std::string mode;       // "stop" or "gate"
  absl::Duration window;
  absl::Duration check;
  int checks = 0;  // windows checked
  bool attained = false;
  // Since the series began (the end of ramp_time): the end of the window
  // that first met the criterion.
  absl::Duration attained_at;
  // The attaining window's figures; until then the last window checked.
  SteadyWindowFigures figures;
  // After attainment a later window failed the criterion (the first one).
  bool left = false;
  absl::Duration left_at;
  SteadyWindowFigures left_figures;
  // "left steady state at t=41s: iops deviation 14.0% > 5%"; empty when
  // not left.
  std::string warning;
};

// Feeds the series intervals in order; checks the window after every
// check interval once the window is full. Not thread-safe.
class SteadyStateChecker {
 public:
  enum class Event { kNone, kAttained, kLeft };
  // REQUIRES: spec.enabled; window and check multiples of `interval` (the
  // spec's validation checks).
  SteadyStateChecker(const SteadyStateSpec& spec, absl::Duration interval);

  Event Add(const SeriesPoint& point);
  const SteadyStateResult& result() const { return result_; }

 private:
  const SteadyStateCriterion criterion_;
  const absl::Duration interval_;
  const size_t window_samples_;
  const int64_t check_every_;
  int64_t intervals_ = 0;
  std::deque<double> samples_;
  SteadyStateResult result_;
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_STEADY_STATE_H_
