#include "daemon/engine/monotonic_max.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

TEST(MonotonicMaxTest, NeverGoesDownWhenAReadingDrops) {
  MonotonicMax max;
  EXPECT_EQ(max.Get(), 0);
  EXPECT_EQ(max.Raise(1.5), 1.5);
  EXPECT_EQ(max.Raise(3.0), 3.0);
  // A worker exited: the live sum dropped, the figure must not.
  EXPECT_EQ(max.Raise(2.0), 3.0);
  EXPECT_EQ(max.Raise(0), 3.0);
  EXPECT_EQ(max.Get(), 3.0);
  EXPECT_EQ(max.Raise(3.25), 3.25);
}

TEST(MonotonicMaxTest, ConcurrentReadersKeepTheLargestReading) {
  MonotonicMax max;
  constexpr int kThreads = 4;
  constexpr int kReadings = 20000;
  std::vector<std::thread> threads;
  std::vector<bool> went_down(kThreads, false);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      double last = 0;
      for (int i = 0; i < kReadings; ++i) {
        // Readings rise and fall; each thread sees its own sequence.
        const double reading = (i * 7 + t * 13) % 1000 + i / 100.0;
        const double now = max.Raise(reading);
        if (now < last || now < reading) went_down[t] = true;
        last = now;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_FALSE(went_down[t]) << t;
  double expected = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kReadings; ++i) {
      expected = std::max(expected, (i * 7 + t * 13) % 1000 + i / 100.0);
    }
  }
  EXPECT_EQ(max.Get(), expected);
}

}  // namespace
}  // namespace blkperf::internal
