// An experiment over a fleet, and cohorts of a fleet compared: the
// statistics with hosts as the unit.
//
// Fleet experiment (`blkperf fleet run --vary=...`): every host ran every
// arm of every round at the same instants. Each host gets the verdicts
// `blkperfd run --vary` gives (Analyze over its own rounds); the fleet's
// ratio for an arm is the median of the hosts' ratios (on logs) with the
// expanded percentile-bootstrap interval over hosts (PairedRatio against a
// baseline of ones: the host ratios are the samples), judged by the same
// rule against the margin. A host whose effect differs from the fleet's is
// an outlier (kFleetOutlierRule).
//
// Cohorts (`blkperf fleet run --cohort_by=...`): one spec ran on every
// host; each host's figures are one sample of its cohort. Every cohort is
// compared with the baseline cohort, unpaired: the ratio of the cohorts'
// medians with its two-sample bootstrap interval (UnpairedRatio), the
// verdict against the margin, and the Mann-Whitney U rank test's p-value
// (SciPy's mannwhitneyu, method "auto") beside it.
//
//   FleetExperimentResult r = AnalyzeFleet(design, hosts, samples);
//   std::cout << FormatFleetExperimentText(r);
//   CohortComparison c = CompareCohorts(cohorts, 0.02, 0.95, Metric::kIops);
//   std::cout << FormatCohortText(c);
#ifndef BLKPERF_EXPERIMENT_FLEET_ANALYSIS_H_
#define BLKPERF_EXPERIMENT_FLEET_ANALYSIS_H_

#include <array>
#include <string>
#include <vector>

#include "experiment/analysis.h"
#include "experiment/statistics.h"

