#include "experiment/fleet_analysis.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

#include "experiment/testdata/fleet_reference.inc"

TEST(MannWhitneyUTest, MatchesScipy) {
  ASSERT_EQ(kMwuCases.size(), 6u);
  for (const MwuCase& c : kMwuCases) {
    const RankTest t = MannWhitneyU(c.x, c.y);
    EXPECT_DOUBLE_EQ(t.u, c.u);
    EXPECT_NEAR(t.p_value, c.p, 1e-9) << "x[0]=" << c.x[0] << " n=" << c.x.size();
  }
  EXPECT_TRUE(MannWhitneyU(kMwuCases[0].x, kMwuCases[0].y).exact);
  EXPECT_FALSE(MannWhitneyU(kMwuCases[2].x, kMwuCases[2].y).exact);  // ties
  EXPECT_FALSE(MannWhitneyU(kMwuCases[5].x, kMwuCases[5].y).exact);  // both > 8
}

ExperimentInput Design(int rounds) {
  ExperimentInput in;
  in.field = "rate_iops";
  in.arm_names = {"rate_iops=20000", "rate_iops=25000"};
  in.arm_values = {"20000", "25000"};
  for (int r = 0; r < rounds; ++r) in.order.push_back(r % 2 ? std::vector<int>{1, 0} : std::vector<int>{0, 1});
  in.margin = 0.02;
  in.confidence = 0.95;
  in.round = absl::Milliseconds(500);
  return in;
}

RoundSample Sample(double iops) {
  RoundSample s{};
  s[static_cast<size_t>(Metric::kIops)] = iops;
  s[static_cast<size_t>(Metric::kBytesPerSecond)] = 4096 * iops;
  s[static_cast<size_t>(Metric::kCpuPerIo)] = 2.0;
  s[static_cast<size_t>(Metric::kP50)] = 1000;
  s[static_cast<size_t>(Metric::kP99)] = 5000;
  s[static_cast<size_t>(Metric::kP999)] = 9000;
  return s;
}

// samples[host][arm][round]: the baseline wobbles by round, the arm is the
// baseline times the host's ratio (times `noise` on odd rounds).
std::vector<std::vector<std::vector<RoundSample>>> Samples(
    const std::vector<double>& ratios, int rounds, double noise) {
  std::vector<std::vector<std::vector<RoundSample>>> samples;
  for (double ratio : ratios) {
    std::vector<std::vector<RoundSample>> host(2);
    for (int r = 0; r < rounds; ++r) {
      const double base = 20000 * (1 + 0.01 * ((r * 7) % 5));
      host[0].push_back(Sample(base));
      host[1].push_back(Sample(base * ratio * (r % 2 ? noise : 1.0)));
    }
    samples.push_back(host);
  }
  return samples;
}

std::vector<std::string> Addresses(size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(absl::StrCat("10.0.0.", i + 1, ":7777"));
  return out;
}

TEST(AnalyzeFleetTest, FleetRatioIsTheMedianOfHostRatiosWithScipysInterval) {
  const FleetExperimentResult r =
      AnalyzeFleet(Design(10), Addresses(kHostRatios.size()),
                   Samples(kHostRatios, 10, 1.0));
  ASSERT_EQ(r.hosts.size(), kHostRatios.size());
  ASSERT_EQ(r.arms.size(), 2u);
  for (size_t h = 0; h < kHostRatios.size(); ++h) {
    const MetricResult& m = r.hosts[h].result.arms[1].metrics[0];
    EXPECT_NEAR(m.estimate.ratio, kHostRatios[h], 1e-9);
    EXPECT_EQ(r.hosts[h].result.arms[1].verdict, Verdict::kFaster);
  }
  const FleetMetricResult& f = r.arms[1].metrics[static_cast<size_t>(Metric::kIops)];
  ASSERT_TRUE(f.comparable);
  EXPECT_EQ(f.estimate.samples, 8);
  EXPECT_NEAR(f.estimate.ratio, kFleetRatio, 1e-12);
  const double width = kFleetLogHi95 - kFleetLogLo95;
  EXPECT_NEAR(std::log(f.estimate.ci_lo), kFleetLogLo95, 0.05 * width);
  EXPECT_NEAR(std::log(f.estimate.ci_hi), kFleetLogHi95, 0.05 * width);
  EXPECT_EQ(r.arms[1].verdict, Verdict::kFaster);
  // The latencies did not move: equivalent, judged lower-is-better.
  EXPECT_EQ(r.arms[1].metrics[static_cast<size_t>(Metric::kP99)].verdict,
            Verdict::kEquivalent);
  EXPECT_TRUE(r.arms[1].outliers.empty());
  EXPECT_TRUE(r.notes.empty());
}

