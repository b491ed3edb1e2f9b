// The SLO search against a model device whose latency grows with load:
// an M/M/1 queue of capacity mu, where the response time is exponential
// with rate mu - lambda, so its p-th percentile is -ln(1 - p/100) /
// (mu - lambda) and p99 < B holds exactly below lambda* = mu - ln(100)/B.
#include "model/slo_search.h"

#include <cmath>

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
  // 1 closed-loop step + ceil(log2(1 / 0.02)) = 6 bisections.
  EXPECT_EQ(s.steps.size(), 7u);
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
