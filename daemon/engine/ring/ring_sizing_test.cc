#include "daemon/engine/ring/ring_sizing.h"

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

TEST(RingSizingTest, OneMibSplitNoneGetsTheHeadroomNotTheMaximum) {
  // 1 MiB reads of a 512-byte-sector device: the finest fixed split is 2048
  // pieces, which used to size the ring at 32,768 entries.
  PieceNeeds needs;
  needs.queue_depth = 128;
  needs.named = 1;
  needs.limits = 1;
  needs.finest = 2048;
  const uint32_t pieces = RingPieceCapacity(needs);
  EXPECT_EQ(pieces, kLiveSwitchRingEntries / 128);
  EXPECT_EQ(RingEntries(128, pieces), 4096u);
}

TEST(RingSizingTest, NamedStrategiesAreAlwaysRoomed) {
  PieceNeeds needs;
  needs.queue_depth = 128;
  needs.named = 256;  // e.g. ab_strategies with fixed:4096 for 1 MiB
  needs.finest = 2048;
  EXPECT_EQ(RingPieceCapacity(needs), 256u);
  EXPECT_EQ(RingEntries(128, 256), kMaxRingEntries);
}

TEST(RingSizingTest, LimitsIsRoomedBeyondTheHeadroom) {
  PieceNeeds needs;
  needs.queue_depth = 1024;  // headroom: 4 pieces
  needs.limits = 16;
  needs.finest = 64;
  EXPECT_EQ(RingPieceCapacity(needs), 16u);
  needs.limits = std::nullopt;
  EXPECT_EQ(RingPieceCapacity(needs), 4u);
}

TEST(RingSizingTest, SmallIoNeedsNoHeadroom) {
  PieceNeeds needs;
  needs.queue_depth = 32;
  needs.limits = 1;
  needs.finest = 1;  // 4 KiB on a 4 KiB-sector device
  EXPECT_EQ(RingPieceCapacity(needs), 1u);
  EXPECT_EQ(RingEntries(32, 1), 32u);
}

TEST(RingSizingTest, NeverPastTheRingMaximum) {
  PieceNeeds needs;
  needs.queue_depth = 4096;
  needs.limits = 64;
  needs.finest = 64;
  EXPECT_EQ(RingPieceCapacity(needs), kMaxRingEntries / 4096);
  needs.queue_depth = 65536;  // deeper than a ring: still at least 1 piece
  EXPECT_EQ(RingPieceCapacity(needs), 1u);
}

TEST(RingSizingTest, EntriesRoundUpToAPowerOfTwo) {
  EXPECT_EQ(RingEntries(1, 1), 1u);
  EXPECT_EQ(RingEntries(3, 1), 4u);
  EXPECT_EQ(RingEntries(100, 3), 512u);
  EXPECT_EQ(RingEntries(128, 32), 4096u);
}

}  // namespace
}  // namespace blkperf::internal
