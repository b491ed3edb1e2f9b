#include "fleet/calls.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"

namespace blkperf::fleet {

void ForEachBounded(size_t n, int max_in_flight,
                    const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  const size_t workers = std::min(n, static_cast<size_t>(max_in_flight));
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) fn(i);
    });
  }
  for (std::thread& t : threads) t.join();
}

bool Retryable(absl::StatusCode code) {
  return code == absl::StatusCode::kUnavailable ||
         code == absl::StatusCode::kDeadlineExceeded ||
         code == absl::StatusCode::kAborted;
}

absl::Duration Backoff(const RetryPolicy& policy, int attempt) {
  const double factor = std::pow(policy.multiplier, std::max(0, attempt - 2));
  const absl::Duration base =
      std::min(policy.initial_backoff * factor, policy.max_backoff);
  thread_local absl::BitGen gen;
  return base * absl::Uniform(gen, 0.8, 1.2);
}

absl::Status RetryLoop(const RetryPolicy& policy, Idempotency idempotency,
                       const std::function<absl::Status()>& call) {
  const int attempts =
      idempotency == Idempotency::kIdempotent ? std::max(1, policy.max_attempts)
                                              : 1;
  absl::Status status;
  int made = 0;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (attempt > 1) {
      const absl::Duration pause = Backoff(policy, attempt);
      if (absl::Now() + pause > policy.deadline) break;
      absl::SleepFor(pause);
    }
    status = call();
    ++made;
    if (status.ok() || !Retryable(status.code())) break;
  }
  if (status.ok() || made == 1) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), " (after ",
                                                  made, " attempts)"));
}

}  // namespace blkperf::fleet
