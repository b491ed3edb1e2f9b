#include "daemon/engine/ring/thread_cpu_times.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <thread>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

pid_t Tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

double ThreadCpuNow() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// Spins on the calling thread for `seconds` of its CPU time (however
// loaded the machine is).
void Burn(double seconds) {
  const double end = ThreadCpuNow() + seconds;
  volatile uint64_t sink = 0;
  while (ThreadCpuNow() < end) sink = sink + 1;
}

TEST(ThreadCpuTimesTest, NothingInTheWindowBeforeItsBaseline) {
  ThreadCpuTimes cpu;
  EXPECT_FALSE(cpu.baseline_taken());
  const CpuSeconds w = cpu.InWindow({.user = 5, .system = 2, .io_workers = 1});
  EXPECT_EQ(w.user, 0);
  EXPECT_EQ(w.system, 0);
  EXPECT_EQ(w.io_workers, 0);
}

TEST(ThreadCpuTimesTest, TheWindowIsTheReadingLessTheBaselineNeverNegative) {
  ThreadCpuTimes cpu;
  cpu.MarkBaseline({.user = 1.0, .system = 2.0, .io_workers = 3.0});
  ASSERT_TRUE(cpu.baseline_taken());
  CpuSeconds w = cpu.InWindow({.user = 1.5, .system = 2.0, .io_workers = 4.25});
  EXPECT_DOUBLE_EQ(w.user, 0.5);
  EXPECT_DOUBLE_EQ(w.system, 0.0);
  EXPECT_DOUBLE_EQ(w.io_workers, 1.25);
  // A failed procfs read reads 0: clamped, not negative.
  w = cpu.InWindow({});
  EXPECT_EQ(w.user, 0);
  EXPECT_EQ(w.system, 0);
  EXPECT_EQ(w.io_workers, 0);
}

TEST(ThreadCpuTimesTest, ALiveThreadIsReadFromProcfsAnExitedOneFromItsExit) {
  ThreadCpuTimes cpu;
  IoWorkerCpu workers;  // never sampled: no kernel workers
  EXPECT_EQ(cpu.SinceStart(0, false, workers).user, 0) << "not begun";
  pid_t tid = 0;
  CpuSeconds live, at_exit;
  std::thread t([&] {
    tid = Tid();
    Burn(0.05);
    live = cpu.SinceStart(tid, /*exited=*/false, workers);
    Burn(0.05);
    cpu.RecordExit();
  });
  t.join();
  // Procfs counts in clock ticks (10 ms here): 50 ms of spinning shows.
  EXPECT_GT(live.user + live.system, 0.02);
  EXPECT_EQ(live.io_workers, 0);
  at_exit = cpu.SinceStart(tid, /*exited=*/true, workers);
  EXPECT_GT(at_exit.user + at_exit.system, live.user + live.system);
  EXPECT_LT(at_exit.user + at_exit.system, 5.0);
  // The baseline taken live leaves out what ran before it.
  cpu.MarkBaseline(live);
  const CpuSeconds w = cpu.InWindow(at_exit);
  EXPECT_GT(w.user + w.system, 0.02);
  EXPECT_LT(w.user + w.system, at_exit.user + at_exit.system);
}

}  // namespace
}  // namespace blkperf::internal
