#include "daemon/run/stop_signal.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

void CountStop(void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }

// Waits up to 10 s for `count` to reach `wanted`.
bool Reaches(const std::atomic<int>& count, int wanted) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (count.load() < wanted && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  return count.load() >= wanted;
}

TEST(StopSignalHandlerTest, EachSignalCallsTheCallbackWithItsArgument) {
  std::atomic<int> stops{0};
  StopSignalHandler handler(CountStop, &stops);
  ASSERT_EQ(kill(getpid(), SIGINT), 0);
  ASSERT_TRUE(Reaches(stops, 1));
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  ASSERT_TRUE(Reaches(stops, 2));
  EXPECT_EQ(stops.load(), 2);
  EXPECT_EQ(handler.signals_seen(), 2);
}

int ThreadsOfThisProcess() {
  int threads = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++threads;
  }
  return threads;
}

TEST(StopSignalHandlerTest, RunsTheCallbackOnTheThreadTheSignalLandsOn) {
  const int threads_before = ThreadsOfThisProcess();
  std::atomic<int> stops{0};
  StopSignalHandler handler(CountStop, &stops);
  EXPECT_EQ(ThreadsOfThisProcess(), threads_before);  // no watcher thread
  // A signal this thread raises is handled on it before raise returns.
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_EQ(stops.load(), 1);
}

TEST(StopSignalHandlerTest, RestoresThePreviousHandlersAndCallsNoMore) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  std::atomic<int> stops{0};
  { StopSignalHandler handler(CountStop, &stops); }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  // SIGTERM ignored for this check, so that the old disposition is safe.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_term {};
  sigaction(SIGTERM, &ignore, &old_term);
  { StopSignalHandler handler(CountStop, &stops); }
  ASSERT_EQ(raise(SIGTERM), 0);  // ignored again: no callback
  sigaction(SIGTERM, &old_term, nullptr);
  EXPECT_EQ(stops.load(), 0);
}

}  // namespace
}  // namespace blkperf
