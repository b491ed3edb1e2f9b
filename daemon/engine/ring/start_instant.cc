#include "daemon/engine/ring/start_instant.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

namespace blkperf {
bool WaitForInstant(int64_t at_ns, const std::atomic<bool>& stop,
                    int64_t spin_window_ns, StartPoll poll) {
  constexpr int64_t kCheckStopEveryNs = 100'000'000;
  const int64_t wake_ns = at_ns - std::max<int64_t>(0, spin_window_ns);
  const int previous_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (previous_slack > 1) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  for (int64_t now = MonotonicNowNs(); now < wake_ns;
       now = MonotonicNowNs()) {
    if (stop.load(std::memory_order_relaxed)) break;
    const int64_t next = std::min(wake_ns, now + kCheckStopEveryNs);
    const timespec until = {.tv_sec = next / 1'000'000'000,
                            .tv_nsec = next % 1'000'000'000};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
  }
  if (previous_slack > 1) {
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(previous_slack), 0UL,
          0UL, 0UL);
  }
  return PollUntilInstant(
      at_ns, [&stop] { return stop.load(std::memory_order_relaxed); }, poll);
}

}  // namespace blkperf
