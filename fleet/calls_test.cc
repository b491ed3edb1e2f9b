#include "fleet/calls.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf::fleet {
namespace {

TEST(CallsTest, ForEachBoundedRunsEachOnceWithinTheBound) {
  std::atomic<int> in_flight{0}, peak{0};
  std::mutex mu;
  std::multiset<size_t> seen;
  ForEachBounded(200, 7, [&](size_t i) {
    const int now = ++in_flight;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {}
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    {
      std::lock_guard<std::mutex> lock(mu);
      seen.insert(i);
    }
    --in_flight;
  });
  ASSERT_EQ(seen.size(), 200u);
  for (size_t i = 0; i < 200; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
  EXPECT_LE(peak.load(), 7);
  EXPECT_GE(peak.load(), 2);
}

TEST(CallsTest, AdaptiveLimitGrowsToTheCapWhileLatencyHolds) {
  AdaptiveLimit limit(kInitialInFlight, 256);
  for (int i = 0; i < 5000; ++i) limit.Completed(absl::Microseconds(100), 1);
  EXPECT_EQ(limit.limit(), 256);
}

// A server that does `capacity` calls at once: beyond that, calls queue and
// latency grows in proportion to the calls in flight.
TEST(CallsTest, AdaptiveLimitSettlesNearWhatTheServerSustains) {
  constexpr int kCapacity = 24;
  AdaptiveLimit limit(kInitialInFlight, 1024);
  int highest_late = 0;
  for (int i = 0; i < 20000; ++i) {
    const double queue = std::max(1.0, limit.limit() / double{kCapacity});
    limit.Completed(absl::Microseconds(100) * queue, 1);
    if (i > 10000) highest_late = std::max(highest_late, limit.limit());
  }
  EXPECT_GE(limit.limit(), kCapacity / 2);
  EXPECT_LE(highest_late, 3 * kCapacity);
}

TEST(CallsTest, AdaptiveLimitJudgesLatencyPerCall) {
  AdaptiveLimit limit(kInitialInFlight, 128);
  // Tasks of 1 and of 16 calls, every call as fast: no queue to back off from.
  for (int i = 0; i < 4000; ++i) {
    const int calls = i % 2 == 0 ? 1 : 16;
    limit.Completed(absl::Microseconds(100) * calls, calls);
  }
  EXPECT_EQ(limit.limit(), 128);
}

TEST(CallsTest, ForEachBoundedNeverExceedsTheCapWhenTheLimitGrows) {
  std::atomic<int> in_flight{0}, peak{0};
  std::atomic<int> done{0};
  ForEachBounded(3000, 20, [&](size_t) {
    const int now = ++in_flight;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {}
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    ++done;
    --in_flight;
  });
  EXPECT_EQ(done.load(), 3000);
  EXPECT_LE(peak.load(), 20);
  // Above the initial limit: constant latency let it grow.
  EXPECT_GT(peak.load(), kInitialInFlight);
}

// A server that does 2 calls at once (latency grows with the calls in
// flight beyond that) holds the limit low: ForEachBounded starts threads
// as the limit reaches them, not max_in_flight of them.
TEST(CallsTest, ForEachBoundedStartsThreadsOnlyAsTheLimitNeedsThem) {
  std::atomic<int> in_flight{0};
  std::mutex mu;
  std::set<std::thread::id> threads;
  ForEachBounded(2000, 256, [&](size_t) {
    const int now = ++in_flight;
    std::this_thread::sleep_for(std::chrono::microseconds(100) *
                                std::max(1, now / 2));
    {
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    }
    --in_flight;
  });
  // Before: 256 threads, nearly every one taking tasks in turn.
  EXPECT_LT(threads.size(), 64u);
}

RetryPolicy Fast() {
  RetryPolicy p;
  p.initial_backoff = absl::Milliseconds(1);
  p.max_backoff = absl::Milliseconds(4);
  return p;
}

TEST(CallsTest, RetriesIdempotentCallsOnRetryableCodes) {
  int calls = 0;
  absl::StatusOr<int> r = CallWithRetry<int>(
      Fast(), Idempotency::kIdempotent, [&]() -> absl::StatusOr<int> {
        if (++calls < 3) return absl::UnavailableError("down");
        return 42;
      });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(calls, 3);
}

TEST(CallsTest, NeverRetriesNonIdempotentCalls) {
  int calls = 0;
  absl::StatusOr<int> r = CallWithRetry<int>(
      Fast(), Idempotency::kNotIdempotent, [&]() -> absl::StatusOr<int> {
        ++calls;
        return absl::UnavailableError("down");
      });
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(calls, 1);
}

TEST(CallsTest, GivesUpAfterMaxAttemptsAndSaysSo) {
  int calls = 0;
  absl::StatusOr<int> r = CallWithRetry<int>(
      Fast(), Idempotency::kIdempotent, [&]() -> absl::StatusOr<int> {
        ++calls;
        return absl::DeadlineExceededError("slow");
      });
  EXPECT_EQ(calls, 4);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("(after 4 attempts)"));
}

TEST(CallsTest, DoesNotRetryPermanentErrors) {
  int calls = 0;
  absl::StatusOr<int> r = CallWithRetry<int>(
      Fast(), Idempotency::kIdempotent, [&]() -> absl::StatusOr<int> {
        ++calls;
        return absl::InvalidArgumentError("spec.block_size 3000");
      });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.status().message(), "spec.block_size 3000");
}

TEST(CallsTest, BackoffGrowsAndIsCapped) {
  RetryPolicy p;
  for (int attempt = 2; attempt < 12; ++attempt) {
    const absl::Duration b = Backoff(p, attempt);
    EXPECT_GE(b, p.initial_backoff * 0.8);
    EXPECT_LE(b, p.max_backoff * 1.2);
  }
  EXPECT_GT(Backoff(p, 5), p.initial_backoff * 1.2);
}

TEST(CallsTest, NoAttemptStartsPastTheDeadline) {
  RetryPolicy p;
  p.initial_backoff = absl::Milliseconds(50);
  p.deadline = absl::Now() + absl::Milliseconds(10);
  int calls = 0;
  (void)CallWithRetry<int>(p, Idempotency::kIdempotent,
                           [&]() -> absl::StatusOr<int> {
                             ++calls;
                             return absl::UnavailableError("down");
                           });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace blkperf::fleet
