// Each offset distribution's empirical histogram, at a fixed seed, against
// its formula (io_shape.h) computed here independently of the sampler:
// Pearson's chi-square must stay below its 0.001 critical value.
#include "daemon/engine/shape/offset_distribution.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/engine/testing/chi_square.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using testing::ChiSquare;
using testing::ChiSquareCritical;
using testing::TestRandom;

constexpr uint64_t kSlots = uint64_t{1} << 20;
constexpr int kDraws = 2'000'000;

OffsetSampler Make(absl::string_view text, uint64_t slots) {
  absl::StatusOr<OffsetDistribution> d =
      ParseOffsetDistribution(text, "distribution");
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<OffsetSampler> s = OffsetSampler::Create(*d, slots);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : OffsetSampler();
}

// Bin edges 0, 1, 2, 4, ... up to `slots` (powers of two).
std::vector<uint64_t> Log2Edges(uint64_t slots) {
  std::vector<uint64_t> edges = {0};
  for (uint64_t e = 1; e < slots; e *= 2) edges.push_back(e);
  edges.push_back(slots);
  return edges;
}

// Counts per bin of the draws' ranks: (slot - rotation) mod N, the slot
// itself without a rotation.
std::vector<uint64_t> Histogram(const OffsetSampler& s, uint64_t slots,
                                const std::vector<uint64_t>& edges,
                                uint64_t seed, uint64_t rotation = 0) {
  std::vector<uint64_t> counts(edges.size() - 1);
  TestRandom rng(seed);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t slot = s.Sample(rng(), rng());
    EXPECT_LT(slot, slots);
    const uint64_t rank =
        slot >= rotation ? slot - rotation : slot + slots - rotation;
    const size_t bin =
        std::upper_bound(edges.begin(), edges.end(), rank) - edges.begin() - 1;
    ++counts[bin];
  }
  return counts;
}

// Probability of each bin from a per-slot mass (summed exactly).
template <typename Mass>
std::vector<double> BinsFromSlots(const std::vector<uint64_t>& edges,
                                  Mass mass) {
  std::vector<long double> bins(edges.size() - 1);
  long double total = 0;
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    for (uint64_t k = edges[b]; k < edges[b + 1]; ++k) bins[b] += mass(k);
    total += bins[b];
  }
  std::vector<double> p;
  for (long double v : bins) p.push_back(static_cast<double>(v / total));
  return p;
}

void ExpectFits(const std::vector<uint64_t>& counts,
                const std::vector<double>& p) {
  ASSERT_EQ(counts.size(), p.size());
  const double chi = ChiSquare(counts, p);
  EXPECT_LT(chi, ChiSquareCritical(static_cast<double>(p.size() - 1)))
      << "chi-square " << chi << " over " << p.size() << " bins";
}

TEST(OffsetDistributionTest, UniformIsFlat) {
  const OffsetSampler s = Make("uniform", 1000);
  std::vector<uint64_t> edges;
  for (uint64_t e = 0; e <= 1000; e += 20) edges.push_back(e);
  ExpectFits(Histogram(s, 1000, edges, 1), std::vector<double>(50, 0.02));
  EXPECT_EQ(s.buckets().size(), 1u);
}

class ZipfTest : public ::testing::TestWithParam<double> {};

TEST_P(ZipfTest, MatchesTheZipfMass) {
  const double theta = GetParam();
  const OffsetSampler s =
      Make(absl::StrCat("zipf:", theta), kSlots);
  const std::vector<uint64_t> edges = Log2Edges(kSlots);
  ExpectFits(Histogram(s, kSlots, edges, 2),
             BinsFromSlots(edges, [theta](uint64_t k) {
               return std::pow(static_cast<long double>(k + 1), -theta);
             }));
  // Slot 0 alone: 1 / H(N, theta), a bucket of its own.
  long double h = 0;
  for (uint64_t k = 1; k <= kSlots; ++k) h += std::pow((long double)k, -theta);
  EXPECT_NEAR(s.BucketProbability(0), static_cast<double>(1 / h), 1e-6);
  EXPECT_LT(s.buckets().size(), 4000u);
}

