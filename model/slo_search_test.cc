// The SLO search against a model device whose latency grows with load:
// an M/M/1 queue of capacity mu, where the response time is exponential
// with rate mu - lambda, so its p-th percentile is -ln(1 - p/100) /
// (mu - lambda) and p99 < B holds exactly below lambda* = mu - ln(100)/B.
#include "model/slo_search.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

constexpr double kCapacity = 10000;  // IOPS

uint64_t MM1PercentileNs(double p, double rate) {
  if (rate >= kCapacity) return uint64_t{1} << 40;
  return static_cast<uint64_t>(-std::log(1 - p / 100) / (kCapacity - rate) *
                               1e9);
}

SloStep Measure(const SloTarget& target, double rate) {
  SloStep s;
  s.asked_iops = rate;
  s.iops = rate == 0 ? kCapacity : rate;
  s.ios = 20000;
  const double load = rate == 0 ? kCapacity * 0.999 : rate;
  s.p50_ns = MM1PercentileNs(50, load);
  s.p99_ns = MM1PercentileNs(99, load);
  s.p99_9_ns = MM1PercentileNs(99.9, load);
  s.value_ns = MM1PercentileNs(target.percentile, load);
  return s;
}

SloSummary Search(absl::string_view slo, double precision) {
  absl::StatusOr<SloTarget> target = ParseSloTarget(slo, "slo");
  EXPECT_TRUE(target.ok()) << target.status();
  SloSearch search(*target, precision);
  int steps = 0;
  while (std::optional<double> rate = search.NextRate()) {
    search.Record(Measure(*target, *rate));
    EXPECT_LE(++steps, kMaxSloSteps);
  }
  return search.summary();
}

TEST(SloSearchTest, ConvergesOnTheRateWhereTheObjectiveStartsToFail) {
  const SloSummary s = Search("p99<1ms", 0.02);
  ASSERT_TRUE(s.done);
  const double exact = kCapacity - std::log(100.0) / 1e-3;  // 5394.8
  EXPECT_EQ(s.max_iops, kCapacity);
  EXPECT_LE(s.best_iops, exact);
  EXPECT_GT(s.failed_iops, exact);
  EXPECT_LE(s.failed_iops - s.best_iops, 0.02 * kCapacity);
  EXPECT_GE(s.best_iops, exact - 0.02 * kCapacity);
  // 1 closed-loop step + ceil(log2(1 / 0.02)) = 6 bisections + the two
  // ends of the final bracket re-tested.
  ASSERT_EQ(s.steps.size(), 9u);
  EXPECT_TRUE(s.steps[7].retest);
  EXPECT_EQ(s.steps[7].asked_iops, s.best_iops);
  EXPECT_TRUE(s.steps[7].met);
  EXPECT_EQ(s.steps[8].asked_iops, s.failed_iops);
  EXPECT_FALSE(s.steps[8].met);
  EXPECT_EQ(s.warning, "");
  EXPECT_EQ(s.steps[0].asked_iops, 0);
  for (size_t i = 1; i < s.steps.size(); ++i) {
    EXPECT_EQ(s.steps[i].met, s.steps[i].value_ns < 1'000'000) << i;
    EXPECT_GT(s.steps[i].asked_iops, 0);
  }
  EXPECT_TRUE(s.note.empty()) << s.note;
  // The knee lies among the tested rates, below where latency explodes.
  EXPECT_GT(s.knee_iops, 0);
  EXPECT_LT(s.knee_iops, kCapacity);
}

TEST(SloSearchTest, OtherPercentilesAndInclusiveBounds) {
  const SloSummary s = Search("p99.9<=2ms", 0.05);
  const double exact = kCapacity - std::log(1000.0) / 2e-3;  // 6546
  EXPECT_LE(s.best_iops, exact);
  EXPECT_GT(s.failed_iops, exact);
  EXPECT_LE(s.failed_iops - s.best_iops, 0.05 * kCapacity);
}

TEST(SloSearchTest, AnObjectiveNoRateMeetsEndsWithZeroAndSaysSo) {
  const SloSummary s = Search("p99<10us", 0.1);
  ASSERT_TRUE(s.done);
  EXPECT_EQ(s.best_iops, 0);
  EXPECT_LE(s.failed_iops, 0.1 * kCapacity);
  EXPECT_NE(s.note.find("no rate tested met p99<10us"), std::string::npos)
      << s.note;
}

TEST(SloSearchTest, AnEasyObjectiveEndsNearTheClosedLoopMaximum) {
  const SloSummary s = Search("p99<10s", 0.05);
  EXPECT_GE(s.best_iops, 0.95 * kCapacity);
  EXPECT_EQ(s.failed_iops, kCapacity);  // nothing tested failed
}