TEST(AnalyzeFleetTest, AHostWhoseEffectDiffersIsAnOutlier) {
  std::vector<double> ratios = {1.25, 1.24, 1.26, 1.25, 1.0, 1.25, 1.24, 1.26};
  const FleetExperimentResult r =
      AnalyzeFleet(Design(10), Addresses(ratios.size()), Samples(ratios, 10, 1.01));
  EXPECT_EQ(r.arms[1].verdict, Verdict::kFaster);
  ASSERT_EQ(r.arms[1].outliers.size(), 1u);
  EXPECT_EQ(r.arms[1].outliers[0], 4);
  EXPECT_NE(r.hosts[4].result.arms[1].verdict, Verdict::kFaster);
  const std::string text = FormatFleetExperimentText(r);
  EXPECT_TRUE(absl::StrContains(text, "10.0.0.5:7777")) << text;
  EXPECT_TRUE(absl::StrContains(text, "OUTLIER")) << text;
  EXPECT_TRUE(absl::StrContains(text, kFleetOutlierRule)) << text;
  const std::string json = FormatFleetExperimentJson(r);
  EXPECT_TRUE(absl::StrContains(json, "\"outliers\":[\"10.0.0.5:7777\"]")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"unit\":\"host\"")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"hosts\":[{\"address\":\"10.0.0.1:7777\",\"governor\":null,\"live\":false,\"stopping\":null,\"arms\":[")) << json;
}

TEST(AnalyzeFleetTest, EachHostIsJudgedWithItsOwnGovernor) {
  const FleetExperimentResult r = AnalyzeFleet(
      Design(10), Addresses(2), Samples({1.25, 1.25}, 10, 1.0),
      {"performance", "powersave"});
  auto governor_guardrails = [](const ExperimentResult& e) {
    int n = 0;
    for (const Guardrail& g : e.guardrails) n += g.kind == "governor";
    return n;
  };
  EXPECT_EQ(governor_guardrails(r.hosts[0].result), 0);
  EXPECT_EQ(governor_guardrails(r.hosts[1].result), 1);
  EXPECT_TRUE(absl::StrContains(FormatFleetExperimentJson(r),
                                "\"address\":\"10.0.0.2:7777\",\"governor\":\"powersave\""));
}

TEST(AnalyzeFleetTest, EachHostIsJudgedWithItsOwnOtherCpuShare) {
  // Host 1's arm B lost 30% of its CPUs to other processes in round 4;
  // host 0 measured nothing over the margin (and a NaN: unknown).
  const double nan = std::nan("");
  std::vector<std::vector<std::vector<double>>> other_cpu(
      2, std::vector<std::vector<double>>(2, std::vector<double>(10, 0.01)));
  other_cpu[0][0][2] = nan;
  other_cpu[1][1][3] = 0.3;
  const FleetExperimentResult r =
      AnalyzeFleet(Design(10), Addresses(2), Samples({1.25, 1.25}, 10, 1.0),
                   {}, other_cpu);
  auto other_cpu_arms = [](const ExperimentResult& e) {
    std::vector<int> arms;
    for (const Guardrail& g : e.guardrails) {
      if (g.kind == "other_cpu" && g.suspect) arms.push_back(g.arm);
    }
    return arms;
  };
  EXPECT_TRUE(other_cpu_arms(r.hosts[0].result).empty());
  EXPECT_EQ(other_cpu_arms(r.hosts[1].result), std::vector<int>{1});
  EXPECT_FALSE(r.hosts[0].result.arms[1].suspect);
  EXPECT_TRUE(r.hosts[1].result.arms[1].suspect);
  EXPECT_TRUE(absl::StrContains(FormatFleetExperimentJson(r),
                                "\"kind\":\"other_cpu\",\"suspect\":true"));
}

