#include "experiment/analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace blkperf {

const std::array<MetricInfo, kMetricCount>& Metrics() {
  static const std::array<MetricInfo, kMetricCount> kMetrics = {{
      {Metric::kIops, "iops", "IOPS", Better::kHigher},
      {Metric::kBytesPerSecond, "bytes_per_second", "BW", Better::kHigher},
      {Metric::kCpuPerIo, "cpu_us_per_io", "CPU/IO", Better::kLower},
      {Metric::kP50, "p50_ns", "p50", Better::kLower},
      {Metric::kP99, "p99_ns", "p99", Better::kLower},
      {Metric::kP999, "p99_9_ns", "p99.9", Better::kLower},
  }};
  return kMetrics;
}

const MetricInfo& InfoOf(Metric metric) {
  return Metrics()[static_cast<size_t>(metric)];
}

absl::StatusOr<Metric> ParseMetric(absl::string_view name) {
  std::vector<absl::string_view> keys;
  for (const MetricInfo& info : Metrics()) {
    if (info.key == name) return info.metric;
    keys.push_back(info.key);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--metric=", name, ": not one of ", absl::StrJoin(keys, ", ")));
}

namespace {

std::vector<double> Column(const std::vector<RoundSample>& rounds,
                           Metric metric) {
  std::vector<double> values;
  values.reserve(rounds.size());
  for (const RoundSample& s : rounds) {
    values.push_back(s[static_cast<size_t>(metric)]);
  }
  return values;
}

bool AllPositive(const std::vector<double>& values) {
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return false;
  }
  return !values.empty();
}

MetricResult CompareMetric(const std::vector<double>& baseline,
                           std::vector<double> arm, Metric metric,
                           const ExperimentInput& in, bool is_baseline) {
  MetricResult result;
  result.metric = metric;
  result.median = Quantile(arm, 0.5);
  result.samples = std::move(arm);
  if (is_baseline || !AllPositive(baseline) || !AllPositive(result.samples)) {
    return result;
  }
  result.comparable = true;
  result.estimate = PairedRatio(baseline, result.samples, in.confidence);
  result.verdict = Decide(result.estimate.ci_lo, result.estimate.ci_hi,
                          in.margin, InfoOf(metric).better);
  if (result.verdict == Verdict::kInconclusive) {
    result.more_rounds = MoreRoundsToDecide(result.estimate, in.margin);
  }
  return result;
}

// Other I/O on the targets' devices: rounds whose device requests per SQE
// rise above the arm's quiet level by more than 0.01 and the margin (the
// arm's own I/O gives the same requests per SQE every round). The quiet
// level is the lower quartile of the arm's rounds, not its lowest: one
// round read low (0.85 against 1.01 on zram, loaded) made every other
// round of the arm look like other I/O.
void DeviceGuardrail(const ExperimentInput& in, int arm,
                     std::vector<Guardrail>* out) {
  if (in.device_requests_per_sqe.empty()) return;
  const std::vector<double>& per_round =
      in.device_requests_per_sqe[static_cast<size_t>(arm)];
  std::vector<double> known;
  for (double r : per_round) {
    if (std::isfinite(r)) known.push_back(r);
  }
  if (known.empty()) return;
  const double quiet_level = Quantile(known, 0.25);
  std::vector<int> rounds;
  double worst = quiet_level;
  for (size_t i = 0; i < per_round.size(); ++i) {
    const double r = per_round[i];
    if (std::isfinite(r) && r - quiet_level > std::max(0.01, in.margin * quiet_level)) {
      rounds.push_back(static_cast<int>(i) + 1);
      worst = std::max(worst, r);
    }
  }
  if (rounds.empty()) return;
  out->push_back(
      {arm, "device_io", true,
       absl::StrFormat("%s: other I/O on the device: requests per SQE %.3g "
                       "in round(s) %s against %.3g in the arm's quiet rounds "
                       "(lower quartile)",
                       in.arm_names[static_cast<size_t>(arm)], worst,
                       absl::StrJoin(rounds, ","), quiet_level)});
}

// Other processes on the submitter CPUs: rounds in which they took more
// than the margin of the CPUs' time (the arm ran on less than its CPUs).
void OtherCpuGuardrail(const ExperimentInput& in, int arm,
                       std::vector<Guardrail>* out) {
  if (static_cast<size_t>(arm) >= in.other_cpu_share.size()) return;
  std::vector<int> rounds;
  double worst = 0;
  for (size_t i = 0; i < in.other_cpu_share[static_cast<size_t>(arm)].size();
       ++i) {
    const double share = in.other_cpu_share[static_cast<size_t>(arm)][i];
    if (std::isfinite(share) && share > in.margin) {
      rounds.push_back(static_cast<int>(i) + 1);
      worst = std::max(worst, share);
    }
  }
  if (rounds.empty()) return;
  out->push_back(
      {arm, "other_cpu", true,
       absl::StrFormat("%s: other processes took up to %.1f%% of the "
                       "submitter CPUs' time in round(s) %s",
                       in.arm_names[static_cast<size_t>(arm)], 100 * worst,
                       absl::StrJoin(rounds, ","))});
}

// Live arms: switches that landed later than kLateSwitchShare of a slice
// after their instants shift time between the arms' slices.
void SwitchGuardrail(const ExperimentInput& in, std::vector<Guardrail>* out) {
  if (!in.live) return;
  const absl::Duration late = in.round * kLateSwitchShare;
  int count = 0;
  absl::Duration worst;
  for (absl::Duration d : in.switch_lateness) {
    worst = std::max(worst, d);
    if (d > late) ++count;
  }
  if (count > 0) {
    out->push_back(
        {-1, "late_switches", true,
         absl::StrCat(count, " of ", in.switch_lateness.size(),
                      " live switches landed over ", absl::FormatDuration(late),
                      " (1% of a slice) late, the worst by ",
                      absl::FormatDuration(worst))});
  }
}

// The guardrails of one arm on the headline metric.
void ArmGuardrails(const ExperimentInput& in, int arm,
                   std::vector<Guardrail>* out) {
  const MetricInfo& info = InfoOf(in.headline);
  const std::vector<double> values =
      Column(in.samples[static_cast<size_t>(arm)], in.headline);
  const int n = static_cast<int>(values.size());
  const std::string& name = in.arm_names[static_cast<size_t>(arm)];
  if (n < kMinSamplesPerArm) {
    out->push_back({arm, "samples", true,
                    absl::StrCat(name, ": ", n, " rounds, fewer than ",
                                 kMinSamplesPerArm, " samples per arm")});
  }
  const Trend trend = LinearTrend(values);
  const double mean = Quantile(values, 0.5);
  const double drift = mean != 0 ? trend.slope * (n - 1) / mean : 0;
  if (trend.p_value < 1 - in.confidence && std::fabs(drift) > in.margin) {
    out->push_back(
        {arm, "trend", true,
         absl::StrFormat("%s: %s drifts %+.1f%% from the first round to the "
                         "last (slope p=%.3g)",
                         name, info.label, 100 * drift, trend.p_value)});
  }
  const Clusters clusters = TwoClusters(values, in.margin * mean);
  if (clusters.bimodal) {
    out->push_back(
        {arm, "bimodal", true,
         absl::StrFormat("%s: %s bimodal: %d rounds near %.4g, %d near %.4g",
                         name, info.label, clusters.low_count,
                         clusters.low_median, n - clusters.low_count,
                         clusters.high_median)});
  }
  DeviceGuardrail(in, arm, out);
  OtherCpuGuardrail(in, arm, out);
}

// Rounds (0-based) whose headline value is outlying in the baseline or in
// `arm` (a round closer to its arm's median than the margin cannot move a
// verdict judged against that margin, so it never counts).
std::vector<int> OutlyingRounds(const ExperimentInput& in, int arm) {
  std::vector<int> rounds =
      Outliers(Column(in.samples[0], in.headline), 3.5, in.margin);
  for (int r : Outliers(Column(in.samples[static_cast<size_t>(arm)],
                               in.headline),
                        3.5, in.margin)) {
    rounds.push_back(r);
  }
  std::sort(rounds.begin(), rounds.end());
  rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
  return rounds;
}

// The headline verdict of `arm` against the baseline with `dropped` rounds'
// pairs left out; inconclusive when fewer than 2 pairs remain.
Verdict VerdictWithout(const ExperimentInput& in, int arm,
                       const std::vector<int>& dropped) {
  const std::vector<double> base = Column(in.samples[0], in.headline);
  const std::vector<double> values =
      Column(in.samples[static_cast<size_t>(arm)], in.headline);
  std::vector<double> base_kept, arm_kept;
  for (size_t i = 0; i < base.size() && i < values.size(); ++i) {
    if (std::binary_search(dropped.begin(), dropped.end(),
                           static_cast<int>(i))) {
      continue;
    }
    base_kept.push_back(base[i]);
    arm_kept.push_back(values[i]);
  }
  if (base_kept.size() < 2 || !AllPositive(base_kept) ||
      !AllPositive(arm_kept)) {
    return Verdict::kInconclusive;
  }
  const RatioEstimate estimate =
      PairedRatio(base_kept, arm_kept, in.confidence);
  return Decide(estimate.ci_lo, estimate.ci_hi, in.margin,
                InfoOf(in.headline).better);
}

// Outlying rounds are a fact worth showing; they make `arm`'s verdict
// suspect only when the verdict without those rounds' pairs differs (the
// paired median moves little for a round or two, so usually it does not).
void OutlierGuardrail(const ExperimentInput& in, int arm, Verdict verdict,
                      std::vector<Guardrail>* out) {
  const std::vector<int> dropped = OutlyingRounds(in, arm);
  if (dropped.empty()) return;
  std::vector<int> rounds;
  for (int i : dropped) rounds.push_back(i + 1);
  const Verdict without = VerdictWithout(in, arm, dropped);
  const std::string& name = in.arm_names[static_cast<size_t>(arm)];
  out->push_back(
      {arm, "outliers", without != verdict,
       absl::StrCat(name, ": ", InfoOf(in.headline).label, " of round(s) ",
                    absl::StrJoin(rounds, ","),
                    " outlying here or in the baseline (modified z-score "
                    "over 3.5 and more than the margin from the median); "
                    "without them the verdict is ",
                    VerdictName(without),
                    without != verdict
                        ? absl::StrCat(", not ", VerdictName(verdict))
                        : std::string(" as well"))});
}

void ExperimentGuardrails(const ExperimentInput& in,
                          std::vector<Guardrail>* out) {
  SwitchGuardrail(in, out);
  if (in.governor.empty()) {
    out->push_back({-1, "governor", false,
                    "CPU frequency governor unknown (no cpufreq, as on most "
                    "VMs)"});
  } else if (in.governor != "performance") {
    out->push_back({-1, "governor", true,
                    absl::StrCat("CPU frequency governor ", in.governor,
                                 ", not performance: clocks may move "
                                 "between rounds")});
  }
}

bool EveryRoundHasIos(const std::vector<CompactHistogram>& rounds,
                      size_t expected) {
  if (rounds.size() != expected || expected == 0) return false;
  for (const CompactHistogram& h : rounds) {
    if (h.count == 0) return false;
  }
  return true;
}

// The latency metrics' ratios, intervals and verdicts from resampled merges
// of the rounds' histograms, where both sides have them.
void MergeLatency(const ExperimentInput& in, size_t arm, ArmResult* result) {
  if (in.latency.size() != in.samples.size()) return;
  const size_t rounds = in.samples[0].size();
  if (!EveryRoundHasIos(in.latency[arm], rounds) ||
      !EveryRoundHasIos(in.latency[0], rounds)) {
    return;
  }
  const std::vector<std::pair<Metric, double>> latency = {
      {Metric::kP50, 50}, {Metric::kP99, 99}, {Metric::kP999, 99.9}};
  std::vector<double> percentiles;
  for (const auto& [metric, p] : latency) percentiles.push_back(p);
  const MergeableRounds own(in.latency[arm]);
  const std::vector<uint32_t> all(rounds, 1);
  std::vector<RatioEstimate> estimates;
  if (arm != 0) {
    estimates = PairedPercentileRatios(in.latency[0], in.latency[arm],
                                       percentiles, in.confidence);
  }
  for (size_t j = 0; j < latency.size(); ++j) {
    MetricResult& m = result->metrics[static_cast<size_t>(latency[j].first)];
    m.from_merges = true;
    m.merged = static_cast<double>(own.Percentile(all, latency[j].second));
    if (arm == 0) continue;
    m.comparable = true;
    m.estimate = estimates[j];
    m.verdict = Decide(m.estimate.ci_lo, m.estimate.ci_hi, in.margin,
                       Better::kLower);
    m.more_rounds = m.verdict == Verdict::kInconclusive
                        ? MoreRoundsToDecide(m.estimate, in.margin)
                        : 0;
  }
}

}  // namespace

