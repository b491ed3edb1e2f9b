#include "daemon/engine/ring/buffer_slot_queue.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

TEST(BufferSlotQueueTest, StartsWithEverySlotFreeInOrder) {
  BufferSlotQueue slots(4);
  ASSERT_EQ(slots.size(), 4u);
  for (uint16_t i = 0; i < 4; ++i) EXPECT_EQ(slots.Take(), i);
  EXPECT_EQ(slots.size(), 0u);
}

TEST(BufferSlotQueueTest, ReturnedSlotsComeBackFirstInFirstOutAcrossTheWrap) {
  BufferSlotQueue slots(3);
  EXPECT_EQ(slots.Take(), 0);
  EXPECT_EQ(slots.Take(), 1);
  slots.Return(1);  // after 2, the one still free
  slots.Return(0);
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots.Take(), 2);
  EXPECT_EQ(slots.Take(), 1);
  slots.Return(2);
  EXPECT_EQ(slots.Take(), 0);
  EXPECT_EQ(slots.Take(), 2);
  EXPECT_EQ(slots.size(), 0u);
  // Many rounds: the queue keeps exactly the returned slots.
  for (int round = 0; round < 10; ++round) {
    slots.Return(static_cast<uint16_t>(round % 3));
    EXPECT_EQ(slots.size(), 1u);
    EXPECT_EQ(slots.Take(), round % 3);
  }
}

}  // namespace
}  // namespace blkperf::internal
