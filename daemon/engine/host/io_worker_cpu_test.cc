#include "daemon/engine/host/io_worker_cpu.h"

#include <liburing.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

using Reading = IoWorkerCpu::Reading;

TEST(IoWorkerCpuTest, SumsTheWorkersOfEachOwner) {
  IoWorkerCpu cpu;
  cpu.Update({10, 20}, {Reading{11, 10, 1.5}, Reading{12, 10, 0.5},
                        Reading{21, 20, 2.0}});
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(10), 2.0);
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(20), 2.0);
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(30), 0.0);
}

TEST(IoWorkerCpuTest, AnExitedWorkerKeepsItsTimeAndIsNoLongerHeld) {
  IoWorkerCpu cpu;
  cpu.Update({10}, {Reading{11, 10, 3.0}, Reading{12, 10, 1.0}});
  // Worker 11 exits (idle io-wq workers do); 12 runs on.
  cpu.Update({10}, {Reading{12, 10, 1.25}});
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(10), 4.25);  // a fresh sum would be 1.25
  EXPECT_EQ(cpu.live_workers(), 1u);
  cpu.Update({10}, {});
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(10), 4.25);
  EXPECT_EQ(cpu.live_workers(), 0u);
}

TEST(IoWorkerCpuTest, AReusedWorkerIdStartsANewAccount) {
  IoWorkerCpu cpu;
  cpu.Update({10, 20}, {Reading{11, 10, 3.0}});
  // Between two walks 11 exited and its id went to a new worker of 10 ...
  cpu.Update({10, 20}, {Reading{11, 10, 0.5}});
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(10), 3.5);
  // ... and then to a worker of 20.
  cpu.Update({10, 20}, {Reading{11, 20, 0.25}});
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(10), 3.5);
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(20), 0.25);
}

TEST(IoWorkerCpuTest, AWalkForOneOwnerLeavesTheOthersWorkersAlone) {
  IoWorkerCpu cpu;
  cpu.Update({10, 20}, {Reading{11, 10, 1.0}, Reading{21, 20, 2.0}});
  cpu.Update({10}, {Reading{11, 10, 1.5}});  // a submitter's exit sample
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(20), 2.0);
  EXPECT_EQ(cpu.live_workers(), 2u);
  cpu.Update({10, 20}, {Reading{21, 20, 2.5}});  // 11 gone with its ring
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(10), 1.5);
  EXPECT_DOUBLE_EQ(cpu.SecondsOf(20), 2.5);
}

TEST(IoWorkerCpuTest, ReadTaskCpuReadsThisThreadAndRefusesAMissingOne) {
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  const absl::Time until = absl::Now() + absl::Milliseconds(100);
  volatile uint64_t spin = 0;
  while (absl::Now() < until) spin = spin + 1;
  double user = -1, system = -1;
  ASSERT_TRUE(ReadTaskCpu(self, &user, &system));
  EXPECT_GT(user + system, 0.0);
  EXPECT_FALSE(ReadTaskCpu(0, &user, &system));
}

// A real ring whose NOPs are all forced to io-wq (IOSQE_ASYNC): its
// "iou-wrk-<tid>" workers are found by one walk and their time only grows,
// including after the ring, and with it every worker, is gone.
TEST(IoWorkerCpuTest, SamplesTheIoWqWorkersOfARealRing) {
  IoWorkerCpu cpu;
  std::atomic<pid_t> owner{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> ring_gone{false};
  std::thread submitter([&] {
    io_uring ring;
    ASSERT_EQ(io_uring_queue_init(64, &ring, 0), 0);
    owner = static_cast<pid_t>(syscall(SYS_gettid));
    while (!stop) {
      for (int i = 0; i < 32; ++i) {
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        io_uring_prep_nop(sqe);
        sqe->flags |= IOSQE_ASYNC;
      }
      ASSERT_EQ(io_uring_submit_and_wait(&ring, 32), 32);
      io_uring_cq_advance(&ring, io_uring_cq_ready(&ring));
    }
    io_uring_queue_exit(&ring);
    ring_gone = true;
  });
  while (owner == 0) absl::SleepFor(absl::Milliseconds(1));
  double last = 0;
  for (int i = 0; i < 40 && last < 0.05; ++i) {
    absl::SleepFor(absl::Milliseconds(25));
    cpu.Sample({owner.load()});
    EXPECT_GE(cpu.SecondsOf(owner), last);
    last = cpu.SecondsOf(owner);
  }
  EXPECT_GE(last, 0.05) << "io-wq workers of the ring were not found";
  EXPECT_GT(cpu.live_workers(), 0u);
  stop = true;
  submitter.join();
  ASSERT_TRUE(ring_gone);
  // The workers exit with the ring, in their own time.
  for (int i = 0; i < 200 && cpu.live_workers() != 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
    cpu.Sample({owner.load()});
    EXPECT_GE(cpu.SecondsOf(owner), last);
  }
  EXPECT_EQ(cpu.live_workers(), 0u);
  EXPECT_GE(cpu.SecondsOf(owner), last);
}

}  // namespace
}  // namespace blkperf::internal