TEST(AnalyzeFleetTest, FewHostsSayTheIntervalSpansTheirRange) {
  const FleetExperimentResult r =
      AnalyzeFleet(Design(10), Addresses(2), Samples({1.2, 1.3}, 10, 1.0));
  ASSERT_EQ(r.notes.size(), 1u);
  const FleetMetricResult& f = r.arms[1].metrics[0];
  EXPECT_NEAR(f.estimate.ci_lo, 1.2, 1e-9);
  EXPECT_NEAR(f.estimate.ci_hi, 1.3, 1e-9);
}

std::vector<RoundSample> IopsSamples(const std::vector<double>& iops) {
  std::vector<RoundSample> out;
  for (double v : iops) out.push_back(Sample(v));
  return out;
}

CohortSamples Cohort(const std::string& value, const std::vector<double>& iops) {
  CohortSamples c;
  c.value = value;
  for (size_t i = 0; i < iops.size(); ++i) c.hosts.push_back(absl::StrCat(value, "-", i));
  c.samples = IopsSamples(iops);
  return c;
}

TEST(CompareCohortsTest, TheSlowerCohortIsFoundWithScipysIntervalAndRankTest) {
  const CohortComparison c = CompareCohorts(
      "label:kernel", {Cohort("canary", kCanary), Cohort("stable", kStable)},
      /*baseline=*/1, 0.02, 0.95, Metric::kIops);
  ASSERT_EQ(c.cohorts.size(), 2u);
  EXPECT_EQ(c.cohorts[0].value, "stable");
  EXPECT_TRUE(c.cohorts[0].baseline);
  const CohortResult& canary = c.cohorts[1];
  const CohortMetricResult& m = canary.metrics[0];
  ASSERT_TRUE(m.comparable);
  EXPECT_NEAR(m.estimate.ratio, kCohortRatio, 1e-12);
  // Four canaries: the expanded level is 0.9998, so each end is the 0.01 %
  // quantile of a discrete bootstrap distribution, about one resample of
  // 10,000 (SciPy's of 200,000): the ends agree within 15 % of the width.
  const double width = kCohortLogHi95 - kCohortLogLo95;
  EXPECT_NEAR(std::log(m.estimate.ci_lo), kCohortLogLo95, 0.15 * width);
  EXPECT_NEAR(std::log(m.estimate.ci_hi), kCohortLogHi95, 0.15 * width);
  EXPECT_LT(m.estimate.ci_hi, 1 - 0.02);
  EXPECT_EQ(canary.verdict, Verdict::kSlower);
  EXPECT_FALSE(canary.suspect);
  // U of the canaries against the stable hosts: 0 (every canary below).
  EXPECT_DOUBLE_EQ(m.rank.u, 0);
  EXPECT_NEAR(m.rank.p_value, kMwuCases[3].p, 1e-12);
  // Same CPU per I/O on both sides: equivalent.
  EXPECT_EQ(canary.metrics[static_cast<size_t>(Metric::kCpuPerIo)].verdict,
            Verdict::kEquivalent);
  const std::string text = FormatCohortText(c);
  EXPECT_TRUE(absl::StrContains(text, "canary (4 hosts) vs stable: slower")) << text;
  const std::string json = FormatCohortJson(c);
  EXPECT_TRUE(absl::StrContains(json, "\"value\":\"canary\"")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"verdict\":\"slower\"")) << json;
}

TEST(CompareCohortsTest, ACohortOfTwoHostsIsSuspect) {
  const CohortComparison c = CompareCohorts(
      "kernel_release", {Cohort("6.1", kStable), Cohort("6.6", {30000, 31000})},
      0, 0.02, 0.95, Metric::kIops);
  EXPECT_TRUE(c.cohorts[1].suspect);
  EXPECT_TRUE(absl::StrContains(FormatCohortText(c), "suspect"));
}

}  // namespace
}  // namespace blkperf
