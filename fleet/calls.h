// How the orchestrator calls many daemons: bounded fan-out and retries with
// backoff, the latter for idempotent calls only.
//
//   ForEachBounded(hosts.size(), /*max_in_flight=*/64, [&](size_t i) {
//     absl::StatusOr<v1::GetClockResponse> r = CallWithRetry<...>(
//         policy, Idempotency::kIdempotent, [&] { return c.GetClock({}); });
//   });
//
// Idempotent here: ArmWorkload with a run id, GetClock, GoWorkload,
// AbortRun, GetWorkload, ListWorkloads, GetCapabilities. Not idempotent:
// SetSplitStrategy (a repeat would start another phase), StartWorkload
// without a run id.
#ifndef BLKPERF_FLEET_CALLS_H_
#define BLKPERF_FLEET_CALLS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "wire/connection.h"

namespace blkperf::fleet {

// Runs fn(0) .. fn(n - 1) on at most `max_in_flight` threads at once (each
// makes one blocking call at a time, so at most that many calls are in
// flight) and returns when all have returned. REQUIRES: max_in_flight >= 1.
//
// How many run at once adapts between 1 and max_in_flight to what the
// hosts and this machine sustain (AdaptiveLimit below): it starts at
// kInitialInFlight and grows while a call's latency stays near the
// fastest seen, and shrinks when calls queue (latency grows with no more
// done per second). Threads start as the limit first reaches them, so a
// limit held low keeps few threads.
void ForEachBounded(size_t n, int max_in_flight,
                    const std::function<void(size_t)>& fn);

inline constexpr int kInitialInFlight = 16;

// A gradient concurrency limit (after Netflix's concurrency-limits): every
// window of max(8, limit) completed tasks it sets
//   limit = limit * clamp(min_latency / mean_latency, 0.5, 1) + sqrt(limit)
// within [1, max]: while latency stays at the fastest seen the limit grows
// by its square root, and a queue that doubles latency halves it. The
// latency is per call (the task's time over the calls it made, counted by
// RetryLoop), so tasks that make more calls do not look slower.
class AdaptiveLimit {
 public:
  AdaptiveLimit(int initial, int max);
  // The tasks that may be in flight now.
  int limit() const { return static_cast<int>(limit_); }
  // A task made `calls` calls (0 counts as 1) in `latency`.
  void Completed(absl::Duration latency, int calls);

 private:
  double limit_;
  const double max_;
  double min_per_call_s_ = 0;
  double window_sum_s_ = 0;
  int window_tasks_ = 0;
};

// Calls made by RetryLoop on this thread so far (attempts, not retries).
int64_t CallsOnThisThread();

// Readies this process to hold a connection to each of `hosts` daemons:
// raises RLIMIT_NOFILE's soft limit to the hard limit (as blkperfd does)
// and turns off absl's debug lock-order graph (with the Debian absl build
// it records every gRPC mutex of every channel: 14 % of the orchestrator's
// CPU at 1,000 hosts, and memory per mutex). Returns what the caller must
// tell the user ("" if nothing): that the limit could not be raised, or
// that it stays below the descriptors `hosts` connections need.
std::string PrepareForHosts(size_t hosts);

enum class Idempotency { kIdempotent, kNotIdempotent };

struct RetryPolicy {
  // Attempts in all (1 = no retry).
  int max_attempts = 4;
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(2);
  double multiplier = 2.0;
  // No attempt starts after this, and none runs past it (calls take
  // budget()): a step's retries share one budget.
  absl::Time deadline = absl::InfiniteFuture();
  // Once cancelled no attempt starts, and the calls in flight end.
  CallCanceller* canceller = nullptr;

  // What each attempt's call gets (Connection's unary calls).
  CallBudget budget() const { return {deadline, canceller}; }
};

// A code that may succeed if tried again: UNAVAILABLE, DEADLINE_EXCEEDED,
// ABORTED.
bool Retryable(absl::StatusCode code);

// Backoff before attempt `attempt` (2, 3, ...): initial * multiplier^(n-2),
// capped at max_backoff, with +-20% jitter.
absl::Duration Backoff(const RetryPolicy& policy, int attempt);

// Calls `call` once, or, when `idempotency` allows, up to max_attempts
// times while it fails with a Retryable code, sleeping Backoff between (an
// attempt that would start past the deadline, or after the canceller was
// cancelled, is not made). The
// last error is returned with " (after N attempts)" appended when retried.
absl::Status RetryLoop(const RetryPolicy& policy, Idempotency idempotency,
                       const std::function<absl::Status()>& call);

template <typename T>
absl::StatusOr<T> CallWithRetry(const RetryPolicy& policy,
                                Idempotency idempotency,
                                const std::function<absl::StatusOr<T>()>& call) {
  absl::StatusOr<T> result = absl::UnknownError("not called");
  const absl::Status status = RetryLoop(policy, idempotency, [&] {
    result = call();
    return result.status();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_CALLS_H_
