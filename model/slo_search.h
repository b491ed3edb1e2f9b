// The search for the highest open-loop rate whose latency objective holds
// (`--slo=p99<1ms`), as a state machine the workload's control thread
// drives step by step; it knows nothing of rings or clocks, so tests drive
// it with a model of a device.
//
//   SloSearch search(ParseSloTarget("p99<1ms", "slo").value(), 0.05);
//   while (std::optional<double> rate = search.NextRate()) {
//     SloStep step = Measure(*rate);   // 0: closed loop, else I/Os per second
//     search.Record(step);
//   }
//   const SloSummary& result = search.summary();
//
// The steps:
//   1. a closed-loop step (as fast as the queue depth allows) measures the
//      largest IOPS, max_iops: no open-loop rate above it can be sustained;
//   2. bisection over open-loop rates in (0, max_iops): a step whose
//      percentile of the intended-time latency meets the bound raises the
//      lower end `best_iops`, one that misses lowers the upper end
//      `failed_iops`; it stops once failed_iops - best_iops <= precision x
//      max_iops (so about log2(1 / precision) open-loop steps) or after
//      kMaxSloSteps steps.
//   3. a step's verdict comes from the 95% order-statistic interval of its
//      percentile (its tail-sample count shown): met when the interval lies
//      within the bound, missed when it lies outside, undecided when it
//      straddles it; an undecided step is repeated once at the same rate,
//      and one still undecided counts as not met (the answer is a rate
//      shown to meet the objective);
//   4. the final bracket (best_iops, and failed_iops when tested) is re-run;
//      a re-test that disagrees with the first verdict sets `warning`.
// The answer is best_iops (0 when no tested rate met the bound) with the
// bracket it is known to: the objective holds there and fails at
// failed_iops (failed_iops = max_iops when no tested rate failed).
//
// The knee: over the open-loop steps sorted by asked rate, the SLO
// percentile made non-decreasing (each point takes the highest latency
// measured at or below its rate, so one noisy step cannot fold the curve),
// then rate and latency scaled to [0, 1] over the tested range; the knee is
// the step farthest below the diagonal, where latency starts to climb (the
// Kneedle rule for an increasing convex curve). None with fewer than 3
// open-loop steps or a flat curve.
#ifndef BLKPERF_MODEL_SLO_SEARCH_H_
#define BLKPERF_MODEL_SLO_SEARCH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "model/io_shape.h"

namespace blkperf {

inline constexpr int kMaxSloSteps = 32;
// The confidence of a step's percentile interval.
inline constexpr double kSloConfidence = 0.95;

// met: the whole interval meets the bound; missed: none of it does;
// undecided: it straddles the bound (or has no upper end).
enum class SloVerdict { kMet, kMissed, kUndecided };
const char* SloVerdictName(SloVerdict verdict);

// One measured step. Latencies are of the intended-time histogram in open
// loop, of the service-time one in the closed-loop step (there the two are
// the same: each I/O is issued the moment a slot frees).
struct SloStep {
  double asked_iops = 0;  // 0: the closed-loop step
  double iops = 0;        // achieved over the step's measured window
  uint64_t ios = 0;
  uint64_t late_ios = 0;  // issued late because the queue was full
  uint64_t p50_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t p99_9_ns = 0;
  uint64_t value_ns = 0;  // the objective's percentile
  bool met = false;       // verdict == kMet (set by Record)
  absl::Duration elapsed; // the step's measured window
  // The objective percentile's confidence interval (percentile_interval.h),
  // from the step's histogram; interval_known false: the verdict rests on
  // value_ns alone (steps from before intervals were measured).
  bool interval_known = false;
  uint64_t tail_ios = 0;      // I/Os above the percentile's rank
  uint64_t value_low_ns = 0;
  uint64_t value_high_ns = 0;
  bool value_bounded_above = false;  // false: too few tail I/Os for a bound
  SloVerdict verdict = SloVerdict::kMissed;  // set by Record
  bool retest = false;        // a re-test of the final bracket

  bool operator==(const SloStep&) const = default;
};

struct SloSummary {
  bool enabled = false;
  SloTarget target;
  double precision = 0.05;
  absl::Duration step = absl::Seconds(2);
  absl::Duration settle = absl::Milliseconds(250);
  std::vector<SloStep> steps;  // in the order they ran
  bool done = false;
  double max_iops = 0;     // the closed-loop step's IOPS
  double best_iops = 0;    // highest asked rate that met the objective
  double best_achieved_iops = 0;  // what that step achieved
  double failed_iops = 0;  // lowest asked rate above best_iops that missed
  double knee_iops = 0;    // 0: no knee (see above)
  std::string note;        // why the search ended early, if it did
  // The met step's percentile interval at best_iops (0, 0: no answer).
  uint64_t best_value_low_ns = 0;
  uint64_t best_value_high_ns = 0;
  // Set when a repeat disagreed: a re-test of the final bracket, or an
  // undecided step repeated; the answer is then less certain than its
  // bracket says.
  std::string warning;

  bool operator==(const SloSummary&) const = default;
};

class SloSearch {
 public:
  // REQUIRES: 0 < precision < 1. `step` and `settle` are recorded in the
  // summary (the caller times the steps).
  SloSearch(const SloTarget& target, double precision,
            absl::Duration step = absl::Seconds(2),
            absl::Duration settle = absl::Milliseconds(250));

  // The rate of the next step (0: closed loop), or nullopt when done.
  std::optional<double> NextRate() const;
  // The step measured at NextRate()'s rate. Sets step.met.
  void Record(SloStep step);

  const SloSummary& summary() const { return summary_; }

 private:
  void Finish(std::string note);
  void FindKnee();
  void RecordBisection(const SloStep& step);
  void RecordRetest(const SloStep& step);
  void Converged();
  void Warn(const std::string& warning);

  SloSummary summary_;
  double lo_ = 0;  // highest met rate so far
  double hi_ = 0;  // lowest missed rate so far (max_iops until one misses)
  bool repeating_ = false;      // the next step repeats an undecided one
  std::vector<double> retests_; // the final bracket's rates still to re-test
};

// The knee of (rate, latency) points as described above; 0 when none.
double KneeRate(std::vector<std::pair<double, double>> points);

}  // namespace blkperf

#endif  // BLKPERF_MODEL_SLO_SEARCH_H_
