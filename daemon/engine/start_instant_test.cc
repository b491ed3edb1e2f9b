#include "daemon/engine/start_instant.h"

#include <time.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

int64_t Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

TEST(StartInstantTest, NeverReturnsBeforeTheInstant) {
  std::atomic<bool> stop{false};
  // Across the sleep-then-poll boundary: instants inside and beyond the
  // spin window.
  for (int64_t ahead_ns : {0LL, 200'000LL, 1'500'000LL, 20'000'000LL}) {
    const int64_t at = Now() + ahead_ns;
    ASSERT_TRUE(WaitForInstant(at, stop)) << ahead_ns;
    EXPECT_GE(Now(), at) << ahead_ns;
  }
}

TEST(StartInstantTest, APastInstantReturnsAtOnce) {
  std::atomic<bool> stop{false};
  EXPECT_TRUE(WaitForInstant(Now() - 1'000'000'000, stop));
}

TEST(StartInstantTest, StopEndsTheSleepWithoutReachingTheInstant) {
  std::atomic<bool> stop{false};
  const int64_t at = Now() + 60'000'000'000;  // a minute away
  std::thread stopper([&] { stop.store(true); });
  EXPECT_FALSE(WaitForInstant(at, stop));
  stopper.join();
  EXPECT_LT(Now(), at);
}

TEST(StartInstantTest, StopEndsThePoll) {
  std::atomic<bool> stop{true};
  // Inside the spin window from the start: the poll sees stop.
  EXPECT_FALSE(WaitForInstant(Now() + 500'000'000, stop, 1'000'000'000));
}

TEST(StartInstantTest, PollUntilInstantStopsOrArrives) {
  int calls = 0;
  const int64_t at = Now() + 2'000'000;
  EXPECT_TRUE(PollUntilInstant(at, [&] { return ++calls < 0; }));
  EXPECT_GE(Now(), at);
  EXPECT_GT(calls, 0);  // polled, and asked whether to stop on every poll
  EXPECT_FALSE(PollUntilInstant(Now() + 60'000'000'000, [] { return true; }));
}

}  // namespace
}  // namespace blkperf