ExperimentResult Analyze(const ExperimentInput& input) {
  ExperimentResult result;
  result.input = input;
  const size_t arms = input.arm_names.size();
  result.rounds = static_cast<int>(input.samples[0].size());
  // Live arms share one workload and its one ramp.
  result.total = input.live ? input.ramp + static_cast<int64_t>(
                                               result.rounds * arms) * input.round
                            : static_cast<int64_t>(result.rounds * arms) *
                                  (input.ramp + input.round);
  ExperimentGuardrails(input, &result.guardrails);
  for (size_t arm = 0; arm < arms; ++arm) {
    ArmGuardrails(input, static_cast<int>(arm), &result.guardrails);
  }
  bool experiment_suspect = false;
  for (const Guardrail& g : result.guardrails) {
    if (g.arm == -1 && g.suspect) experiment_suspect = true;
  }
  for (size_t arm = 0; arm < arms; ++arm) {
    ArmResult a;
    a.name = input.arm_names[arm];
    a.value = input.arm_values[arm];
    a.baseline = arm == 0;
    for (const MetricInfo& info : Metrics()) {
      a.metrics[static_cast<size_t>(info.metric)] = CompareMetric(
          Column(input.samples[0], info.metric),
          Column(input.samples[arm], info.metric), info.metric, input,
          a.baseline);
    }
    MergeLatency(input, arm, &a);
    a.verdict = a.metrics[static_cast<size_t>(input.headline)].verdict;
    if (!a.baseline) {
      OutlierGuardrail(input, static_cast<int>(arm), a.verdict,
                       &result.guardrails);
    }
    a.suspect = experiment_suspect;
    for (const Guardrail& g : result.guardrails) {
      // The baseline's guardrails weigh on every comparison with it.
      if (g.suspect && (g.arm == static_cast<int>(arm) || g.arm == 0)) {
        a.suspect = true;
      }
    }
    result.arms.push_back(std::move(a));
  }
  return result;
}

}  // namespace blkperf
