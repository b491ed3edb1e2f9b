#include "daemon/engine/host/realtime_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "daemon/engine/testing/drop_sys_nice.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

int PolicyOf(pid_t tid) { return sched_getscheduler(tid); }
int PriorityOf(pid_t tid) {
  sched_param param{};
  sched_getparam(tid, &param);
  return param.sched_priority;
}
pid_t Tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

class RealtimePriorityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (CAP_SYS_NICE)";
  }
};

TEST_F(RealtimePriorityTest, RaisesToLowestFifoAndRestoresTheNormalPolicy) {
  std::thread([] {
    RealtimePriority priority;
    ASSERT_TRUE(priority.Raise().ok());
    EXPECT_TRUE(priority.raised());
    EXPECT_EQ(PolicyOf(Tid()), SCHED_FIFO);
    EXPECT_EQ(PriorityOf(Tid()), kRealtimeWaitPriority);
    priority.Restore();
    EXPECT_FALSE(priority.raised());
    EXPECT_EQ(PolicyOf(Tid()), SCHED_OTHER);
    priority.Restore();  // twice is harmless
    EXPECT_EQ(PolicyOf(Tid()), SCHED_OTHER);
  }).join();
}

TEST_F(RealtimePriorityTest, TheDestructorRestores) {
  std::thread([] {
    {
      RealtimePriority priority;
      ASSERT_TRUE(priority.Raise().ok());
      ASSERT_EQ(PolicyOf(Tid()), SCHED_FIFO);
    }
    EXPECT_EQ(PolicyOf(Tid()), SCHED_OTHER);
  }).join();
}

TEST_F(RealtimePriorityTest, RestoreFromAnotherThreadPutsTheThreadBack) {
  RealtimePriority priority;
  std::atomic<pid_t> tid{0};
  std::atomic<bool> restored{false};
  std::thread waiter([&] {
    ASSERT_TRUE(priority.Raise().ok());
    tid.store(Tid());
    while (!restored.load()) sched_yield();
    EXPECT_EQ(PolicyOf(Tid()), SCHED_OTHER);
  });
  while (tid.load() == 0) sched_yield();
  EXPECT_EQ(PolicyOf(tid.load()), SCHED_FIFO);
  priority.Restore();
  restored.store(true);
  waiter.join();
}

TEST_F(RealtimePriorityTest, AThreadAlreadyRealTimeKeepsItsOwnPolicy) {
  std::thread([] {
    const sched_param rr{.sched_priority = 3};
    ASSERT_EQ(sched_setscheduler(0, SCHED_RR, &rr), 0);
    RealtimePriority priority;
    ASSERT_TRUE(priority.Raise().ok());
    EXPECT_TRUE(priority.raised());
    EXPECT_EQ(PolicyOf(Tid()), SCHED_RR);
    EXPECT_EQ(PriorityOf(Tid()), 3);
    priority.Restore();
    EXPECT_EQ(PolicyOf(Tid()), SCHED_RR);  // not lowered: it was not ours
    EXPECT_EQ(PriorityOf(Tid()), 3);
  }).join();
}

TEST_F(RealtimePriorityTest, RefusedWithoutCapabilityOrRtprioLimitNamesBoth) {
  testing::ScopedZeroSoftLimit no_rtprio(RLIMIT_RTPRIO);
  ASSERT_TRUE(no_rtprio.ok());
  std::thread([] {
    ASSERT_TRUE(testing::DropSysNiceFromThisThread());
    RealtimePriority priority;
    const absl::Status raised = priority.Raise();
    EXPECT_EQ(raised.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(raised.message(), HasSubstr("sched_setscheduler(SCHED_FIFO"));
    EXPECT_THAT(raised.message(), HasSubstr("CAP_SYS_NICE or RLIMIT_RTPRIO"));
    EXPECT_FALSE(priority.raised());
    EXPECT_EQ(PolicyOf(Tid()), SCHED_OTHER);  // unchanged
  }).join();
}

int NiceOf(pid_t tid) { return getpriority(PRIO_PROCESS, static_cast<id_t>(tid)); }

TEST_F(RealtimePriorityTest, NiceBoostLowersTheNiceValueAndPutsItBack) {
  std::thread([] {
    ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(Tid()), 5), 0);
    {
      NiceBoost boost;
      ASSERT_TRUE(boost.Raise().ok());
      EXPECT_EQ(NiceOf(Tid()), kBoostedNice);
      EXPECT_EQ(PolicyOf(Tid()), SCHED_OTHER);  // not real time
    }
    EXPECT_EQ(NiceOf(Tid()), 5);
  }).join();
}

TEST_F(RealtimePriorityTest, NiceBoostRefusedWithoutCapabilityNamesIt) {
  testing::ScopedZeroSoftLimit no_nice(RLIMIT_NICE);
  ASSERT_TRUE(no_nice.ok());
  std::thread([] {
    ASSERT_TRUE(testing::DropSysNiceFromThisThread());
    NiceBoost boost;
    const absl::Status raised = boost.Raise();
    EXPECT_EQ(raised.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(std::string(raised.message()), HasSubstr("CAP_SYS_NICE"));
    EXPECT_EQ(NiceOf(Tid()), 0);
  }).join();
}

}  // namespace
}  // namespace blkperf
