#include "daemon/engine/ring/wait_tick.h"

#include <liburing.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

constexpr int64_t kInterval = 20'000'000;  // 20 ms

int64_t Now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * int64_t{1'000'000'000} + t.tv_nsec;
}

class WaitTickTest : public ::testing::TestWithParam<unsigned> {
 protected:
  void SetUp() override {
    io_uring_params p{};
    p.flags = GetParam();
    ASSERT_EQ(io_uring_queue_init_params(64, &ring_, &p), 0);
  }
  void TearDown() override { io_uring_queue_exit(&ring_); }
  io_uring ring_;
};

// What the submitter loop relies on: a wait for more CQEs than will ever
// come, with no timeout of its own, returns at each tick with the tick's
// CQE alone.
TEST_P(WaitTickTest, EndsAWaitForMoreCqesThanArriveAtEveryTick) {
  absl::StatusOr<bool> armed = ArmWaitTick(&ring_, kInterval);
  ASSERT_TRUE(armed.ok()) << armed.status();
  ASSERT_TRUE(*armed) << "kernel refused IORING_TIMEOUT_MULTISHOT";
  int64_t last = Now();
  for (int tick = 0; tick < 3; ++tick) {
    ASSERT_GE(io_uring_submit_and_wait(&ring_, 8), 0);
    const int64_t now = Now();
    EXPECT_GE(now - last, kInterval / 2) << tick;
    EXPECT_LT(now - last, 25 * kInterval) << tick;  // a loaded CI machine
    last = now;
    ASSERT_EQ(io_uring_cq_ready(&ring_), 1u) << tick;
    io_uring_cqe* cqe = nullptr;
    ASSERT_EQ(io_uring_peek_cqe(&ring_, &cqe), 0);
    EXPECT_TRUE(IsWaitTick(cqe->user_data));
    EXPECT_EQ(cqe->res, -ETIME);
    EXPECT_NE(cqe->flags & IORING_CQE_F_MORE, 0u) << "the tick ended";
    io_uring_cqe_seen(&ring_, cqe);
  }
}

TEST_P(WaitTickTest, OtherCompletionsStillEndAWaitAtOnce) {
  ASSERT_TRUE(ArmWaitTick(&ring_, 10 * kInterval).value_or(false));
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  io_uring_prep_nop(sqe);
  sqe->user_data = 42;
  const int64_t start = Now();
  ASSERT_EQ(io_uring_submit_and_wait(&ring_, 1), 1);
  EXPECT_LT(Now() - start, 5 * kInterval);
  io_uring_cqe* cqe = nullptr;
  ASSERT_EQ(io_uring_peek_cqe(&ring_, &cqe), 0);
  EXPECT_EQ(cqe->user_data, 42u);
  EXPECT_FALSE(IsWaitTick(cqe->user_data));
}

// NOP rings rely on every field a NOP prep does not write staying zero.
TEST_P(WaitTickTest, LeavesEverySqeZero) {
  memset(ring_.sq.sqes, 0, sizeof(io_uring_sqe) * ring_.sq.ring_entries);
  ASSERT_TRUE(ArmWaitTick(&ring_, kInterval).value_or(false));
  const auto* bytes = reinterpret_cast<const unsigned char*>(ring_.sq.sqes);
  const size_t size = sizeof(io_uring_sqe) * ring_.sq.ring_entries;
  EXPECT_EQ(std::count(bytes, bytes + size, 0), static_cast<ptrdiff_t>(size));
}

INSTANTIATE_TEST_SUITE_P(
    RingKinds, WaitTickTest,
    ::testing::Values(0u, IORING_SETUP_COOP_TASKRUN,
                      IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN));

TEST(WaitTick, RefusesANonPositiveInterval) {
  io_uring ring;
  ASSERT_EQ(io_uring_queue_init(8, &ring, 0), 0);
  for (int64_t interval : {int64_t{0}, int64_t{-1}}) {
    absl::StatusOr<bool> armed = ArmWaitTick(&ring, interval);
    EXPECT_EQ(armed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(armed.status().message(), ::testing::HasSubstr("interval"));
  }
  EXPECT_EQ(io_uring_sq_ready(&ring), 0u) << "nothing queued";
  io_uring_queue_exit(&ring);
}

}  // namespace
}  // namespace blkperf::internal
