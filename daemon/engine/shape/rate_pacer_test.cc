#include "daemon/engine/shape/rate_pacer.h"

#include <cmath>
#include <limits>
#include <vector>

#include "daemon/engine/testing/chi_square.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using testing::ChiSquare;
using testing::ChiSquareCritical;
using testing::TestRandom;

TEST(RatePacerTest, ClosedLoopIsAlwaysDue) {
  RatePacer pacer;
  EXPECT_FALSE(pacer.open_loop());
  EXPECT_LE(pacer.next_ns(), std::numeric_limits<int64_t>::min() + 1);
  pacer.Advance(12345, 4096);
  EXPECT_LE(pacer.next_ns(), std::numeric_limits<int64_t>::min() + 1);
}

TEST(RatePacerTest, UniformGapsAreExactAndDoNotDrift) {
  RatePacer pacer;
  pacer.Reset({.per_second = 20000}, 1'000'000);
  EXPECT_TRUE(pacer.open_loop());
  EXPECT_EQ(pacer.next_ns(), 1'000'000);
  pacer.Advance(0, 4096);
  EXPECT_EQ(pacer.next_ns(), 1'050'000);
  // 3 per second: 333333333.33 ns gaps, each rounded to 2^-16 ns: after 3
  // million of them 1e6 seconds later to within 3e6 x 2^-17 ns.
  pacer.Reset({.per_second = 3}, 0);
  for (int i = 0; i < 3'000'000; ++i) pacer.Advance(i, 4096);
  EXPECT_NEAR(static_cast<double>(pacer.next_ns()), 1e15, 3e6 / 131072 + 1);
}

TEST(RatePacerTest, ByteRatesAdvanceByTheLength) {
  RatePacer pacer;
  // 1 MiB/s: a 4 KiB I/O is 1/256 s, a 64 KiB one 1/16 s.
  pacer.Reset({.per_second = 1 << 20, .per_byte = true}, 0);
  pacer.Advance(0, 4096);
  EXPECT_EQ(pacer.next_ns(), 3'906'250);
  pacer.Advance(0, 65536);
  EXPECT_EQ(pacer.next_ns(), 3'906'250 + 62'500'000);
}

TEST(RatePacerTest, PoissonGapsAreExponentialWithTheRightMean) {
  RatePacer pacer;
  const double rate = 10000;  // mean gap 100 us
  pacer.Reset({.per_second = rate, .arrivals = Arrivals::kPoisson}, 0);
  TestRandom rng(17);
  constexpr int kGaps = 1'000'000;
  constexpr int kBins = 16;  // equiprobable bins of Exp(mean)
  std::vector<uint64_t> counts(kBins);
  int64_t last = pacer.next_ns();
  double longest = 0;
  for (int i = 0; i < kGaps; ++i) {
    pacer.Advance(rng(), 4096);
    const double gap = static_cast<double>(pacer.next_ns() - last);
    last = pacer.next_ns();
    longest = std::max(longest, gap);
    // CDF of Exp(1e5 ns) at the gap, binned.
    const double u = 1 - std::exp(-gap / 1e5);
    ++counts[std::min(kBins - 1, static_cast<int>(u * kBins))];
  }
  EXPECT_NEAR(static_cast<double>(last) / kGaps, 1e5, 1e5 * 0.005);
  EXPECT_LT(ChiSquare(counts, std::vector<double>(kBins, 1.0 / kBins)),
            ChiSquareCritical(kBins - 1));
  EXPECT_LT(longest, 9.2e5);
}

TEST(RatePacerTest, ResetRestartsTheSchedule) {
  RatePacer pacer;
  pacer.Reset({.per_second = 1000}, 0);
  for (int i = 0; i < 10; ++i) pacer.Advance(0, 512);
  EXPECT_EQ(pacer.next_ns(), 10'000'000);
  pacer.Reset({.per_second = 500}, 7);
  EXPECT_EQ(pacer.next_ns(), 7);
  pacer.Advance(0, 512);
  EXPECT_EQ(pacer.next_ns(), 2'000'007);
  pacer.Reset({}, 99);
  EXPECT_FALSE(pacer.open_loop());
}

}  // namespace
}  // namespace blkperf
