#include "daemon/engine/ring/offset_cursor.h"

#include <set>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

TEST(OffsetCursorTest, SequentialThreadsTileTheTargetAndWrapInTheirRange) {
  const uint64_t size = (10 << 20) + 512;  // a partial block at the end
  const uint32_t threads = 3;
  std::set<uint64_t> seen;
  uint64_t previous_end = 0;
  for (uint32_t t = 0; t < threads; ++t) {
    OffsetCursor c({.target_sizes = {size},
                    .block_size = 4096,
                    .alignment = 512,
                    .random = false,
                    .thread_in_group = t,
                    .group_threads = threads});
    EXPECT_EQ(c.slots(0), (10u << 20) / 4096);
    EXPECT_EQ(c.range_first(0), previous_end) << "thread " << t;
    previous_end = c.range_end(0);
    const uint64_t blocks = (c.range_end(0) - c.range_first(0)) / 4096;
    ASSERT_GT(blocks, 0u);
    Xorshift rng(XorshiftState(1, 0));
    Xorshift untouched = rng;
    for (uint64_t i = 0; i < 2 * blocks; ++i) {
      const uint64_t offset = c.Next(0, rng);
      EXPECT_EQ(offset, c.range_first(0) + (i % blocks) * 4096) << i;
      ASSERT_LE(offset + 4096, size);
      if (i < blocks) EXPECT_TRUE(seen.insert(offset).second) << offset;
    }
    // Sequential offsets draw no random number.
    EXPECT_EQ(rng.Next(), untouched.Next());
  }
  // Together the ranges cover every whole block once.
  EXPECT_EQ(previous_end, (10u << 20));
  EXPECT_EQ(seen.size(), (10u << 20) / 4096);
}

TEST(OffsetCursorTest, EveryThreadHasABlockEvenWhenThereAreMoreThreads) {
  for (uint32_t t = 0; t < 4; ++t) {
    OffsetCursor c({.target_sizes = {8192},
                    .block_size = 4096,
                    .random = false,
                    .thread_in_group = t,
                    .group_threads = 4});
    Xorshift rng;
    const uint64_t first = c.Next(0, rng);
    EXPECT_EQ(c.Next(0, rng), first) << "a one-block range repeats";
    EXPECT_LE(first + 4096, 8192u);
  }
}

TEST(OffsetCursorTest, RandomOffsetsAreAlignedInsideAndCoverEverySlot) {
  // 16 KiB target, 4 KiB I/O at 1 KiB alignment: slots 0..12 (offset
  // 12 KiB is the last whose block ends inside).
  OffsetCursor c({.target_sizes = {16384, 1 << 20},
                  .block_size = 4096,
                  .alignment = 1024,
                  .random = true});
  ASSERT_EQ(c.slots(0), 13u);
  Xorshift rng(XorshiftState(7, 3));
  std::set<uint64_t> seen;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t offset = c.Next(0, rng);
    ASSERT_EQ(offset % 1024, 0u);
    ASSERT_LE(offset + 4096, 16384u);
    seen.insert(offset);
  }
  EXPECT_EQ(seen.size(), 13u);
  // Each target draws from its own slots.
  uint64_t largest = 0;
  for (int i = 0; i < 10000; ++i) largest = std::max(largest, c.Next(1, rng));
  EXPECT_GT(largest, 16384u);
  EXPECT_LE(largest + 4096, uint64_t{1} << 20);
}

TEST(OffsetCursorTest, RandomOffsetsFollowTheGenerator) {
  const OffsetCursor::Layout layout{.target_sizes = {1 << 30},
                                    .block_size = 4096,
                                    .alignment = 4096,
                                    .random = true};
  OffsetCursor a(layout), b(layout);
  Xorshift ra(XorshiftState(42, 0)), rb(XorshiftState(42, 0)),
      rc(XorshiftState(42, 1));
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t offset = a.Next(0, ra);
    EXPECT_EQ(offset, b.Next(0, rb)) << "same seed, same offsets";
    differs |= offset != b.Next(0, rc);
  }
  EXPECT_TRUE(differs) << "another thread's stream gives other offsets";
}

}  // namespace
}  // namespace blkperf::internal
