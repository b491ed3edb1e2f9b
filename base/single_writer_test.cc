#include "base/single_writer.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(SingleWriterCounterTest, AddsSetsAndReads) {
  SingleWriterCounter c;
  EXPECT_EQ(c.Get(), 0u);
  c.Add(3);
  c.Add(4);
  EXPECT_EQ(c.Get(), 7u);
  c.Set(2);
  EXPECT_EQ(c.Get(), 2u);
  std::atomic<uint64_t> raw{5};
  SingleWriterAdd(raw, 6);
  EXPECT_EQ(raw.load(), 11u);
}

// One writer, one reader at the same time: the reader sees every value
// only grow and the final count exact (run under TSan too: race-free).
TEST(SingleWriterCounterTest, AReaderSeesOnlyGrowthAndTheExactEnd) {
  constexpr uint64_t kAdds = 200'000;
  SingleWriterCounter c;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (uint64_t i = 0; i < kAdds; ++i) c.Add(1);
    done.store(true, std::memory_order_release);
  });
  uint64_t last = 0;
  while (!done.load(std::memory_order_acquire)) {
    const uint64_t now = c.Get();
    ASSERT_GE(now, last);
    last = now;
  }
  writer.join();
  EXPECT_EQ(c.Get(), kAdds);
}

}  // namespace
}  // namespace blkperf
