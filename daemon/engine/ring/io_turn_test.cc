#include "daemon/engine/ring/io_turn.h"

#include <errno.h>

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/engine/ring/submitter.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

// A clock that only moves when the fake ring spends time in a call: every
// read returns the current time and is logged, so a test sees exactly which
// reads happened around which enter.
struct FakeClock {
  int64_t now = 1000;
  std::vector<int64_t> reads;
  int64_t operator()() {
    reads.push_back(now);
    return now;
  }
};

// One SubmitAndWait call: what it was asked, and when it started.
struct Call {
  unsigned wait_nr;
  int64_t timeout_ns;
  int64_t at;
};

// A ring whose each call takes `cost` ns of the fake clock, plus `wait`
// more when it is asked to wait; `ready` CQEs are "there" afterwards.
struct FakeRing {
  FakeClock* clock;
  int64_t cost = 10;
  int64_t wait = 500;
  unsigned ready_after_submit = 0;
  int result = 0;
  std::vector<Call> calls;

  int SubmitAndWait(unsigned wait_nr, int64_t timeout_ns) {
    calls.push_back({wait_nr, timeout_ns, clock->now});
    clock->now += cost + (wait_nr != 0 ? wait : 0);
    return result;
  }
  unsigned CqReady() { return ready_after_submit; }
};

// A turn's stamps (TurnLog::Stamps' fields).
struct FakeStamps {
  int64_t submit_ns = -1;
  int64_t issued_ns = -1;
};

TEST(EnterAndStampTest, BatchModeStampsAroundTheOneEnter) {
  FakeClock clock;
  FakeRing ring{&clock};
  FakeStamps a;
  const TurnResult turn = EnterAndStamp(ring, clock, &a, 2, /*wait_nr=*/8,
                                        LatencyMode::kBatch, 777);
  ASSERT_EQ(ring.calls.size(), 1u);
  EXPECT_EQ(ring.calls[0].wait_nr, 8u);
  EXPECT_EQ(ring.calls[0].timeout_ns, 777);
  // Exactly two clock reads: right before and right after the enter.
  ASSERT_EQ(clock.reads.size(), 2u);
  EXPECT_EQ(clock.reads[0], ring.calls[0].at);
  EXPECT_EQ(a.submit_ns, 1000);
  // The enter also waited for the batch: slat includes that wait.
  EXPECT_EQ(a.issued_ns, 1000 + 10 + 500);
  EXPECT_EQ(turn.reap_ns, a.issued_ns);
  EXPECT_EQ(turn.calls, 1u);
}

TEST(EnterAndStampTest, PerIoModeSubmitsThenWaitsForOne) {
  FakeClock clock;
  FakeRing ring{&clock};
  FakeStamps a;
  const TurnResult turn = EnterAndStamp(ring, clock, &a, 1, /*wait_nr=*/8,
                                        LatencyMode::kPerIo, 777);
  ASSERT_EQ(ring.calls.size(), 2u);
  EXPECT_EQ(ring.calls[0].wait_nr, 0u);  // submit only
  EXPECT_EQ(ring.calls[1].wait_nr, 1u);  // then one completion, not 8
  EXPECT_EQ(ring.calls[1].timeout_ns, 777);
  ASSERT_EQ(clock.reads.size(), 3u);
  EXPECT_EQ(a.submit_ns, 1000);
  EXPECT_EQ(a.issued_ns, 1010);  // slat is the submit call alone
  EXPECT_EQ(turn.reap_ns, 1010 + 10 + 500);
  EXPECT_EQ(turn.calls, 2u);
}

TEST(EnterAndStampTest, PerIoModeDoesNotWaitWhenACompletionIsThere) {
  FakeClock clock;
  FakeRing ring{&clock};
  ring.ready_after_submit = 1;
  FakeStamps a;
  const TurnResult turn =
      EnterAndStamp(ring, clock, &a, 1, 4, LatencyMode::kPerIo, 0);
  ASSERT_EQ(ring.calls.size(), 1u);
  EXPECT_EQ(turn.reap_ns, 1010);
  EXPECT_EQ(a.issued_ns, 1010);
}

