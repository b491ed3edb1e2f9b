#include "daemon/engine/realtime_priority.h"

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

// RLIMIT_RTPRIO's soft limit 0 for the whole test process, put back at
// scope exit. (The other way, an RLIMIT_RTPRIO of 1 without the
// capability, which the systemd unit uses, cannot be tested here: raising
// the hard limit takes CAP_SYS_RESOURCE, which this machine's root lacks.)
class NoRtprio {
 public:
  NoRtprio() {
    getrlimit(RLIMIT_RTPRIO, &saved_);
    const rlimit none{.rlim_cur = 0, .rlim_max = saved_.rlim_max};
    ok_ = setrlimit(RLIMIT_RTPRIO, &none) == 0;
  }
  ~NoRtprio() { setrlimit(RLIMIT_RTPRIO, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

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
  NoRtprio none;
  ASSERT_TRUE(none.ok());
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

}  // namespace
}  // namespace blkperf
