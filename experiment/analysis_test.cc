#include "experiment/analysis.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "experiment/format.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

// Two arms; B's IOPS are `ratio` times A's with a small alternating wobble,
// latency the inverse.
ExperimentInput TwoArms(int rounds, double ratio, double drift = 0) {
  ExperimentInput in;
  in.field = "rate_iops";
  in.arm_names = {"rate_iops=20000", "rate_iops=25000"};
  in.arm_values = {"20000", "25000"};
  in.samples.resize(2);
  for (int r = 0; r < rounds; ++r) {
    in.order.push_back(r % 2 ? std::vector<int>{1, 0} : std::vector<int>{0, 1});
    const double wobble = 1 + 0.003 * ((r * 7) % 5 - 2) + drift * r;
    const double a = 20000 * wobble, b = 20000 * ratio * wobble * (1 + 0.001 * (r % 3));
    in.samples[0].push_back({a, a * 4096, 5.0, 1e5, 2e5, 3e5});
    in.samples[1].push_back({b, b * 4096, 5.0, 1e5 / ratio, 2e5 / ratio, 3e5});
  }
  in.round = absl::Milliseconds(500);
  in.ramp = absl::ZeroDuration();
  in.seed = 9;
  in.governor = "performance";
  return in;
}

TEST(AnalyzeTest, KnownEffectIsFasterWithItsRatioInsideTheInterval) {
  const ExperimentResult r = Analyze(TwoArms(10, 1.25));
  ASSERT_EQ(r.arms.size(), 2u);
  EXPECT_TRUE(r.arms[0].baseline);
  const MetricResult& iops = r.arms[1].metrics[0];
  ASSERT_TRUE(iops.comparable);
  EXPECT_NEAR(iops.estimate.ratio, 1.25, 0.01);
  EXPECT_LE(iops.estimate.ci_lo, iops.estimate.ratio);
  EXPECT_GE(iops.estimate.ci_hi, iops.estimate.ratio);
  EXPECT_EQ(r.arms[1].verdict, Verdict::kFaster);
  EXPECT_FALSE(r.arms[1].suspect);
  // Lower latency is better: also "faster".
  EXPECT_EQ(r.arms[1].metrics[static_cast<int>(Metric::kP50)].verdict,
            Verdict::kFaster);
  EXPECT_EQ(r.arms[1].metrics[static_cast<int>(Metric::kCpuPerIo)].verdict,
            Verdict::kEquivalent);
  EXPECT_EQ(r.total, absl::Seconds(10));
}

TEST(AnalyzeTest, TooFewRoundsAreSuspect) {
  const ExperimentResult r = Analyze(TwoArms(6, 1.25));
  EXPECT_TRUE(r.arms[1].suspect);
  ASSERT_FALSE(r.guardrails.empty());
  EXPECT_EQ(r.guardrails[0].kind, "samples");
}

TEST(AnalyzeTest, TrendWithinAnArmIsSuspect) {
  const ExperimentResult r = Analyze(TwoArms(12, 1.0, 0.01));
  bool trend = false;
  for (const Guardrail& g : r.guardrails) trend |= g.kind == "trend" && g.suspect;
  EXPECT_TRUE(trend);
  EXPECT_TRUE(r.arms[1].suspect);
}

const Guardrail* FindGuardrail(const ExperimentResult& r,
                               absl::string_view kind) {
  for (const Guardrail& g : r.guardrails) {
    if (g.kind == kind) return &g;
  }
  return nullptr;
}

TEST(AnalyzeTest, AnOutlyingRoundThatLeavesTheVerdictIsAFact) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.samples[1][3][0] *= 3;  // round 4 of the arm: 3x its IOPS
  const ExperimentResult r = Analyze(in);
  const Guardrail* outliers = FindGuardrail(r, "outliers");
  ASSERT_NE(outliers, nullptr);
  EXPECT_EQ(outliers->arm, 1);
  EXPECT_FALSE(outliers->suspect) << outliers->message;
  EXPECT_NE(outliers->message.find("round(s) 4 "), std::string::npos)
      << outliers->message;
  EXPECT_NE(outliers->message.find("faster as well"), std::string::npos)
      << outliers->message;
  EXPECT_EQ(r.arms[1].verdict, Verdict::kFaster);
  EXPECT_FALSE(r.arms[1].suspect);
}