TEST(EnterAndStampTest, PerIoModeWithNothingToSubmitWaitsForOne) {
  FakeClock clock;
  FakeRing ring{&clock};
  const TurnResult turn = EnterAndStamp<FakeRing, FakeClock&, FakeStamps>(
      ring, clock, nullptr, 0, 16, LatencyMode::kPerIo, 5);
  ASSERT_EQ(ring.calls.size(), 1u);
  EXPECT_EQ(ring.calls[0].wait_nr, 1u);
  EXPECT_EQ(turn.reap_ns, 1000 + 10 + 500);
}

TEST(EnterAndStampTest, PerIoModeStopsAfterAHardSubmitError) {
  FakeClock clock;
  FakeRing ring{&clock};
  ring.result = -EFAULT;
  FakeStamps a;
  const TurnResult turn =
      EnterAndStamp(ring, clock, &a, 1, 4, LatencyMode::kPerIo, 0);
  EXPECT_EQ(ring.calls.size(), 1u);
  EXPECT_EQ(turn.ret, -EFAULT);
}

TEST(EnterAndStampTest, NothingSubmittedLeavesTheStampsAlone) {
  FakeClock clock;
  FakeRing ring{&clock};
  FakeStamps a;
  EnterAndStamp(ring, clock, &a, 0, 4, LatencyMode::kBatch, 0);
  EnterAndStamp(ring, clock, &a, 0, 4, LatencyMode::kPerIo, 0);
  EXPECT_EQ(ring.calls.size(), 2u);
  EXPECT_EQ(a.submit_ns, -1);
  EXPECT_EQ(a.issued_ns, -1);
}

TEST(EnterAndStampTest, LatenciesAddUpPerIo) {
  FakeClock clock;
  FakeRing ring{&clock};
  FakeStamps a;
  const TurnResult turn =
      EnterAndStamp(ring, clock, &a, 1, 1, LatencyMode::kBatch, 0);
  const int64_t slat = a.issued_ns - a.submit_ns;
  const int64_t clat = turn.reap_ns - a.issued_ns;
  EXPECT_EQ(slat, 510);
  EXPECT_EQ(clat, 0);  // completed during the submitting enter
  EXPECT_EQ(slat + clat, turn.reap_ns - a.submit_ns);
}

// KernelRing on real rings of each kind the submitter sets up, with the
// ring fd registered or not: its own enter must behave as liburing's.
struct KernelRingCase {
  unsigned setup_flags;
  bool register_fd;
};

class KernelRingTest : public ::testing::TestWithParam<KernelRingCase> {
 protected:
  void SetUp() override {
    io_uring_params p{};
    p.flags = GetParam().setup_flags;
    ASSERT_EQ(io_uring_queue_init_params(16, &ring_, &p), 0);
    if (GetParam().register_fd) {
      ASSERT_EQ(io_uring_register_ring_fd(&ring_), 1);
    }
  }
  void TearDown() override { io_uring_queue_exit(&ring_); }
  void QueueNops(int n) {
    for (int i = 0; i < n; ++i) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      ASSERT_NE(sqe, nullptr);
      io_uring_prep_nop(sqe);
      sqe->user_data = 100 + i;
    }
  }
  io_uring ring_;
};

TEST_P(KernelRingTest, SubmitsAndWaitsInOneCall) {
  KernelRing ring(&ring_, GetParam().register_fd);
  QueueNops(5);
  EXPECT_EQ(ring.SubmitAndWait(5, 0), 5);
  EXPECT_EQ(ring.CqReady(), 5u);
  EXPECT_EQ(io_uring_sq_ready(&ring_), 0u);
}

TEST_P(KernelRingTest, SubmitsWithoutWaitingAndDoesNothingWhenIdle) {
  KernelRing ring(&ring_, GetParam().register_fd);
  EXPECT_EQ(ring.SubmitAndWait(0, 0), 0);  // nothing queued
  QueueNops(3);
  EXPECT_EQ(ring.SubmitAndWait(0, 0), 3);
  EXPECT_EQ(ring.SubmitAndWait(3, 0), 0);  // already there: returns at once
  EXPECT_EQ(ring.CqReady(), 3u);
}

TEST_P(KernelRingTest, TimedWaitEndsWithEtime) {
  KernelRing ring(&ring_, GetParam().register_fd);
  EXPECT_EQ(ring.SubmitAndWait(1, 1'000'000), -ETIME);
}

