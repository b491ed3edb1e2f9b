#include "daemon/engine/shape/block_size_mix.h"

#include <map>

#include "daemon/engine/testing/chi_square.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using testing::ChiSquare;
using testing::ChiSquareCritical;
using testing::TestRandom;

TEST(BlockSizeMixTest, BssplitRatiosHoldAtAFixedSeed) {
  absl::StatusOr<std::vector<BlockSizeShare>> shares =
      ParseBlockSizeSplit("4k/70:64k/20:1m/10", "bssplit");
  ASSERT_TRUE(shares.ok()) << shares.status();
  absl::StatusOr<BlockSizeMix> mix = BlockSizeMix::Create(*shares, 512);
  ASSERT_TRUE(mix.ok()) << mix.status();
  EXPECT_EQ(mix->max_block_size(), 1u << 20);
  EXPECT_EQ(mix->min_block_size(), 4096u);
  EXPECT_DOUBLE_EQ(mix->mean_block_size(),
                   0.7 * 4096 + 0.2 * 65536 + 0.1 * 1048576);
  std::map<uint32_t, uint64_t> seen;
  TestRandom rng(21);
  constexpr int kDraws = 1'000'000;
  for (int i = 0; i < kDraws; ++i) ++seen[mix->Sample(rng())];
  ASSERT_EQ(seen.size(), 3u);
  const std::vector<uint64_t> counts = {seen[4096], seen[65536],
                                        seen[1u << 20]};
  EXPECT_LT(ChiSquare(counts, {0.7, 0.2, 0.1}), ChiSquareCritical(2));
  EXPECT_NEAR(counts[0] / double{kDraws}, 0.7, 0.002);
}

TEST(BlockSizeMixTest, NoSharesMeansTheFixedBlockSize) {
  absl::StatusOr<BlockSizeMix> mix = BlockSizeMix::Create({}, 8192);
  ASSERT_TRUE(mix.ok());
  TestRandom rng(1);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(mix->Sample(rng()), 8192u);
  EXPECT_EQ(mix->max_block_size(), 8192u);
}

TEST(BlockSizeMixTest, RefusesPercentsThatDoNotAddUp) {
  EXPECT_FALSE(BlockSizeMix::Create({{4096, 50}, {8192, 40}}, 4096).ok());
  EXPECT_FALSE(BlockSizeMix::Create({{0, 100}}, 4096).ok());
}

}  // namespace
}  // namespace blkperf