TEST(SloSearchTest, AClosedLoopStepWithoutIoEndsTheSearch) {
  SloSearch search(SloTarget{}, 0.05);
  ASSERT_EQ(search.NextRate(), 0.0);
  search.Record(SloStep{});
  EXPECT_FALSE(search.NextRate().has_value());
  EXPECT_FALSE(search.summary().note.empty());
}

// The M/M/1 model with an interval of +-`spread` around each percentile, as
// a step with few tail samples has.
SloSummary SearchWithIntervals(const SloTarget& target, double spread) {
  SloSearch search(target, 0.02);
  int steps = 0;
  while (std::optional<double> rate = search.NextRate()) {
    SloStep step = Measure(target, *rate);
    step.interval_known = true;
    step.value_bounded_above = true;
    step.value_low_ns = static_cast<uint64_t>(step.value_ns * (1 - spread));
    step.value_high_ns = static_cast<uint64_t>(step.value_ns * (1 + spread));
    search.Record(step);
    EXPECT_LE(++steps, kMaxSloSteps);
  }
  return search.summary();
}

TEST(SloSearchTest, AStepWhoseIntervalStraddlesTheBoundIsUndecidedAndRepeated) {
  const SloTarget target = ParseSloTarget("p99<1ms", "slo").value();
  const SloSummary s = SearchWithIntervals(target, 0.3);
  ASSERT_TRUE(s.done);
  int undecided = 0;
  for (size_t i = 1; i < s.steps.size(); ++i) {
    const SloStep& st = s.steps[i];
    switch (st.verdict) {
      case SloVerdict::kMet:
        EXPECT_LT(st.value_high_ns, 1'000'000u) << i;
        break;
      case SloVerdict::kMissed:
        EXPECT_GE(st.value_low_ns, 1'000'000u) << i;
        break;
      case SloVerdict::kUndecided:
        ++undecided;
        EXPECT_LT(st.value_low_ns, 1'000'000u) << i;
        EXPECT_GE(st.value_high_ns, 1'000'000u) << i;
        // Repeated at the same rate (the model repeats itself: undecided).
        if (!st.retest && (i + 1 < s.steps.size()) &&
            s.steps[i - 1].asked_iops != st.asked_iops) {
          EXPECT_EQ(s.steps[i + 1].asked_iops, st.asked_iops) << i;
        }
        break;
    }
    EXPECT_EQ(st.met, st.verdict == SloVerdict::kMet);
  }
  EXPECT_GT(undecided, 0);
  // The answer is a rate shown to meet the objective: its whole interval.
  ASSERT_GT(s.best_iops, 0);
  EXPECT_LT(s.best_value_high_ns, 1'000'000u);
  const double exact = kCapacity - std::log(100.0) / 1e-3;
  EXPECT_LT(s.best_iops, exact);
  // Undecided steps count as not met: failed_iops may lie below the exact
  // rate, never the answer above it.
  EXPECT_GT(s.failed_iops, s.best_iops);
}

TEST(SloSearchTest, ARetestThatDisagreesWarns) {
  const SloTarget target = ParseSloTarget("p99<1ms", "slo").value();
  SloSearch search(target, 0.1);
  std::vector<double> met_rates;
  while (std::optional<double> rate = search.NextRate()) {
    SloStep step = Measure(target, *rate);
    const bool seen = std::find(met_rates.begin(), met_rates.end(), *rate) !=
                      met_rates.end();
    // A device that meets the objective once at a rate, then never again.
    if (seen) step.value_ns = 5'000'000;
    else if (target.Met(step.value_ns)) met_rates.push_back(*rate);
    search.Record(step);
  }
  const SloSummary& s = search.summary();
  ASSERT_TRUE(s.done);
  ASSERT_GT(s.best_iops, 0);
  EXPECT_NE(s.warning.find("re-test at"), std::string::npos) << s.warning;
  EXPECT_NE(s.warning.find("missed where its first step met"), std::string::npos)
      << s.warning;
}

TEST(SloSearchTest, KneeIsWhereTheCurveLeavesTheDiagonal) {
  // Flat, flat, then climbing: the knee is the last flat point.
  EXPECT_EQ(KneeRate({{1000, 100}, {2000, 110}, {3000, 120}, {4000, 5000}}),
            3000);
  // The farthest point below the diagonal, not the first that rises.
  EXPECT_EQ(KneeRate({{1000, 100}, {2000, 110}, {3000, 120}, {4000, 1000},
                      {5000, 5000}}),
            4000);
  // A noisy step above the knee does not fold the curve.
  EXPECT_EQ(KneeRate({{767, 36}, {863, 6780}, {959, 73000}, {1150, 6650}}),
            863);
  EXPECT_EQ(KneeRate({{1000, 100}, {2000, 100}}), 0);   // too few
  EXPECT_EQ(KneeRate({{1, 5}, {2, 5}, {3, 5}}), 0);     // flat
}

}  // namespace
}  // namespace blkperf
