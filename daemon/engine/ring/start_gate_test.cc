#include "daemon/engine/ring/start_gate.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(StartGateTest, HoldsEveryWaiterUntilOpenThenReleasesAll) {
  StartGate gate;
  std::atomic<int> passed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      gate.Wait();
      passed.fetch_add(1);
    });
  }
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(passed.load(), 0);
  EXPECT_FALSE(gate.IsOpen());
  gate.Open();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(passed.load(), 8);
  EXPECT_TRUE(gate.IsOpen());
  gate.Wait();  // open: returns at once
  gate.Open();  // idempotent
}

TEST(StartGateTest, PublishesWritesMadeBeforeOpen) {
  StartGate gate;
  int64_t value = 0;  // plain: ordered by the gate alone
  int64_t seen = -1;
  std::thread reader([&] {
    gate.Wait();
    seen = value;
  });
  value = 42;
  gate.Open();
  reader.join();
  EXPECT_EQ(seen, 42);
}

}  // namespace
}  // namespace blkperf
