#include "daemon/engine/host/cpu_isolation.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "daemon/engine/host/host_cpus.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

cpu_set_t AffinityOf(pthread_t thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  pthread_getaffinity_np(thread, sizeof(set), &set);
  return set;
}

TEST(CpuIsolationTest, MovesControlThreadsOffBusyCpusButNotSubmitters) {
  // The daemon's own CPUs: every online one in a test not run under taskset.
  const std::vector<int> own = CurrentHostCpus().placement;
  ASSERT_GE(own.size(), 2u) << "needs two CPUs (this test runs on 2)";
  const int busy = own.back();
  absl::Notification named, done;
  pthread_t submitter_handle{}, control_handle{};
  std::thread submitter([&] {
    pthread_setname_np(pthread_self(), "blkperf-sub0");
    cpu_set_t mine;
    CPU_ZERO(&mine);
    CPU_SET(busy, &mine);
    sched_setaffinity(0, sizeof(mine), &mine);
    named.Notify();
    done.WaitForNotification();
  });
  std::thread control([&] { done.WaitForNotification(); });
  submitter_handle = submitter.native_handle();
  control_handle = control.native_handle();
  named.WaitForNotification();

  EXPECT_GE(KeepControlThreadsOff({busy}), 2);  // this thread and `control`
  const cpu_set_t control_set = AffinityOf(control_handle);
  const cpu_set_t main_set = AffinityOf(pthread_self());
  const cpu_set_t submitter_set = AffinityOf(submitter_handle);
  EXPECT_FALSE(CPU_ISSET(busy, &control_set));
  EXPECT_FALSE(CPU_ISSET(busy, &main_set));
  EXPECT_TRUE(CPU_ISSET(own.front(), &control_set));
  EXPECT_TRUE(CPU_ISSET(busy, &submitter_set)) << "a submitter was moved";
  EXPECT_EQ(CPU_COUNT(&submitter_set), 1);

  // With nothing busy every thread may use every one of them again.
  KeepControlThreadsOff({});
  const cpu_set_t widened = AffinityOf(control_handle);
  EXPECT_EQ(CPU_COUNT(&widened), static_cast<int>(own.size()));
  done.Notify();
  submitter.join();
  control.join();
}

TEST(CpuIsolationTest, AllCpusBusyLeavesEveryOwnCpuAllowed) {
  const std::vector<int> own = CurrentHostCpus().placement;
  KeepControlThreadsOff(own);
  const cpu_set_t set = AffinityOf(pthread_self());
  EXPECT_EQ(CPU_COUNT(&set), static_cast<int>(own.size()));
}

}  // namespace
}  // namespace blkperf