TEST(AnalyzeTest, OutlyingRoundsThatDecideTheVerdictAreSuspect) {
  ExperimentInput in = TwoArms(10, 1.0);
  for (int round : {1, 4, 6, 8}) in.samples[1][round][0] *= 1.5;
  const ExperimentResult r = Analyze(in);
  const Guardrail* outliers = FindGuardrail(r, "outliers");
  ASSERT_NE(outliers, nullptr);
  EXPECT_TRUE(outliers->suspect) << outliers->message;
  EXPECT_NE(outliers->message.find("round(s) 2,5,7,9 "), std::string::npos)
      << outliers->message;
  EXPECT_NE(outliers->message.find("verdict is equivalent, not"),
            std::string::npos)
      << outliers->message;
  EXPECT_TRUE(r.arms[1].suspect);
}

TEST(AnalyzeTest, RoundsWithinTheMarginAreNotOutlying) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.samples[1][3][0] *= 1.015;  // far in MADs, within the 2 % margin
  EXPECT_EQ(FindGuardrail(Analyze(in), "outliers"), nullptr);
}

TEST(AnalyzeTest, UnknownGovernorIsAFactNotASuspicion) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.governor = "";
  ExperimentResult r = Analyze(in);
  ASSERT_EQ(r.guardrails.size(), 1u);
  EXPECT_EQ(r.guardrails[0].kind, "governor");
  EXPECT_FALSE(r.guardrails[0].suspect);
  EXPECT_FALSE(r.arms[1].suspect);
  in.governor = "powersave";
  r = Analyze(in);
  EXPECT_TRUE(r.arms[1].suspect);
}

TEST(AnalyzeTest, ZeroLatencyHasNoRatioAndSaysSo) {
  ExperimentInput in = TwoArms(10, 1.25);
  for (auto& arm : in.samples) for (auto& s : arm) s[3] = 0;
  const ExperimentResult r = Analyze(in);
  EXPECT_FALSE(r.arms[1].metrics[3].comparable);
  EXPECT_NE(FormatExperimentText(r).find("no ratio"), std::string::npos);
}

TEST(AnalyzeTest, InconclusiveSaysHowManyMoreRounds) {
  ExperimentInput in = TwoArms(10, 1.0);
  // Noisy A/A-like pairs around +2 %: the interval straddles 1.02.
  for (int r = 0; r < 10; ++r) {
    in.samples[1][r][0] = in.samples[0][r][0] * (1.02 + ((r % 2) ? 0.03 : -0.028));
  }
  const ExperimentResult r = Analyze(in);
  const MetricResult& iops = r.arms[1].metrics[0];
  EXPECT_EQ(iops.verdict, Verdict::kInconclusive);
  EXPECT_NE(FormatExperimentText(r).find("more rounds would decide"),
            std::string::npos)
      << FormatExperimentText(r);
}

bool Tripped(const ExperimentResult& r, const std::string& kind) {
  for (const Guardrail& g : r.guardrails) {
    if (g.kind == kind && g.suspect) return true;
  }
  return false;
}

TEST(AnalyzeTest, BimodalRoundsAreSuspect) {
  ExperimentInput in = TwoArms(10, 1.0);
  EXPECT_FALSE(Tripped(Analyze(in), "bimodal"));
  // Half of B's rounds 30 % lower (a second mode, e.g. page placement).
  for (int r = 0; r < 10; r += 2) in.samples[1][r][0] *= 0.7;
  const ExperimentResult r = Analyze(in);
  EXPECT_TRUE(Tripped(r, "bimodal"));
  EXPECT_TRUE(r.arms[1].suspect);
  EXPECT_NE(FormatExperimentText(r).find("bimodal: 5 rounds near"),
            std::string::npos)
      << FormatExperimentText(r);
}

TEST(AnalyzeTest, OtherIoOnTheDeviceIsSuspect) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.device_requests_per_sqe.assign(2, std::vector<double>(10, 1.0));
  EXPECT_FALSE(Tripped(Analyze(in), "device_io"));
  in.device_requests_per_sqe[1][4] = 1.3;  // other I/O in round 5
  in.device_requests_per_sqe[0][2] = std::nan("");  // unknown: no claim
  in.device_requests_per_sqe[0][7] = 0.85;  // one round read low: no claim
  const ExperimentResult r = Analyze(in);
  EXPECT_TRUE(Tripped(r, "device_io"));
  EXPECT_TRUE(r.arms[1].suspect);
  EXPECT_FALSE(r.arms[0].suspect);
  EXPECT_NE(FormatExperimentText(r).find("other I/O on the device: requests "
                                         "per SQE 1.3 in round(s) 5"),
            std::string::npos)
      << FormatExperimentText(r);
}