INSTANTIATE_TEST_SUITE_P(Thetas, ZipfTest, ::testing::Values(0.8, 1.0, 1.2));

TEST(OffsetDistributionTest, ParetoMatchesItsCdfAndTheEightyTwentyRule) {
  const double h = 0.2;
  const OffsetSampler s = Make("pareto:0.2", kSlots);
  const long double a = std::log(1 - h) / std::log(h);
  const std::vector<uint64_t> edges = Log2Edges(kSlots);
  std::vector<double> p;
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    p.push_back(static_cast<double>(
        std::pow((long double)edges[b + 1] / kSlots, a) -
        std::pow((long double)edges[b] / kSlots, a)));
  }
  ExpectFits(Histogram(s, kSlots, edges, 3), p);
  // fio's pareto:0.2: the first 20% of the slots get 80% of the I/O.
  TestRandom rng(4);
  int in_first_fifth = 0;
  for (int i = 0; i < 200'000; ++i) {
    in_first_fifth += s.Sample(rng(), rng()) < kSlots / 5;
  }
  EXPECT_NEAR(in_first_fifth / 200'000.0, 0.8, 0.005);
}

// The draws' ranks (slot - rotation) mod N of a normal:SIGMA sampler fit
// the Gaussian with mean N/2: 40 bins over mean +- 4 sigma, and the tails.
void ExpectGaussianAroundTheMiddle(const OffsetSampler& s, double sigma,
                                   uint64_t rotation, uint64_t seed) {
  const double mu = kSlots / 2.0, sd = sigma * kSlots;
  std::vector<uint64_t> edges = {0};
  for (int i = 0; i <= 40; ++i) {
    edges.push_back(static_cast<uint64_t>(mu - 4 * sd + i * 0.2 * sd));
  }
  edges.push_back(kSlots);
  auto cdf = [&](double x) {
    return 0.5 * std::erfc(-(x - mu) / (sd * std::sqrt(2.0)));
  };
  const double total = cdf(kSlots) - cdf(0);
  std::vector<double> p;
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    p.push_back((cdf(edges[b + 1]) - cdf(edges[b])) / total);
  }
  ExpectFits(Histogram(s, kSlots, edges, seed, rotation), p);
}

TEST(OffsetDistributionTest, NormalMatchesTheGaussianAroundTheMiddle) {
  ExpectGaussianAroundTheMiddle(Make("normal:0.05", kSlots), 0.05, 0, 5);
}

