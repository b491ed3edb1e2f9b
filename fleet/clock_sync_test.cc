#include "fleet/clock_sync.h"

#include <cstdlib>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf::fleet {
namespace {

// A sample taken at local time `sent` over a link whose request takes
// `forward` ns and answer `back` ns, with a daemon `offset` ns ahead.
ClockSample Sample(int64_t sent, int64_t forward, int64_t back,
                   int64_t offset) {
  return {sent, sent + forward + offset, sent + forward + back};
}

TEST(ClockSyncTest, OneSampleIsItsRoundTripMidpoint) {
  const int64_t offset = 5'000'000;
  const ClockSample s = Sample(1000, 100, 100, offset);
  absl::StatusOr<ClockEstimate> e = EstimateOffset({&s, 1});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->rtt_ns, 200);
  EXPECT_EQ(e->error_ns, 100);
  EXPECT_EQ(e->offset_ns, offset);
  EXPECT_EQ(e->samples, 1);
  EXPECT_TRUE(e->consistent);
}

TEST(ClockSyncTest, CombinesTheFastestLegOfEachDirection) {
  // Neither sample is symmetric: one has a fast request and a slow answer,
  // the other the reverse. Each alone errs by 450 ns (its bound 500 ns);
  // together they pin the offset to within 50 ns.
  const int64_t offset = -777'000;
  const std::vector<ClockSample> samples = {
      Sample(1000, 50, 950, offset),
      Sample(9000, 950, 50, offset),
  };
  absl::StatusOr<ClockEstimate> e = EstimateOffset(samples);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->rtt_ns, 1000);
  EXPECT_EQ(e->error_ns, 50);
  EXPECT_EQ(e->offset_ns, offset);
  EXPECT_TRUE(e->consistent);
}

TEST(ClockSyncTest, NeverLooserThanTheMinimumRoundTripSample) {
  // Random asymmetric legs: the bound always holds and is never wider than
  // half the smallest round trip.
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> leg(2'000'000, 4'000'000);
  const int64_t offset = 3 * 3600 * int64_t{1'000'000'000};
  for (int round = 0; round < 1000; ++round) {
    std::vector<ClockSample> samples;
    for (int k = 0; k < 8; ++k) {
      samples.push_back(Sample(k * 10'000'000, leg(rng), leg(rng), offset));
    }
    absl::StatusOr<ClockEstimate> e = EstimateOffset(samples);
    ASSERT_TRUE(e.ok());
    EXPECT_LE(std::llabs(e->offset_ns - offset), e->error_ns) << round;
    EXPECT_LE(e->error_ns, e->rtt_ns - e->rtt_ns / 2) << round;
  }
}

TEST(ClockSyncTest, ErrorBoundHoldsWhereverTheReadFell) {
  const int64_t offset = -123456789;
  for (int64_t at = 0; at <= 777; ++at) {
    ClockSample s{1000, 1000 + at + offset, 1777};
    absl::StatusOr<ClockEstimate> e = EstimateOffset({&s, 1});
    ASSERT_TRUE(e.ok());
    EXPECT_LE(std::llabs(e->offset_ns - offset), e->error_ns) << at;
  }
}

TEST(ClockSyncTest, DisagreeingSamplesFallBackToTheFastestAndSaySo) {
  // The daemon's clock stepped by 1 ms between the samples: no offset fits
  // both, so the minimum-round-trip sample alone is used.
  const std::vector<ClockSample> samples = {
      Sample(1000, 100, 100, 0),
      Sample(9000, 300, 300, 1'000'000),
  };
  absl::StatusOr<ClockEstimate> e = EstimateOffset(samples);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(e->consistent);
  EXPECT_EQ(e->offset_ns, 0);
  EXPECT_EQ(e->error_ns, 100);
  EXPECT_EQ(e->rtt_ns, 200);
}

TEST(ClockSyncTest, RefusesBadInput) {
  EXPECT_EQ(EstimateOffset({}).status().code(),
            absl::StatusCode::kInvalidArgument);
  ClockSample backwards{10, 5, 9};
  EXPECT_EQ(EstimateOffset({&backwards, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blkperf::fleet
