#include "tests/timing/pause_witness.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <thread>

#include "daemon/engine/host/realtime_priority.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf::testing {
namespace {

// Holds CPU 0 for `length` at SCHED_FIFO `priority`, without sleeping.
// Returns when it started.
int64_t HoldCpu0(int priority, absl::Duration length) {
  int64_t started = 0;
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    const sched_param fifo{.sched_priority = priority};
    ASSERT_EQ(pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo), 0);
    started = PauseWitness::MonotonicNowNs();
    while (PauseWitness::MonotonicNowNs() <
           started + absl::ToInt64Nanoseconds(length)) {
    }
  }).join();
  return started;
}

class PauseWitnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (SCHED_FIFO)";
    ASSERT_TRUE(witness_.status().ok()) << witness_.status();
  }
  PauseWitness witness_;
};

TEST_F(PauseWitnessTest, SeesACpuHeldAboveItsPriority) {
  const int64_t from =
      HoldCpu0(PauseWitness::kPriority + 1, absl::Milliseconds(30));
  absl::SleepFor(absl::Milliseconds(5));
  const int64_t to = from + 30'000'000;
  // Seen from the witness's first wake-up due after the hold began: at
  // most one step short (with 1 ms steps, up to 1 ms).
  EXPECT_GE(witness_.PausedWithin(from, to),
            absl::Milliseconds(30) - PauseWitness::kStep)
      << witness_.DescribeWithin(from, to);
  const auto pauses = witness_.Pauses();
  EXPECT_TRUE(std::any_of(pauses.begin(), pauses.end(),
                          [&](const MachinePause& p) {
                            return p.cpu == 0 &&
                                   p.length() >= absl::Milliseconds(25) &&
                                   p.woke_realtime_ns - p.due_realtime_ns ==
                                       p.woke_monotonic_ns - p.due_monotonic_ns;
                          }))
      << witness_.DescribeWithin(from, to);
  EXPECT_GE(witness_.LongestPauseWithin(from, to), absl::Milliseconds(25));
  // Nothing is counted outside the window asked about.
  EXPECT_EQ(witness_.PausedWithin(to + 1'000'000'000, to + 2'000'000'000),
            absl::ZeroDuration());
  EXPECT_EQ(witness_.LongestPauseWithin(to + 1'000'000'000, to + 2'000'000'000),
            absl::ZeroDuration());
}

TEST_F(PauseWitnessTest, PreemptsTheEnginesRealTimeThreads) {
  static_assert(PauseWitness::kPriority > kRealtimeWaitPriority);
  // A thread at the engine's real-time priority holding the CPU is not a
  // machine pause: the witness runs above it. (Other pauses of this VM, a
  // few ms, may still show; a held-off witness would see about 30 ms.)
  const int64_t from = HoldCpu0(kRealtimeWaitPriority, absl::Milliseconds(30));
  absl::SleepFor(absl::Milliseconds(5));
  EXPECT_LT(witness_.PausedWithin(from, from + 30'000'000),
            absl::Milliseconds(20))
      << witness_.DescribeWithin(from, from + 30'000'000);
}

}  // namespace
}  // namespace blkperf::testing
