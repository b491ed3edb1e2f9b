#include "experiment/statistics.h"

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

#include "experiment/testdata/scipy_reference.inc"

TEST(QuantileTest, MatchesNumpyLinear) {
  for (const auto& [q, expected] : kQuantiles) {
    EXPECT_NEAR(Quantile(kBaseline, q), expected, 1e-9) << "q=" << q;
  }
}

TEST(PairedRatioTest, RatioIsTheMedianOfRoundRatios) {
  const RatioEstimate r = PairedRatio(kBaseline, kArm, 0.95);
  EXPECT_EQ(r.samples, 12);
  EXPECT_NEAR(r.ratio, kMedianRatio, 1e-12);
}

// SciPy draws its own resamples (at the expanded level, computed by SciPy):
// the intervals agree within a small share of their width (each end's
// Monte Carlo error is about 1 % of it here).
TEST(PairedRatioTest, IntervalMatchesScipyPercentileBootstrap) {
  for (const auto& [confidence, lo, hi] :
       {std::array<double, 3>{0.95, kLogRatioLo95, kLogRatioHi95},
        std::array<double, 3>{0.90, kLogRatioLo90, kLogRatioHi90}}) {
    const RatioEstimate r = PairedRatio(kBaseline, kArm, confidence);
    const double width = hi - lo;
    EXPECT_NEAR(std::log(r.ci_lo), lo, 0.05 * width) << confidence;
    EXPECT_NEAR(std::log(r.ci_hi), hi, 0.05 * width) << confidence;
    EXPECT_LT(r.ci_lo, r.ratio);
    EXPECT_GT(r.ci_hi, r.ratio);
  }
}

TEST(UnpairedRatioTest, MatchesScipyTwoSampleBootstrap) {
  const std::vector<double> b(kArm.begin() + 2, kArm.end());
  const RatioEstimate r = UnpairedRatio(kBaseline, b, 0.95);
  EXPECT_NEAR(r.ratio, kUnpairedRatio, 1e-12);
  EXPECT_EQ(r.samples, 10);
  const double width = kUnpairedLogHi95 - kUnpairedLogLo95;
  EXPECT_NEAR(std::log(r.ci_lo), kUnpairedLogLo95, 0.05 * width);
  EXPECT_NEAR(std::log(r.ci_hi), kUnpairedLogHi95, 0.05 * width);
}

TEST(PairedRatioTest, ARoundHitByOtherLoadMovesNeitherRatioNorVerdict) {
  std::vector<double> hit = kArm;
  hit[3] *= 10;  // one round 10x off, as a compile burst on the arm's CPU does
  const RatioEstimate clean = PairedRatio(kBaseline, kArm, 0.95);
  const RatioEstimate r = PairedRatio(kBaseline, hit, 0.95);
  EXPECT_NEAR(r.ratio, clean.ratio, 0.005);
  EXPECT_LT(r.ci_hi, 1.2);
}

TEST(PairedRatioTest, FixedSeedGivesTheSameIntervalEveryTime) {
  const RatioEstimate a = PairedRatio(kBaseline, kArm, 0.95);
  const RatioEstimate b = PairedRatio(kBaseline, kArm, 0.95);
  EXPECT_EQ(a.ci_lo, b.ci_lo);
  EXPECT_EQ(a.ci_hi, b.ci_hi);
}

TEST(PairedRatioTest, ExactRatioEveryRoundGivesAPointInterval) {
  const std::vector<double> base = {20000, 20001, 19999, 20000};
  std::vector<double> arm;
  for (double b : base) arm.push_back(1.25 * b);
  const RatioEstimate r = PairedRatio(base, arm, 0.95);
  EXPECT_NEAR(r.ratio, 1.25, 1e-12);
  EXPECT_NEAR(r.ci_lo, 1.25, 1e-12);
  EXPECT_NEAR(r.ci_hi, 1.25, 1e-12);
}

TEST(DecideTest, TheIssuesRuleOnBothSidesOfEachBoundary) {
  const double m = 0.02;
  EXPECT_EQ(Decide(1.021, 1.3, m, Better::kHigher), Verdict::kFaster);
  EXPECT_EQ(Decide(1.02, 1.3, m, Better::kHigher), Verdict::kInconclusive);
  EXPECT_EQ(Decide(0.5, 0.979, m, Better::kHigher), Verdict::kSlower);
  EXPECT_EQ(Decide(0.5, 0.98, m, Better::kHigher), Verdict::kInconclusive);
  EXPECT_EQ(Decide(0.98, 1.02, m, Better::kHigher), Verdict::kEquivalent);
  EXPECT_EQ(Decide(0.979, 1.01, m, Better::kHigher), Verdict::kInconclusive);
  EXPECT_EQ(Decide(0.99, 1.03, m, Better::kHigher), Verdict::kInconclusive);
  // Lower is better (latency, CPU per I/O): the sides swap.
  EXPECT_EQ(Decide(1.021, 1.3, m, Better::kLower), Verdict::kSlower);
  EXPECT_EQ(Decide(0.5, 0.979, m, Better::kLower), Verdict::kFaster);
  EXPECT_EQ(Decide(0.99, 1.01, m, Better::kLower), Verdict::kEquivalent);
  EXPECT_EQ(VerdictName(Verdict::kInconclusive), "inconclusive");
}

