#include "experiment/latency_bootstrap.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

// A round's histogram: `n` latencies around `center_ns`, log-normal-ish.
LatencyHistogram Round(uint64_t seed, int n, double center_ns, double scale = 1) {
  std::mt19937_64 generator(seed);
  std::lognormal_distribution<double> spread(0, 0.6);
  LatencyHistogram h;
  for (int i = 0; i < n; ++i) {
    h.Record(static_cast<uint64_t>(scale * center_ns * spread(generator)));
  }
  return h;
}

std::vector<CompactHistogram> Compact(const std::vector<LatencyHistogram>& rounds) {
  std::vector<CompactHistogram> out;
  for (const LatencyHistogram& h : rounds) out.push_back(CompactHistogram::Of(h));
  return out;
}

// The naive twin: merge the rounds weights[i] times each, ask the merge.
uint64_t NaivePercentile(const std::vector<LatencyHistogram>& rounds,
                         const std::vector<uint32_t>& weights, double p) {
  LatencyHistogram merged;
  for (size_t i = 0; i < rounds.size(); ++i) {
    for (uint32_t w = 0; w < weights[i]; ++w) merged.Merge(rounds[i]);
  }
  return merged.Percentile(p);
}

TEST(MergeableRoundsTest, EveryWeightedMergeMatchesTheHistogramsOwnMerge) {
  std::vector<LatencyHistogram> rounds;
  for (int r = 0; r < 7; ++r) {
    // Rounds of different sizes and centres, one of a single I/O.
    rounds.push_back(Round(100 + r, r == 3 ? 1 : 50 + 40 * r, 20000 + 5000 * r));
  }
  const MergeableRounds mergeable(Compact(rounds));
  std::mt19937_64 generator(7);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint32_t> weights(rounds.size());
    for (uint32_t& w : weights) w = static_cast<uint32_t>(generator() % 3);
    for (double p : {0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
      ASSERT_EQ(mergeable.Percentile(weights, p), NaivePercentile(rounds, weights, p))
          << "trial " << trial << " p" << p;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 300 * 8);
  EXPECT_EQ(mergeable.Percentile(std::vector<uint32_t>(rounds.size(), 0), 50), 0u);
}

TEST(PairedPercentileRatiosTest, MatchesANaiveBootstrapOfMerges) {
  std::vector<LatencyHistogram> a, b;
  for (int r = 0; r < 6; ++r) {
    a.push_back(Round(200 + r, 300, 30000));
    b.push_back(Round(200 + r, 300, 30000, 1.3));  // a's I/Os, 1.3x as slow
  }
  const std::vector<double> percentiles = {50, 99, 99.9};
  const std::vector<RatioEstimate> got =
      PairedPercentileRatios(Compact(a), Compact(b), percentiles, 0.95);
  ASSERT_EQ(got.size(), 3u);
  // The twin: the same draws, merged with LatencyHistogram::Merge.
  std::mt19937_64 generator(kBootstrapSeed);
  std::vector<std::vector<double>> logs(3);
  for (int r = 0; r < kBootstrapResamples; ++r) {
    std::vector<uint32_t> weights(a.size(), 0);
    for (size_t d = 0; d < a.size(); ++d) ++weights[generator() % a.size()];
    for (size_t j = 0; j < 3; ++j) {
      logs[j].push_back(std::log(
          static_cast<double>(NaivePercentile(b, weights, percentiles[j])) /
          static_cast<double>(NaivePercentile(a, weights, percentiles[j]))));
    }
  }
  const double tail = (1 - ExpandedConfidence(0.95, 6)) / 2;
  const std::vector<uint32_t> all(a.size(), 1);
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(got[j].samples, 6);
    EXPECT_DOUBLE_EQ(got[j].ratio,
                     static_cast<double>(NaivePercentile(b, all, percentiles[j])) /
                         static_cast<double>(NaivePercentile(a, all, percentiles[j])));
    EXPECT_DOUBLE_EQ(got[j].ci_lo, std::exp(Quantile(logs[j], tail)));
    EXPECT_DOUBLE_EQ(got[j].ci_hi, std::exp(Quantile(logs[j], 1 - tail)));
    EXPECT_LE(got[j].ci_lo, got[j].ratio);
    EXPECT_GE(got[j].ci_hi, got[j].ratio);
  }
  // Each I/O 1.3x as slow: every percentile's ratio and interval are 1.3
  // within the buckets' resolution (1/64).
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_NEAR(got[j].ratio, 1.3, 1.3 / 64);
    EXPECT_GT(got[j].ci_lo, 1.3 * (1 - 1.0 / 32));
    EXPECT_LT(got[j].ci_hi, 1.3 * (1 + 1.0 / 32));
  }
}

TEST(PairedPercentileRatiosTest, IdenticalArmsGiveExactlyOne) {
  std::vector<LatencyHistogram> a;
  for (int r = 0; r < 10; ++r) a.push_back(Round(400 + r, 200, 10000 + 3000 * r));
  const std::vector<RatioEstimate> got =
      PairedPercentileRatios(Compact(a), Compact(a), {50, 99}, 0.95);
  for (const RatioEstimate& e : got) {
    EXPECT_EQ(e.ratio, 1.0);
    EXPECT_EQ(e.ci_lo, 1.0);
    EXPECT_EQ(e.ci_hi, 1.0);
  }
}

}  // namespace
}  // namespace blkperf
