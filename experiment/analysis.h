// An experiment's samples turned into answers: for each arm against the
// baseline and each metric, the paired ratio with its interval and verdict,
// and the guardrails that mark a verdict suspect (with the reason) or state
// a fact about the run.
//
//   ExperimentInput in;  // arms, order, per-round samples, margin ...
//   in.samples[arm].push_back(RoundSample{...});
//   ExperimentResult result = Analyze(in);
//   std::cout << FormatExperimentText(result);  // experiment/format.h
#ifndef BLKPERF_EXPERIMENT_ANALYSIS_H_
#define BLKPERF_EXPERIMENT_ANALYSIS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "experiment/latency_bootstrap.h"
#include "experiment/statistics.h"

namespace blkperf {

// The metrics every round records, each with its better side.
enum class Metric { kIops, kBytesPerSecond, kCpuPerIo, kP50, kP99, kP999 };
inline constexpr int kMetricCount = 6;
struct MetricInfo {
  Metric metric;
  absl::string_view key;    // JSON key and --metric name: "iops", "p99_ns"
  absl::string_view label;  // text table: "IOPS", "p99"
  Better better;
};
// In the order of the enum.
const std::array<MetricInfo, kMetricCount>& Metrics();
const MetricInfo& InfoOf(Metric metric);

// --metric=iops|bytes_per_second|cpu_us_per_io|p50_ns|p99_ns|p99_9_ns.
// InvalidArgument naming --metric and the choices.
absl::StatusOr<Metric> ParseMetric(absl::string_view name);

// One arm's values in one round, indexed by Metric: IOPS, bytes per second,
// CPU microseconds per I/O (submitter user + system + io-wq workers), and
// the total latency's p50, p99 and p99.9 in nanoseconds.
using RoundSample = std::array<double, kMetricCount>;

// The fewest samples per arm below which a verdict is suspect.
inline constexpr int kMinSamplesPerArm = 9;

struct ExperimentInput {
  std::string field;                    // the varied spec field
  std::vector<std::string> arm_names;   // [0] is the baseline
  std::vector<std::string> arm_values;
  std::vector<std::vector<int>> order;  // per round, the arms in run order
  // samples[arm][round], rounds in the order they ran.
  std::vector<std::vector<RoundSample>> samples;
  double margin = 0.02;
  double confidence = 0.95;
  uint64_t seed = 0;  // the order's (--experiment_seed)
  Metric headline = Metric::kIops;
  absl::Duration round;
  absl::Duration ramp;
  // The CPU frequency governor of the submitter CPUs; "" when unknown (no
  // cpufreq, as on most VMs): a fact, not by itself a reason for suspicion.
  std::string governor;
  // latency[arm][round]: each round's total-latency histogram. Where every
  // round of an arm and the baseline has I/Os, the p50/p99/p99.9 ratios
  // and intervals come from resampled exact merges (latency_bootstrap.h);
  // otherwise (empty) each round's percentile is the sample.
  std::vector<std::vector<CompactHistogram>> latency;
  // device_requests_per_sqe[arm][round]: the target devices' completed
  // requests per SQE in the round (DeviceCounters), NaN where unknown
  // (tmpfs); empty: not recorded. A round well above its arm's quiet rounds is
  // other I/O on the device.
  std::vector<std::vector<double>> device_requests_per_sqe;
  // other_cpu_share[arm][round]: the share of the submitter CPUs' time
  // other processes (and a hypervisor's steal) took in the round, NaN
  // where unknown; empty: not measured (live arms). A round over the
  // margin marks the arm suspect.
  std::vector<std::vector<double>> other_cpu_share;
  // Live arms (one workload switching them, runner.h): each switch's
  // lateness against its instant.
  bool live = false;
  std::vector<absl::Duration> switch_lateness;
  // --until=decided (stopping.h): the rule's looks and the stated level;
  // `confidence` above is then each look's. Empty: a fixed number of rounds.
  std::vector<int> looks;
  double family_confidence = 0;
  int max_rounds = 0;
};

struct MetricResult {
  Metric metric = Metric::kIops;
  std::vector<double> samples;  // per round, in the order they ran
  double median = 0;
  // Not for the baseline. `comparable` is false when a round's value is 0
  // on either side (no ratio; e.g. latency with latency_tracking off).
  bool comparable = false;
  RatioEstimate estimate;
  // Latency from merged histograms: `merged` is the percentile of all the
  // arm's rounds' I/Os (its histograms merged), and `estimate` the ratio of
  // merged percentiles with a resampled-merge interval.
  bool from_merges = false;
  double merged = 0;
  Verdict verdict = Verdict::kInconclusive;
  int more_rounds = 0;  // inconclusive only; -1: no number of rounds would
};

struct ArmResult {
  std::string name;
  std::string value;
  bool baseline = false;
  std::array<MetricResult, kMetricCount> metrics;
  // The headline metric's verdict and whether any guardrail on this arm (or
  // on the whole experiment) marks it suspect.
  Verdict verdict = Verdict::kInconclusive;
  bool suspect = false;
};

struct Guardrail {
  int arm = -1;          // -1: the whole experiment
  // "samples", "trend", "outliers", "bimodal", "device_io", "other_cpu",
  // "late_switches", "governor"
  std::string kind;
  bool suspect = false;  // false: a fact only
  std::string message;
};

struct ExperimentResult {
  ExperimentInput input;
  std::vector<ArmResult> arms;
  std::vector<Guardrail> guardrails;
  int rounds = 0;
  // rounds x arms x (ramp + round): the experiment's measured-and-ramp time.
  absl::Duration total;
};

// A live switch later than this share of a slice after its instant marks
// the experiment suspect (the engine aims within 1 %: workload.cc).
inline constexpr double kLateSwitchShare = 0.01;

// REQUIRES: at least two arms, every arm with the same number of rounds
// (at least one), 0 < confidence < 1, 0 <= margin < 1; `latency` and
// `device_requests_per_sqe` and `other_cpu_share` empty or shaped as
// `samples` (`other_cpu_share`'s arms may each be empty).
ExperimentResult Analyze(const ExperimentInput& input);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_ANALYSIS_H_