TEST(MoreRoundsTest, ShrinksTheIntervalUntilItClearsTheBoundary) {
  // Estimate 1.05 with an interval reaching below 1.02: the half-width in
  // logs must fall to log(1.05) - log(1.02).
  RatioEstimate r{1.05, 1.05 / 1.06, 1.05 * 1.06, 10};
  const double half = std::log(1.06), room = std::log(1.05) - std::log(1.02);
  const int expected =
      static_cast<int>(std::ceil(10 * (half / room) * (half / room))) - 10;
  EXPECT_EQ(MoreRoundsToDecide(r, 0.02), expected);
  // An estimate on the boundary never decides.
  RatioEstimate on_edge{1.02, 0.99, 1.05, 10};
  EXPECT_EQ(MoreRoundsToDecide(on_edge, 0.02), -1);
  // Inside the margin, toward equivalence.
  RatioEstimate inside{1.0, 0.97, 1.031, 10};
  EXPECT_GT(MoreRoundsToDecide(inside, 0.02), 0);
}

TEST(StudentTTest, SurvivalMatchesScipy) {
  for (const auto& [t, df, expected] : kTSurvival) {
    EXPECT_NEAR(StudentTSurvival(t, df), expected, 1e-9 + 1e-7 * expected)
        << "t=" << t << " df=" << df;
  }
}

TEST(StudentTTest, InverseSurvivalMatchesScipy) {
  for (const auto& [p, df, expected] : kTInverse) {
    EXPECT_NEAR(StudentTInverseSurvival(p, df), expected, 1e-8)
        << "p=" << p << " df=" << df;
  }
}

TEST(ExpandedConfidenceTest, MatchesScipyAndWidensFewSamples) {
  for (const auto& [confidence, n, expected] : kExpanded) {
    EXPECT_NEAR(ExpandedConfidence(confidence, static_cast<int>(n)), expected,
                1e-9)
        << confidence << " n=" << n;
  }
  EXPECT_GT(ExpandedConfidence(0.95, 10), 0.95);
  EXPECT_EQ(ExpandedConfidence(0.95, 1), 0.95);
}

TEST(LinearTrendTest, MatchesScipyLinregress) {
  const Trend rising = LinearTrend(kTrend);
  EXPECT_NEAR(rising.slope, kTrendSlope, 1e-12);
  EXPECT_NEAR(rising.intercept, kTrendIntercept, 1e-12);
  EXPECT_NEAR(rising.p_value, kTrendPValue, 1e-9);
  const Trend flat = LinearTrend(kFlat);
  EXPECT_NEAR(flat.slope, kFlatSlope, 1e-12);
  EXPECT_NEAR(flat.p_value, kFlatPValue, 1e-9);
  EXPECT_EQ(LinearTrend({1.0, 2.0}).p_value, 1);
}

TEST(OutliersTest, ModifiedZScoreAboveThreePointFive) {
  EXPECT_EQ(Outliers(kWithOutlier), kOutlierIndexes);
  EXPECT_TRUE(Outliers(kFlat).empty());
  EXPECT_TRUE(Outliers({3.0, 3.0, 3.0, 9.0}).empty());  // MAD 0
}

TEST(OutliersTest, ARoundWithinTheRelativeFloorIsNotOutlying) {
  // MAD 0.1 % of the median: 101.5 has a z-score of about 10, yet it is
  // only 1.5 % off; 104 is 4 % off.
  const std::vector<double> tight = {100.0, 100.1, 99.9, 100.0, 100.1,
                                     99.9,  100.0, 101.5, 100.1, 104.0};
  EXPECT_EQ(Outliers(tight), (std::vector<int>{7, 9}));
  EXPECT_EQ(Outliers(tight, 3.5, 0.02), (std::vector<int>{9}));
  EXPECT_TRUE(Outliers(tight, 3.5, 0.05).empty());
}

TEST(TwoClustersTest, FindsTwoModesNotOneSpreadOrOneStray) {
  // Two modes, 5 rounds each, 30 % apart.
  const Clusters two = TwoClusters(
      {100, 70, 101, 71, 99, 70.5, 100.5, 69.5, 100.2, 70.2}, 2);
  EXPECT_TRUE(two.bimodal);
  EXPECT_EQ(two.low_count, 5);
  EXPECT_DOUBLE_EQ(two.low_median, 70.2);
  EXPECT_DOUBLE_EQ(two.high_median, 100.2);
  // One mode spread evenly: no gap twice the sides' ranges.
  EXPECT_FALSE(TwoClusters({90, 92, 94, 96, 98, 100, 102, 104, 106, 108}, 2).bimodal);
  // One stray value is an outlier, not a mode (each side needs 2).
  EXPECT_FALSE(TwoClusters({100, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 60}, 2).bimodal);
  // Two modes closer than the margin's gap do not count.
  EXPECT_FALSE(TwoClusters({100, 101, 100, 101, 100, 101, 100, 101}, 2).bimodal);
  EXPECT_FALSE(TwoClusters({1, 2, 3}, 0).bimodal);
}

}  // namespace
}  // namespace blkperf
