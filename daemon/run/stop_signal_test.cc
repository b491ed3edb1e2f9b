#include "daemon/run/stop_signal.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(StopSignalWatcherTest, SignalRunsTheCallbackOnTheWatcherThread) {
  absl::Mutex mu;  // the callback may lock: it runs outside the handler
  absl::Notification stopped;
  std::thread::id caller;
  {
    StopSignalWatcher watcher([&] {
      absl::MutexLock lock(&mu);
      caller = std::this_thread::get_id();
      if (!stopped.HasBeenNotified()) stopped.Notify();
    });
    ASSERT_EQ(kill(getpid(), SIGINT), 0);
    ASSERT_TRUE(stopped.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_EQ(watcher.signals_seen(), 1);
    ASSERT_EQ(kill(getpid(), SIGTERM), 0);
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (watcher.signals_seen() < 2 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    EXPECT_EQ(watcher.signals_seen(), 2);
  }
  absl::MutexLock lock(&mu);
  EXPECT_NE(caller, std::this_thread::get_id());
}

TEST(StopSignalWatcherTest, RestoresThePreviousHandlers) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  { StopSignalWatcher watcher([] {}); }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
}  // namespace blkperf
