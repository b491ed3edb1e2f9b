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

namespace {
thread_local int64_t calls_on_this_thread = 0;
}  // namespace

int64_t CallsOnThisThread() { return calls_on_this_thread; }

AdaptiveLimit::AdaptiveLimit(int initial, int max)
    : limit_(std::clamp(initial, 1, std::max(1, max))),
      max_(std::max(1, max)) {}

void AdaptiveLimit::Completed(absl::Duration latency, int calls) {
  const double per_call =
      absl::ToDoubleSeconds(latency) / std::max(1, calls);
  if (min_per_call_s_ == 0 || per_call < min_per_call_s_) {
    min_per_call_s_ = per_call;
  }
  window_sum_s_ += per_call;
  if (++window_tasks_ < std::max(8, limit())) return;
  const double mean = window_sum_s_ / window_tasks_;
  const double gradient =
      mean > 0 ? std::clamp(min_per_call_s_ / mean, 0.5, 1.0) : 1.0;
  limit_ = std::clamp(limit_ * gradient + std::sqrt(limit_), 1.0, max_);
  window_sum_s_ = 0;
  window_tasks_ = 0;
}

namespace {

// Shared by ForEachBounded's workers, under `mu`.
struct Fanout {
  absl::Mutex mu;
  AdaptiveLimit limit;
  size_t n;
  // Threads started; never more than the limit has been (nor n).
  size_t workers = 0;
  size_t next = 0;
  int in_flight = 0;
  // A worker may take a task (or see that none is left).
  bool Open() const { return next >= n || in_flight < limit.limit(); }
  // Every task taken, or the limit above the threads there are.
  bool NeedsWorkerOrDone() const {
    return next >= n ||
           (workers < n && workers < static_cast<size_t>(limit.limit()));
  }
};

void Work(Fanout& f, const std::function<void(size_t)>& fn) {
  for (;;) {
    size_t i;
    {
      absl::MutexLock lock(&f.mu);
      f.mu.Await(absl::Condition(&f, &Fanout::Open));
      if (f.next >= f.n) return;
      i = f.next++;
      ++f.in_flight;
    }
    const int64_t calls_before = calls_on_this_thread;
    const absl::Time begin = absl::Now();
    fn(i);
    const absl::Duration took = absl::Now() - begin;
    absl::MutexLock lock(&f.mu);
    --f.in_flight;
    f.limit.Completed(took,
                      static_cast<int>(calls_on_this_thread - calls_before));
  }
}

}  // namespace

void ForEachBounded(size_t n, int max_in_flight,
                    const std::function<void(size_t)>& fn) {
  Fanout f{{}, AdaptiveLimit(kInitialInFlight, max_in_flight), n};
  // Threads start as the limit first reaches them: one blocked on the
  // fan-out's lock per task that may be in flight, not per max_in_flight
  // (a loaded or CPU-bound machine holds the limit far below it, and
  // every waiter costs each unlock a wake-up check).
  std::vector<std::thread> threads;
  for (;;) {
    {
      absl::MutexLock lock(&f.mu);
      f.mu.Await(absl::Condition(&f, &Fanout::NeedsWorkerOrDone));
      if (f.next >= n) break;
      ++f.workers;
    }
    threads.emplace_back([&] { Work(f, fn); });
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
      const absl::Time resume = absl::Now() + Backoff(policy, attempt);
      if (resume > policy.deadline) break;
      // In slices, to see a cancel (Ctrl-C) promptly.
      while (absl::Now() < resume &&
             (policy.canceller == nullptr || !policy.canceller->cancelled())) {
        absl::SleepFor(std::min(absl::Milliseconds(20), resume - absl::Now()));
      }
      if (policy.canceller != nullptr && policy.canceller->cancelled()) break;
    }
    status = call();
    ++made;
    ++calls_on_this_thread;
    if (status.ok() || !Retryable(status.code())) break;
  }
  if (status.ok() || made == 1) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), " (after ",
                                                  made, " attempts)"));
}

}  // namespace blkperf::fleet