namespace blkperf {

// Mann-Whitney U test of two independent samples, two-sided, as SciPy's
// stats.mannwhitneyu(x, y, alternative="two-sided", method="auto"): U is
// x's statistic (R_x - n_x (n_x + 1) / 2, ties at mid-ranks); the p-value is
// exact when both samples have fewer than 8 values and there are no ties,
// else the normal approximation with tie correction and continuity
// correction. REQUIRES: x and y not empty.
struct RankTest {
  double u = 0;
  double p_value = 1;
  bool exact = false;
};
RankTest MannWhitneyU(const std::vector<double>& x,
                      const std::vector<double>& y);

// --- Fleet experiment --------------------------------------------------

inline constexpr char kFleetOutlierRule[] =
    "a host is an outlier when its ratio differs from the fleet's by more "
    "than the margin and either its own interval excludes the fleet's ratio "
    "or its modified z-score among the hosts (0.6745 |ratio - fleet| / "
    "median |ratio - fleet|) exceeds 3.5";

struct FleetMetricResult {
  Metric metric = Metric::kIops;
  // The hosts' ratios (hosts whose ratio exists, in host order) and the
  // index of each in the hosts list.
  std::vector<double> host_ratios;
  std::vector<int> hosts;
  bool comparable = false;  // at least one host has a ratio
  RatioEstimate estimate;   // samples = hosts
  Verdict verdict = Verdict::kInconclusive;
  int more_hosts = 0;  // inconclusive only: as MoreRoundsToDecide, in hosts
};

struct FleetArmResult {
  std::string name;
  std::string value;
  std::array<FleetMetricResult, kMetricCount> metrics;
  Verdict verdict = Verdict::kInconclusive;  // the headline metric's
  // Indexes into FleetExperimentResult::hosts (kFleetOutlierRule on the
  // headline metric).
  std::vector<int> outliers;
};

struct HostExperiment {
  std::string address;
  ExperimentResult result;
};

struct FleetExperimentResult {
  ExperimentInput design;  // samples empty: the hosts hold theirs
  std::vector<HostExperiment> hosts;
  // arms[0] is the baseline (no ratios).
  std::vector<FleetArmResult> arms;
  // Facts a reader must know (few hosts ...).
  std::vector<std::string> notes;
};

// `design` as ExperimentInput without samples; samples[host][arm][round]
// the hosts' rounds in `design.order`; governors[host] each host's CPU
// frequency governor ("" or none given: unknown); other_cpu[host][arm]
// [round] each host's Snapshot.other_cpu_share (NaN unknown; empty: not
// measured), the other_cpu guardrail of that host's verdicts. REQUIRES:
// addresses.size() == samples.size() >= 1, each host's samples as Analyze
// requires, governors empty or one per host, other_cpu empty or one per
// host shaped as Analyze's other_cpu_share.
FleetExperimentResult AnalyzeFleet(
    const ExperimentInput& design, const std::vector<std::string>& addresses,
    const std::vector<std::vector<std::vector<RoundSample>>>& samples,
    const std::vector<std::string>& governors = {},
    const std::vector<std::vector<std::vector<double>>>& other_cpu = {});

// Text: the design, one row per host per arm (headline ratio, interval,
// verdict), the fleet's row per metric, the outliers with the rule.
std::string FormatFleetExperimentText(const FleetExperimentResult& r);

// {"experiment":{"field":..,"margin":..,"confidence":..,"seed":..,
//   "metric":..,"rounds":..,"round_seconds":..,"ramp_seconds":..,
//   "total_seconds":..,"order":[..],"unit":"host",
//   "hosts":[{"address":..,"governor":..,"arms":[..as FormatExperimentJson's..],
//             "guardrails":[..]}],
//   "fleet":{"statistic":..,"outlier_rule":..,"arms":[{"name":..,
//     "value":..,"baseline":true},{"name":..,"value":..,"baseline":false,
//     "verdict":..,"outliers":[addresses],"iops":{"host_ratios":[..],
//     "hosts":[addresses],"ratio":..,"ci":[lo,hi],"verdict":..,
//     "more_hosts":..},..}]},"notes":[..]}}
std::string FormatFleetExperimentJson(const FleetExperimentResult& r);

// --- Cohorts -----------------------------------------------------------

struct CohortSamples {
  std::string value;               // the cohort key's value
  std::vector<std::string> hosts;  // addresses
  std::vector<RoundSample> samples;  // one per host, same order
};

struct CohortMetricResult {
  Metric metric = Metric::kIops;
  std::vector<double> samples;  // per host
  double median = 0;
  // Not for the baseline cohort; false when a host's value is 0 on either
  // side (no ratio).
  bool comparable = false;
  RatioEstimate estimate;  // samples = the smaller cohort's hosts
  RankTest rank;
  Verdict verdict = Verdict::kInconclusive;
};

struct CohortResult {
  std::string value;
  std::vector<std::string> hosts;
  bool baseline = false;
  std::array<CohortMetricResult, kMetricCount> metrics;
  Verdict verdict = Verdict::kInconclusive;  // the headline metric's
  bool suspect = false;  // fewer than kMinHostsPerCohort on either side
};

// Below this many hosts in a cohort a verdict is marked suspect.
inline constexpr int kMinHostsPerCohort = 3;

struct CohortComparison {
  std::string by;  // "kernel_release", "label:rack"
  double margin = 0.02;
  double confidence = 0.95;
  Metric headline = Metric::kIops;
  std::vector<CohortResult> cohorts;  // [0] the baseline
};

// Compares every cohort with cohorts[baseline]; the result lists the
// baseline first, then the others in their order. REQUIRES: at least two
// cohorts, each with at least one host, 0 <= baseline < cohorts.size().
CohortComparison CompareCohorts(const std::string& by,
                                const std::vector<CohortSamples>& cohorts,
                                int baseline, double margin,
                                double confidence, Metric headline);

std::string FormatCohortText(const CohortComparison& c);
// {"by":..,"unit":"host","margin":..,"confidence":..,"metric":..,
//  "statistic":..,"rank_test":..,"cohorts":[{"value":..,"hosts":[..],
//  "baseline":..,"verdict":..,"suspect":..,"iops":{"samples":[..],
//  "median":..,"ratio":..,"ci":[..],"verdict":..,"mann_whitney_u":..,
//  "p_value":..,"exact":..},..}]}
std::string FormatCohortJson(const CohortComparison& c);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_FLEET_ANALYSIS_H_
