#include "daemon/engine/shape/io_shaper.h"

#include <map>
#include <set>

#include "daemon/engine/testing/chi_square.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

using testing::ChiSquare;
using testing::ChiSquareCritical;
using testing::TestRandom;

GroupShape Group(Op op, uint32_t threads) {
  GroupShape g;
  g.op = op;
  g.threads = threads;
  g.read_percent = OpWrites(op, 100) ? 0 : 100;
  g.random_percent = OpIsRandom(op) ? 100 : 0;
  g.max_block_size = g.min_block_size = 4096;
  g.shaped = true;
  return g;
}

TEST(IoShaperTest, SequentialThreadsGetDisjointRangesAndWrapInThem) {
  const uint64_t size = 10 << 20;
  GroupShape g = Group(Op::kRead, 3);
  std::set<uint64_t> seen[3];
  uint64_t previous_end = 0;
  for (uint32_t t = 0; t < 3; ++t) {
    absl::StatusOr<IoShaper> s = IoShaper::Create(g, {size}, t);
    ASSERT_TRUE(s.ok()) << s.status();
    const uint64_t first = s->range_first(0), end = s->range_end(0);
    EXPECT_EQ(first % 4096, 0u);
    // The ranges tile the target: each starts where the previous ended,
    // the last ends with the target.
    EXPECT_EQ(first, previous_end) << "thread " << t;
    if (t == 2) {
      EXPECT_EQ(end, size);
    }
    previous_end = end;
    const uint64_t blocks = (end - first) / 4096;
    for (uint64_t i = 0; i < 2 * blocks; ++i) {
      const uint64_t offset = s->NextOffset(0, 4096, 0, 0, 0);
      ASSERT_GE(offset, first);
      ASSERT_LE(offset + 4096, end);
      if (i < blocks) {
        EXPECT_EQ(offset, first + i * 4096);
      } else {
        EXPECT_EQ(offset, first + (i - blocks) * 4096) << "wraps in range";
      }
      seen[t].insert(offset);
    }
  }
  // No offset is shared, and together they cover the target.
  uint64_t total = 0;
  for (int a = 0; a < 3; ++a) {
    total += seen[a].size();
    for (int b = a + 1; b < 3; ++b) {
      for (uint64_t o : seen[a]) EXPECT_EQ(seen[b].count(o), 0u);
    }
  }
  EXPECT_EQ(total, size / 4096);
}

TEST(IoShaperTest, RandomPercentMixesRandomAndSequentialPicks) {
  GroupShape g = Group(Op::kRandRead, 1);
  g.random_percent = 25;
  absl::StatusOr<IoShaper> s = IoShaper::Create(g, {uint64_t{1} << 30}, 0);
  ASSERT_TRUE(s.ok());
  TestRandom rng(5);
  uint64_t previous_end = 0;
  int sequential = 0;
  constexpr int kIos = 100000;
  for (int i = 0; i < kIos; ++i) {
    const uint64_t offset = s->NextOffset(0, 4096, rng(), rng(), rng());
    ASSERT_EQ(offset % 4096, 0u);
    sequential += offset == previous_end;
    previous_end = offset + 4096;
  }
  // 75% continue where the previous I/O ended (random picks land there
  // with probability 2^-18).
  EXPECT_NEAR(sequential / double{kIos}, 0.75, 0.01);
}

TEST(IoShaperTest, MixedSizesAndDirectionsFollowTheShape) {
  GroupShape g = Group(Op::kRandRW, 1);
  g.read_percent = 70;
  g.read_bssplit = {{4096, 50}, {65536, 50}};
  g.write_bssplit = {{8192, 100}};
  g.max_block_size = 65536;
  g.alignment = 4096;
  const uint64_t size = 1 << 20;
  absl::StatusOr<IoShaper> s = IoShaper::Create(g, {size, size * 2}, 0);
  ASSERT_TRUE(s.ok());
  TestRandom rng(9);
  std::map<uint32_t, uint64_t> reads, writes;
  for (int i = 0; i < 200000; ++i) {
    const bool w = s->NextIsWrite(rng());
    const uint32_t len = s->NextLength(w, rng());
    (w ? writes : reads)[len]++;
    const uint16_t target = i % 2;
    const uint64_t offset = s->NextOffset(target, len, rng(), rng(), rng());
    ASSERT_LE(offset + len, target == 0 ? size : 2 * size);
  }
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes.begin()->first, 8192u);
  const double nreads = reads[4096] + reads[65536];
  EXPECT_NEAR(nreads / 200000, 0.7, 0.005);
  EXPECT_LT(ChiSquare({reads[4096], reads[65536]}, {0.5, 0.5}),
            ChiSquareCritical(1));
}

TEST(IoShaperTest, RefusesATargetSmallerThanTheLargestBlock) {
  GroupShape g = Group(Op::kRandRead, 1);
  g.max_block_size = 1 << 20;
  EXPECT_FALSE(IoShaper::Create(g, {4096}, 0).ok());
}

}  // namespace
}  // namespace blkperf::internal
