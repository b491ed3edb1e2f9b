#include "experiment/stopping.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "experiment/statistics.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(MakeStoppingRuleTest, LooksGrowByHalfInWholeBlocksUpToTheMaximum) {
  const StoppingRule rule = MakeStoppingRule(10, 40, 0.95);
  EXPECT_EQ(rule.looks, (std::vector<int>{10, 16, 24, 36, 40}));
  EXPECT_DOUBLE_EQ(rule.look_confidence, 0.99);
  EXPECT_TRUE(rule.IsLook(24));
  EXPECT_FALSE(rule.IsLook(25));
  // No room to add rounds: one look at the family's confidence.
  const StoppingRule one = MakeStoppingRule(10, 10, 0.9);
  EXPECT_EQ(one.looks, (std::vector<int>{10}));
  EXPECT_DOUBLE_EQ(one.look_confidence, 0.9);
}

// One synthetic A/A experiment (fixed seed): max_rounds paired rounds, each
// with a drift both arms share (the machine's load that round) and
// independent log-normal noise of 5 %, looked at after each of `looks`
// rounds at `confidence` against margin 0 (every look's interval that
// leaves 1 is a false verdict; with no margin nothing is ever
// "equivalent", so every experiment runs to its last look: the worst case).
bool FalseVerdictAtSomeLook(uint64_t seed, const std::vector<int>& looks,
                            double confidence) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> drift(0, 0.10), noise(0, 0.05);
  std::vector<double> a, b;
  for (int round = 0; round < looks.back(); ++round) {
    const double shared = std::exp(drift(generator));
    a.push_back(20000 * shared * std::exp(noise(generator)));
    b.push_back(20000 * shared * std::exp(noise(generator)));
  }
  for (int n : looks) {
    const std::vector<double> a_n(a.begin(), a.begin() + n);
    const std::vector<double> b_n(b.begin(), b.begin() + n);
    // PairedRatio's interval, with 1,000 resamples instead of 10,000 to
    // keep the simulation's 2,000 intervals within seconds.
    std::vector<double> log_ratios;
    for (int i = 0; i < n; ++i) log_ratios.push_back(std::log(b_n[i] / a_n[i]));
    double lo = 0, hi = 0;
    BootstrapMedianInterval(log_ratios, ExpandedConfidence(confidence, n),
                            /*resamples=*/1000, kBootstrapSeed, &lo, &hi);
    const Verdict v =
        Decide(std::exp(lo), std::exp(hi), /*margin=*/0, Better::kHigher);
    if (v == Verdict::kFaster || v == Verdict::kSlower) return true;
  }
  return false;
}

TEST(StoppingRuleTest, KeepsTheFalseVerdictRateAtTheStatedLevelOnAaData) {
  constexpr int kExperiments = 200;
  constexpr double kConfidence = 0.95;
  const StoppingRule rule = MakeStoppingRule(10, 40, kConfidence);
  int with_rule = 0, peeking = 0;
  for (int e = 0; e < kExperiments; ++e) {
    const uint64_t seed = 1000 + static_cast<uint64_t>(e);
    with_rule += FalseVerdictAtSomeLook(seed, rule.looks, rule.look_confidence);
    // The same looks, each at the family's confidence: peeking.
    peeking += FalseVerdictAtSomeLook(seed, rule.looks, kConfidence);
  }
  std::printf("A/A, %d experiments, looks at 10,16,24,36,40 rounds, margin 0: "
              "false verdicts %d with the rule (each look at %.3f), %d when "
              "peeking at %.2f\n",
              kExperiments, with_rule, rule.look_confidence, peeking,
              kConfidence);
  // At most 1 - confidence of the experiments (5 %, 10 of 200), with two
  // binomial standard deviations of room for the simulation's own noise.
  const double level = (1 - kConfidence) * kExperiments;
  EXPECT_LE(with_rule, level + 2 * std::sqrt(level * kConfidence));
  // Peeking without the rule gives more false verdicts than it.
  EXPECT_GT(peeking, with_rule);
}

}  // namespace
}  // namespace blkperf