TEST(AnalyzeTest, OtherProcessesOnTheSubmitterCpusAreSuspect) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.other_cpu_share.assign(2, std::vector<double>(10, 0.005));
  EXPECT_FALSE(Tripped(Analyze(in), "other_cpu"));
  in.other_cpu_share[0][6] = 0.12;  // a build took 12 % in round 7
  in.other_cpu_share[1].clear();    // not measured: no claim
  const ExperimentResult r = Analyze(in);
  EXPECT_TRUE(Tripped(r, "other_cpu"));
  EXPECT_TRUE(r.arms[1].suspect);  // the baseline's weighs on B
  EXPECT_NE(FormatExperimentText(r).find("other processes took up to 12.0% "
                                         "of the submitter CPUs' time in "
                                         "round(s) 7"),
            std::string::npos)
      << FormatExperimentText(r);
}

TEST(AnalyzeTest, LateLiveSwitchesAreSuspectAndOneRampCounts) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.live = true;
  in.ramp = absl::Seconds(1);
  in.switch_lateness.assign(19, absl::Microseconds(200));  // 0.04 % of 500ms
  ExperimentResult r = Analyze(in);
  EXPECT_FALSE(Tripped(r, "late_switches"));
  EXPECT_EQ(r.total, absl::Seconds(11));  // one ramp, 20 slices of 500ms
  in.switch_lateness[7] = absl::Milliseconds(20);  // 4 % of a slice
  r = Analyze(in);
  EXPECT_TRUE(Tripped(r, "late_switches"));
  EXPECT_TRUE(r.arms[1].suspect);
  EXPECT_NE(FormatExperimentJson(r).find("\"live\":true"), std::string::npos);
}

// Each round's histogram: `n` I/Os of `ns` +- 10 %.
CompactHistogram RoundHistogram(int n, double ns, int round) {
  LatencyHistogram h;
  for (int i = 0; i < n; ++i) {
    h.Record(static_cast<uint64_t>(ns * (0.9 + 0.2 * ((i * 37 + round * 11) % 100) / 100.0)));
  }
  return CompactHistogram::Of(h);
}

TEST(AnalyzeTest, LatencyComesFromMergedHistogramsWhereRecorded) {
  ExperimentInput in = TwoArms(10, 1.25);
  in.latency.resize(2);
  for (int r = 0; r < 10; ++r) {
    in.latency[0].push_back(RoundHistogram(1000, 100000, r));
    in.latency[1].push_back(RoundHistogram(1000, 70000, r));
  }
  const ExperimentResult r = Analyze(in);
  for (Metric m : {Metric::kP50, Metric::kP99, Metric::kP999}) {
    const MetricResult& arm = r.arms[1].metrics[static_cast<size_t>(m)];
    const MetricResult& base = r.arms[0].metrics[static_cast<size_t>(m)];
    ASSERT_TRUE(arm.from_merges);
    ASSERT_TRUE(base.from_merges);
    EXPECT_NEAR(arm.estimate.ratio, 0.7, 0.02);
    EXPECT_DOUBLE_EQ(arm.estimate.ratio, arm.merged / base.merged);
    EXPECT_LE(arm.estimate.ci_lo, arm.estimate.ratio);
    EXPECT_GE(arm.estimate.ci_hi, arm.estimate.ratio);
    EXPECT_EQ(arm.verdict, Verdict::kFaster);  // lower latency
  }
  // The per-round samples stay in the JSON beside the merged value.
  const std::string json = FormatExperimentJson(r);
  EXPECT_NE(json.find("\"statistic\":\"merged histograms\""), std::string::npos);
  // A round without I/O: back to per-round percentiles, said nowhere else.
  in.latency[1][3] = CompactHistogram{};
  EXPECT_FALSE(Analyze(in).arms[1].metrics[3].from_merges);
}

TEST(ParseMetricTest, NamesAndRefusal) {
  EXPECT_EQ(*ParseMetric("p99_ns"), Metric::kP99);
  const absl::StatusOr<Metric> bad = ParseMetric("speed");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--metric=speed"), std::string::npos);
}

TEST(FormatTest, JsonCarriesTheAcceptanceFields) {
  const std::string json = FormatExperimentJson(Analyze(TwoArms(10, 1.25)));
  for (const char* needle :
       {"{\"experiment\":{", "\"arms\":[{\"name\":\"rate_iops=20000\"",
        "\"baseline\":true", "\"verdict\":\"faster\"", "\"ratio\":1.25",
        "\"ci\":[", "\"samples\":[", "\"order\":[\"AB\",\"BA\"",
        "\"margin\":0.02", "\"confidence\":0.95", "\"seed\":9",
        "\"guardrails\":[]",
        "\"statistic\":\"median of the per-round ratios arm/baseline (on logs)\"",
        "\"interval\":\"expanded percentile\""}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle << "\n" << json;
  }
  EXPECT_EQ(json.back(), '\n');
}

}  // namespace
}  // namespace blkperf
