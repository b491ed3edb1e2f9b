#include "daemon/engine/shape/alias_table.h"

#include <vector>

#include "daemon/engine/testing/chi_square.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using testing::ChiSquare;
using testing::ChiSquareCritical;
using testing::TestRandom;

std::vector<uint64_t> Draw(const AliasTable& t, int n, uint64_t seed) {
  std::vector<uint64_t> counts(t.size());
  TestRandom rng(seed);
  for (int i = 0; i < n; ++i) ++counts[t.Sample(rng())];
  return counts;
}

TEST(AliasTableTest, ProbabilitiesAreTheWeightsShares) {
  absl::StatusOr<AliasTable> t = AliasTable::Build({70, 20, 10});
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 3u);
  EXPECT_NEAR(t->Probability(0), 0.7, 1e-9);
  EXPECT_NEAR(t->Probability(1), 0.2, 1e-9);
  EXPECT_NEAR(t->Probability(2), 0.1, 1e-9);
  const std::vector<uint64_t> counts = Draw(*t, 1'000'000, 7);
  EXPECT_LT(ChiSquare(counts, {0.7, 0.2, 0.1}), ChiSquareCritical(2));
}

TEST(AliasTableTest, ManyUnevenWeightsMatchTheirShares) {
  std::vector<double> weights;
  double sum = 0;
  for (int i = 0; i < 200; ++i) {
    weights.push_back(1.0 / (1 + i % 17) + (i % 5 == 0 ? 3 : 0));
    sum += weights.back();
  }
  absl::StatusOr<AliasTable> t = AliasTable::Build(weights);
  ASSERT_TRUE(t.ok()) << t.status();
  std::vector<double> expected;
  for (double w : weights) expected.push_back(w / sum);
  for (int i = 0; i < 200; ++i) {
    EXPECT_NEAR(t->Probability(i), expected[i], 1e-8) << i;
  }
  EXPECT_LT(ChiSquare(Draw(*t, 2'000'000, 11), expected),
            ChiSquareCritical(199));
}

TEST(AliasTableTest, ZeroWeightsAreNeverDrawn) {
  absl::StatusOr<AliasTable> t = AliasTable::Build({0, 1, 0, 3});
  ASSERT_TRUE(t.ok());
  const std::vector<uint64_t> counts = Draw(*t, 100'000, 3);
  EXPECT_EQ(counts[0], 0u);
  EXPECT_EQ(counts[2], 0u);
  EXPECT_EQ(counts[1] + counts[3], 100'000u);
}

TEST(AliasTableTest, OneEntryAndExtremeRandoms) {
  const AliasTable one;
  EXPECT_EQ(one.Sample(0), 0u);
  EXPECT_EQ(one.Sample(~uint64_t{0}), 0u);
  absl::StatusOr<AliasTable> t = AliasTable::Build({1, 1, 1});
  ASSERT_TRUE(t.ok());
  EXPECT_LT(t->Sample(~uint64_t{0}), 3u);
  EXPECT_LT(t->Sample(0), 3u);
}

TEST(AliasTableTest, RefusesBadWeights) {
  EXPECT_FALSE(AliasTable::Build({}).ok());
  EXPECT_FALSE(AliasTable::Build({0, 0}).ok());
  EXPECT_FALSE(AliasTable::Build({1, -1}).ok());
  EXPECT_FALSE(AliasTable::Build({1, std::nan("")}).ok());
}

}  // namespace
}  // namespace blkperf