TEST_P(KernelRingTest, ReturnsTheKernelsErrorAsMinusErrno) {
  io_uring broken = ring_;  // same mappings, a ring fd that is not one
  broken.ring_fd = -1;
  broken.enter_ring_fd = -1;
  KernelRing ring(&broken, GetParam().register_fd);
  io_uring_sqe* sqe = io_uring_get_sqe(&broken);
  ASSERT_NE(sqe, nullptr);
  io_uring_prep_nop(sqe);
  const int ret = ring.SubmitAndWait(1, 0);
  EXPECT_TRUE(ret == -EBADF || ret == -EINVAL) << ret;
}

INSTANTIATE_TEST_SUITE_P(
    RingKinds, KernelRingTest,
    ::testing::Values(
        KernelRingCase{0, false}, KernelRingCase{0, true},
        KernelRingCase{IORING_SETUP_COOP_TASKRUN, true},
        KernelRingCase{IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                       false},
        KernelRingCase{IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                       true}));

TEST(TransientEnterErrorTest, TimeoutIsNotAFailure) {
  EXPECT_TRUE(TransientEnterError(-ETIME));
  EXPECT_TRUE(TransientEnterError(-EINTR));
  EXPECT_FALSE(TransientEnterError(-EFAULT));
}

TEST(XorshiftStateTest, NeverZeroAndDistinctPerThread) {
  // The old state, seed ^ (golden * (index + 1)), was 0 for this seed.
  const uint64_t bad_old_seed = 0x9e3779b97f4a7c15ULL;
  for (int index = 0; index < 64; ++index) {
    EXPECT_NE(XorshiftState(bad_old_seed * (index + 1), index), 0u);
    EXPECT_NE(XorshiftState(0, index), 0u);
  }
  EXPECT_NE(XorshiftState(42, 0), XorshiftState(42, 1));
  EXPECT_NE(XorshiftState(42, 0), XorshiftState(43, 0));
}

TEST(EnterFailureTest, NamesTheThreadAndNoTarget) {
  const FirstError error = EnterFailure(3, EFAULT, 5, 8);
  EXPECT_EQ(error.errno_value, EFAULT);
  EXPECT_TRUE(error.target.empty());
  EXPECT_NE(error.message.find("submitter thread 3"), std::string::npos)
      << error.message;
  EXPECT_NE(error.message.find("EFAULT"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("5 SQEs"), std::string::npos) << error.message;
}

TEST(StallCheckIntervalTest, QuarterOfTheTimeoutAtLeastOneMillisecond) {
  EXPECT_EQ(StallCheckInterval(4'000'000'000), 1'000'000'000);
  EXPECT_EQ(StallCheckInterval(2'000'000), 1'000'000);
}

// The header's example, as written there: one NOP through a kernel ring,
// stamped by the turn clock into a TurnLog turn.
TEST(IoTurnUsageTest, UsageExample) {
  io_uring uring;
  ASSERT_EQ(io_uring_queue_init(8, &uring, 0), 0);
  TurnLog turns(/*max_inflight_ios=*/8);
  const uint16_t slot = turns.NextSlot();
  io_uring_prep_nop(io_uring_get_sqe(&uring));
  const uint32_t n = 1;
  turns.Start(slot, n);
  const unsigned wait_nr = 1;
  const int64_t timeout_ns = 0;

  KernelRing ring(&uring, /*registered_ring_fd=*/false);
  TurnClock clock = TurnClock::Create();           // or any Clock below
  TurnLog::Stamps& stamps = turns.stamps(slot);     // turn_log.h
  TurnResult turn = EnterAndStamp(ring, clock, &stamps, n, wait_nr,
                                  LatencyMode::kBatch, timeout_ns);

  EXPECT_EQ(turn.ret, 1);
  EXPECT_EQ(turn.calls, 1u);
  EXPECT_EQ(io_uring_cq_ready(&uring), 1u);
  EXPECT_GT(stamps.submit_ns, 0);
  EXPECT_EQ(stamps.issued_ns, turn.reap_ns);
  EXPECT_GE(turn.reap_ns, stamps.submit_ns);
  io_uring_queue_exit(&uring);
}

}  // namespace
}  // namespace blkperf::internal
