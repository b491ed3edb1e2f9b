#include "experiment/fleet_analysis.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

// Mid-ranks (1-based) of `values`, and the sum over tie groups of t^3 - t.
std::vector<double> MidRanks(const std::vector<double>& values,
                             double* tie_term) {
  std::vector<size_t> index(values.size());
  std::iota(index.begin(), index.end(), 0);
  std::sort(index.begin(), index.end(),
            [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  *tie_term = 0;
  for (size_t i = 0; i < index.size();) {
    size_t j = i;
    while (j + 1 < index.size() && values[index[j + 1]] == values[index[i]]) ++j;
    const double rank = (static_cast<double>(i + j) + 2) / 2;
    for (size_t k = i; k <= j; ++k) ranks[index[k]] = rank;
    const double t = static_cast<double>(j - i + 1);
    *tie_term += t * t * t - t;
    i = j + 1;
  }
  return ranks;
}

// P(U >= u) under the null for samples of n and m values without ties:
// p(i, j, k) = i/(i+j) p(i-1, j, k-j) + j/(i+j) p(i, j-1, k).
double ExactUpperTail(int n, int m, double u) {
  const int top = n * m;
  // row[j][k] for the current i.
  std::vector<std::vector<double>> prev(static_cast<size_t>(m) + 1),
      cur(static_cast<size_t>(m) + 1);
  for (int j = 0; j <= m; ++j) prev[static_cast<size_t>(j)] = {1.0};  // i = 0
  for (int i = 1; i <= n; ++i) {
    cur[0] = {1.0};  // j = 0: U is 0
    for (int j = 1; j <= m; ++j) {
      std::vector<double>& row = cur[static_cast<size_t>(j)];
      row.assign(static_cast<size_t>(i * j) + 1, 0.0);
      const double a = static_cast<double>(i) / (i + j);
      const std::vector<double>& left = prev[static_cast<size_t>(j)];  // i-1, j
      const std::vector<double>& down = cur[static_cast<size_t>(j) - 1];  // i, j-1
      for (size_t k = 0; k < row.size(); ++k) {
        double p = 0;
        if (k >= static_cast<size_t>(j) && k - static_cast<size_t>(j) < left.size()) {
          p += a * left[k - static_cast<size_t>(j)];
        }
        if (k < down.size()) p += (1 - a) * down[k];
        row[k] = p;
      }
    }
    std::swap(prev, cur);
  }
  const std::vector<double>& pmf = prev[static_cast<size_t>(m)];
  double tail = 0;
  for (int k = top; k >= 0 && k >= u - 1e-9; --k) tail += pmf[static_cast<size_t>(k)];
  return tail;
}

double NormalSurvival(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

RankTest MannWhitneyU(const std::vector<double>& x,
                      const std::vector<double>& y) {
  std::vector<double> both(x);
  both.insert(both.end(), y.begin(), y.end());
  double tie_term = 0;
  const std::vector<double> ranks = MidRanks(both, &tie_term);
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  double r1 = 0;
  for (size_t i = 0; i < x.size(); ++i) r1 += ranks[i];
  RankTest test;
  test.u = r1 - n1 * (n1 + 1) / 2;
  const double u = std::max(test.u, n1 * n2 - test.u);
  // SciPy's "auto": exact unless both samples have more than 8 values or
  // there are ties. Beyond 100 values the exact distribution's table would
  // grow as n^3: the normal approximation is as good there.
  test.exact = tie_term == 0 && (x.size() <= 8 || y.size() <= 8) &&
               x.size() + y.size() <= 100;
  double p;
  if (test.exact) {
    p = 2 * ExactUpperTail(static_cast<int>(x.size()),
                           static_cast<int>(y.size()), u);
  } else {
    const double n = n1 + n2;
    const double s = std::sqrt(n1 * n2 / 12 *
                               ((n + 1) - tie_term / (n * (n - 1))));
    p = s > 0 ? 2 * NormalSurvival((u - n1 * n2 / 2 - 0.5) / s) : 1;
  }
  test.p_value = std::clamp(p, 0.0, 1.0);
  return test;
}

namespace {

bool Positive(const std::vector<double>& values) {
  return !values.empty() &&
         std::all_of(values.begin(), values.end(), [](double v) { return v > 0; });
}

FleetMetricResult FleetMetric(const std::vector<HostExperiment>& hosts,
                              size_t arm, Metric metric, double margin,
                              double confidence) {
  FleetMetricResult m;
  m.metric = metric;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const MetricResult& hm =
        hosts[h].result.arms[arm].metrics[static_cast<size_t>(metric)];
    if (!hm.comparable) continue;
    m.host_ratios.push_back(hm.estimate.ratio);
    m.hosts.push_back(static_cast<int>(h));
  }
  if (!Positive(m.host_ratios)) return m;
  m.comparable = true;
  // The host ratios as paired samples against a baseline of ones: the
  // median of their logs and its expanded bootstrap interval over hosts.
  m.estimate = PairedRatio(std::vector<double>(m.host_ratios.size(), 1.0),
                           m.host_ratios, confidence);
  m.verdict = Decide(m.estimate.ci_lo, m.estimate.ci_hi, margin,
                     InfoOf(metric).better);
  if (m.verdict == Verdict::kInconclusive) {
    m.more_hosts = MoreRoundsToDecide(m.estimate, margin);
  }
  return m;
}

std::vector<int> FleetOutliers(const std::vector<HostExperiment>& hosts,
                               size_t arm, const FleetMetricResult& fleet,
                               double margin) {
  std::vector<int> outliers;
  if (!fleet.comparable || hosts.size() < 2) return outliers;
  const double r = fleet.estimate.ratio;
  std::vector<double> deviations;
  for (double ratio : fleet.host_ratios) deviations.push_back(std::abs(ratio - r));
  const double mad = SampleMedian(deviations);
  for (size_t i = 0; i < fleet.hosts.size(); ++i) {
    const int h = fleet.hosts[i];
    const MetricResult& hm = hosts[static_cast<size_t>(h)]
                                 .result.arms[arm]
                                 .metrics[static_cast<size_t>(fleet.metric)];
    const bool differs = std::abs(hm.estimate.ratio / r - 1) > margin;
    const bool excludes = hm.estimate.ci_lo > r || hm.estimate.ci_hi < r;
    const bool far = mad > 0 && 0.6745 * deviations[i] / mad > 3.5;
    if (differs && (excludes || far)) outliers.push_back(h);
  }
  return outliers;
}

}  // namespace

FleetExperimentResult AnalyzeFleet(
    const ExperimentInput& design, const std::vector<std::string>& addresses,
    const std::vector<std::vector<std::vector<RoundSample>>>& samples,
    const std::vector<std::string>& governors,
    const std::vector<std::vector<std::vector<double>>>& other_cpu) {
  FleetExperimentResult r;
  r.design = design;
  r.design.samples.clear();
  for (size_t h = 0; h < addresses.size(); ++h) {
    ExperimentInput in = r.design;
    in.samples = samples[h];
    in.governor = governors.empty() ? "" : governors[h];
    if (!other_cpu.empty()) in.other_cpu_share = other_cpu[h];
    r.hosts.push_back({addresses[h], Analyze(in)});
  }
  for (size_t arm = 0; arm < design.arm_names.size(); ++arm) {
    FleetArmResult a;
    a.name = design.arm_names[arm];
    a.value = design.arm_values[arm];
    if (arm > 0) {
      for (const MetricInfo& info : Metrics()) {
        a.metrics[static_cast<size_t>(info.metric)] = FleetMetric(
            r.hosts, arm, info.metric, design.margin, design.confidence);
      }
      const FleetMetricResult& head =
          a.metrics[static_cast<size_t>(design.headline)];
      a.verdict = head.verdict;
      a.outliers = FleetOutliers(r.hosts, arm, head, design.margin);
    }
    r.arms.push_back(std::move(a));
  }
  if (addresses.size() < 5) {
    r.notes.push_back(absl::StrCat(
        "only ", addresses.size(),
        " hosts: with hosts as the unit the fleet's interval spans about "
        "the range of the hosts' ratios"));
  }
  return r;
}

CohortComparison CompareCohorts(const std::string& by,
                                const std::vector<CohortSamples>& cohorts,
                                int baseline, double margin,
                                double confidence, Metric headline) {
  CohortComparison c;
  c.by = by;
  c.margin = margin;
  c.confidence = confidence;
  c.headline = headline;
  std::vector<size_t> order = {static_cast<size_t>(baseline)};
  for (size_t i = 0; i < cohorts.size(); ++i) {
    if (i != static_cast<size_t>(baseline)) order.push_back(i);
  }
  const CohortSamples& base = cohorts[static_cast<size_t>(baseline)];
  for (size_t i : order) {
    const CohortSamples& in = cohorts[i];
    CohortResult out;
    out.value = in.value;
    out.hosts = in.hosts;
    out.baseline = i == static_cast<size_t>(baseline);
    for (const MetricInfo& info : Metrics()) {
      const size_t k = static_cast<size_t>(info.metric);
      CohortMetricResult& m = out.metrics[k];
      m.metric = info.metric;
      std::vector<double> base_values;
      for (const RoundSample& s : in.samples) m.samples.push_back(s[k]);
      for (const RoundSample& s : base.samples) base_values.push_back(s[k]);
      m.median = SampleMedian(m.samples);
      if (out.baseline) continue;
      m.comparable = Positive(m.samples) && Positive(base_values);
      if (!m.comparable) continue;
      m.estimate = UnpairedRatio(base_values, m.samples, confidence);
      m.rank = MannWhitneyU(m.samples, base_values);
      m.verdict = Decide(m.estimate.ci_lo, m.estimate.ci_hi, margin, info.better);
    }
    if (!out.baseline) {
      out.verdict = out.metrics[static_cast<size_t>(headline)].verdict;
      out.suspect = static_cast<int>(in.hosts.size()) < kMinHostsPerCohort ||
                    static_cast<int>(base.hosts.size()) < kMinHostsPerCohort;
    }
    c.cohorts.push_back(std::move(out));
  }
  return c;
}

}  // namespace blkperf
