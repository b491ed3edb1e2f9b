#include "fleet/clock_sync.h"

#include <time.h>

#include "absl/strings/str_cat.h"

namespace blkperf::fleet {

absl::StatusOr<ClockEstimate> BestEstimate(
    absl::Span<const ClockSample> samples) {
  if (samples.empty()) {
    return absl::InvalidArgumentError("clock: no GetClock sample to use");
  }
  const ClockSample* best = nullptr;
  for (const ClockSample& s : samples) {
    if (s.received_ns < s.sent_ns) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clock: sample received at ", s.received_ns, " before it was sent at ",
          s.sent_ns));
    }
    if (best == nullptr ||
        s.received_ns - s.sent_ns < best->received_ns - best->sent_ns) {
      best = &s;
    }
  }
  const int64_t rtt = best->received_ns - best->sent_ns;
  ClockEstimate e;
  // sent + rtt / 2 rather than (sent + received) / 2: no overflow.
  e.offset_ns = best->host_ns - (best->sent_ns + rtt / 2);
  e.error_ns = rtt - rtt / 2;  // rounds up: the bound stays a bound
  e.rtt_ns = rtt;
  e.samples = static_cast<int>(samples.size());
  return e;
}

int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

}  // namespace blkperf::fleet
