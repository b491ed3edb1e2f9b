#include "base/pi_mutex.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(PiMutexTest, ExcludesConcurrentHolders) {
  PiMutex mu;
  int64_t count = 0;  // guarded by mu; a race loses increments
  auto add = [&] {
    for (int i = 0; i < 200000; ++i) {
      PiMutexLock lock(&mu);
      ++count;
    }
  };
  std::thread other(add);
  add();
  other.join();
  EXPECT_EQ(count, 400000);
}

// The calling thread's priority as /proc shows it (field 18 of stat):
// 20 + nice for the normal policy, -1 - rt_priority for a real-time one
// (so -2 at SCHED_FIFO 1), whether set or inherited.
int OwnPriority() {
  std::ifstream in("/proc/thread-self/stat");
  std::string text;
  std::getline(in, text);
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 18 && rest >> field; ++i) {
  }
  return std::stoi(field);
}

TEST(PiMutexTest, AHolderRunsAtTheRealTimePriorityOfItsWaiter) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (CAP_SYS_NICE)";
  PiMutex mu;
  mu.Lock();
  const int before = OwnPriority();
  ASSERT_GE(before, 0) << "the test thread must start at a normal policy";
  std::atomic<bool> got_it{false};
  std::thread waiter([&] {
    const sched_param fifo{.sched_priority = 1};
    ASSERT_EQ(sched_setscheduler(0, SCHED_FIFO, &fifo), 0) << errno;
    mu.Lock();
    got_it = true;
    mu.Unlock();
  });
  // The waiter blocks in the kernel on the lock; from then on this thread
  // runs at its priority. A plain mutex never changes it.
  int boosted = before;
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (boosted >= 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
    boosted = OwnPriority();
  }
  EXPECT_EQ(boosted, -2);
  EXPECT_FALSE(got_it);
  mu.Unlock();
  waiter.join();
  EXPECT_TRUE(got_it);
  EXPECT_EQ(OwnPriority(), before);
}

}  // namespace
}  // namespace blkperf
