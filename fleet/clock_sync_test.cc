#include "fleet/clock_sync.h"

#include <vector>

#include "gtest/gtest.h"

namespace blkperf::fleet {
namespace {

TEST(ClockSyncTest, KeepsMinimumRoundTripSample) {
  // True offset 5,000,000 ns. The daemon reads its clock somewhere within
  // each round trip; the short trip bounds the error best.
  const int64_t offset = 5000000;
  std::vector<ClockSample> samples = {
      {1000, 1000 + 900 + offset, 3000},   // rtt 2000, read late
      {5000, 5000 + 100 + offset, 5200},   // rtt 200
      {9000, 9000 + 10 + offset, 19000},   // rtt 10000, read early
  };
  absl::StatusOr<ClockEstimate> e = BestEstimate(samples);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->rtt_ns, 200);
  EXPECT_EQ(e->error_ns, 100);
  EXPECT_EQ(e->offset_ns, offset);
  EXPECT_EQ(e->samples, 3);
}

TEST(ClockSyncTest, ErrorBoundHoldsWhereverTheReadFell) {
  const int64_t offset = -123456789;
  for (int64_t at = 0; at <= 777; ++at) {
    ClockSample s{1000, 1000 + at + offset, 1777};
    absl::StatusOr<ClockEstimate> e = BestEstimate({&s, 1});
    ASSERT_TRUE(e.ok());
    EXPECT_LE(std::llabs(e->offset_ns - offset), e->error_ns) << at;
  }
}

TEST(ClockSyncTest, RefusesBadInput) {
  EXPECT_EQ(BestEstimate({}).status().code(),
            absl::StatusCode::kInvalidArgument);
  ClockSample backwards{10, 5, 9};
  EXPECT_EQ(BestEstimate({&backwards, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blkperf::fleet