// fio's center: zipf:1.2:0.25's hottest slot is floor(N / 4) and the ranks
// follow it, wrapping: the draws' ranks (slot - N/4) mod N fit the zipf
// mass, and slot N/4 alone has rank 0's mass.
TEST(OffsetDistributionTest, ZipfCenterPutsTheHotSetThere) {
  const OffsetSampler s = Make("zipf:1.2:0.25", kSlots);
  ASSERT_EQ(s.rotation(), kSlots / 4);
  const std::vector<uint64_t> edges = Log2Edges(kSlots);
  ExpectFits(Histogram(s, kSlots, edges, 12, kSlots / 4),
             BinsFromSlots(edges, [](uint64_t k) {
               return std::pow(static_cast<long double>(k + 1), -1.2L);
             }));
  TestRandom rng(13);
  int at_center = 0, at_start = 0;
  for (int i = 0; i < 100'000; ++i) {
    const uint64_t slot = s.Sample(rng(), rng());
    at_center += slot == kSlots / 4;
    at_start += slot == 0;
  }
  EXPECT_NEAR(at_center / 100'000.0, s.BucketProbability(0), 0.01);
  EXPECT_LT(at_start, 100);
}

// normal:0.05:0.2: the bell's mean moves from N/2 to floor(0.2 N), its
// shape unchanged (ranks (slot - R) mod N fit the Gaussian at the middle).
TEST(OffsetDistributionTest, NormalCenterMovesTheMean) {
  const OffsetSampler s = Make("normal:0.05:0.2", kSlots);
  const uint64_t r = s.rotation();
  ASSERT_EQ((kSlots / 2 + r) % kSlots, static_cast<uint64_t>(0.2 * kSlots));
  ExpectGaussianAroundTheMiddle(s, 0.05, r, 14);
}

// scatter: each rank k goes to (ScatterSlot(k) + R) mod N. pareto:0.2's
// 80 % of the I/O on the first fifth of the slots is spread over the
// target; the draws per block of 64 slots fit the mass the formula puts
// there, summed over the ranks hashed into it.
TEST(OffsetDistributionTest, ScatterSpreadsTheHotSetAsItsHashSays) {
  constexpr uint64_t kSmall = 4096;
  for (const char* text : {"pareto:0.2:scatter", "pareto:0.2:0.5:scatter"}) {
    SCOPED_TRACE(text);
    const OffsetSampler s = Make(text, kSmall);
    const long double a = std::log(0.8L) / std::log(0.2L);
    std::vector<long double> slot_mass(kSmall);
    for (uint64_t k = 0; k < kSmall; ++k) {
      const long double mass = std::pow((long double)(k + 1) / kSmall, a) -
                               std::pow((long double)k / kSmall, a);
      slot_mass[(ScatterSlot(k, kSmall) + s.rotation()) % kSmall] += mass;
    }
    std::vector<uint64_t> edges;
    for (uint64_t e = 0; e <= kSmall; e += 64) edges.push_back(e);
    ExpectFits(Histogram(s, kSmall, edges, 15),
               BinsFromSlots(edges, [&](uint64_t k) { return slot_mass[k]; }));
    TestRandom rng(16);
    int in_first_fifth = 0;
    for (int i = 0; i < 200'000; ++i) {
      in_first_fifth += s.Sample(rng(), rng()) < kSmall / 5;
    }
    EXPECT_LT(in_first_fifth / 200'000.0, 0.5);  // 0.8 without scatter
  }
}

TEST(OffsetDistributionTest, NarrowNormalOnASmallTargetUsesASlotEach) {
  const OffsetSampler s = Make("normal:0.1", 200);
  EXPECT_EQ(s.buckets().size(), 200u);
  std::vector<uint64_t> edges;
  for (uint64_t e = 40; e <= 160; e += 10) edges.push_back(e);
  edges.insert(edges.begin(), 0);
  edges.push_back(200);
  auto cdf = [](double x) {
    return 0.5 * std::erfc(-(x - 100) / (20 * std::sqrt(2.0)));
  };
  std::vector<double> p;
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    p.push_back((cdf(edges[b + 1]) - cdf(edges[b])) / (cdf(200) - cdf(0)));
  }
  ExpectFits(Histogram(s, 200, edges, 6), p);
}

TEST(OffsetDistributionTest, HugeTargetsStayInRangeWithFewBuckets) {
  const uint64_t slots = uint64_t{1} << 40;
  for (const char* text : {"zipf:1.2", "pareto:0.3", "normal:0.01",
                           "zipf:1.2:0.9:scatter", "normal:0.01:0.99"}) {
    const OffsetSampler s = Make(text, slots);
    EXPECT_LT(s.buckets().size(), 70'000u) << text;
    uint64_t covered = 0;
    for (const OffsetSampler::Bucket& b : s.buckets()) {
      EXPECT_EQ(b.first, covered) << text;
      EXPECT_GE(b.count, 1u);
      covered += b.count;
    }
    EXPECT_EQ(covered, slots) << text;
    EXPECT_LT(s.Sample(~uint64_t{0}, ~uint64_t{0}), slots);
    EXPECT_LT(s.Sample(0, ~uint64_t{0}), slots);
  }
}

TEST(OffsetDistributionTest, OneSlotAlwaysGivesSlotZero) {
  for (const char* text : {"uniform", "zipf:2", "pareto:0.5", "normal:0.5",
                           "zipf:2:0.7:scatter", "normal:0.5:1"}) {
    const OffsetSampler s = Make(text, 1);
    TestRandom rng(8);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(s.Sample(rng(), rng()), 0u);
  }
}

}  // namespace
}  // namespace blkperf
