#include "fleet/calls.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <thread>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

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

std::string PrepareForHosts(size_t hosts) {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // One socket per host, plus gRPC's own descriptors and stdio.
  const rlim_t needed = static_cast<rlim_t>(hosts) + 256;
  rlimit limit = {};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return absl::StrCat("cannot read RLIMIT_NOFILE: ", strerror(errno));
  }
  std::string note;
  if (limit.rlim_cur < limit.rlim_max) {
    const rlim_t before = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
      note = absl::StrCat("RLIMIT_NOFILE stays ", before,
                          ": cannot raise it to the hard limit ",
                          limit.rlim_max, ": ", strerror(errno));
      limit.rlim_cur = before;
    }
  }
  if (limit.rlim_cur >= needed) return note;
  if (!note.empty()) absl::StrAppend(&note, "; ");
  absl::StrAppend(&note, "RLIMIT_NOFILE ", limit.rlim_cur, " is below the ",
                  needed, " descriptors ", hosts,
                  " hosts need: hosts past it fail to connect (raise the "
                  "hard limit: ulimit -Hn)");
  return note;
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
