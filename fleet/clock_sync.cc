#include "fleet/clock_sync.h"

#include <time.h>

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace blkperf::fleet {
namespace {

// The midpoint of [low, high] and half its width, rounded up so that the
// bound stays a bound. Written without (low + high) / 2: no overflow.
void SetFromInterval(int64_t low, int64_t high, ClockEstimate& e) {
  const int64_t width = high - low;
  e.offset_ns = low + width / 2;
  e.error_ns = width - width / 2;
}

}  // namespace

absl::StatusOr<ClockEstimate> EstimateOffset(
    absl::Span<const ClockSample> samples) {
  if (samples.empty()) {
    return absl::InvalidArgumentError("clock: no GetClock sample to use");
  }
  const ClockSample* fastest = nullptr;
  int64_t low = 0, high = 0;  // the intersection of every sample's bounds
  for (const ClockSample& s : samples) {
    if (s.received_ns < s.sent_ns) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clock: sample received at ", s.received_ns, " before it was sent at ",
          s.sent_ns));
    }
    const int64_t sample_low = s.host_ns - s.received_ns;
    const int64_t sample_high = s.host_ns - s.sent_ns;
    if (fastest == nullptr) {
      low = sample_low;
      high = sample_high;
    } else {
      low = std::max(low, sample_low);
      high = std::min(high, sample_high);
    }
    if (fastest == nullptr ||
        s.received_ns - s.sent_ns < fastest->received_ns - fastest->sent_ns) {
      fastest = &s;
    }
  }
  ClockEstimate e;
  e.rtt_ns = fastest->received_ns - fastest->sent_ns;
  e.samples = static_cast<int>(samples.size());
  e.consistent = low <= high;
  if (e.consistent) {
    SetFromInterval(low, high, e);
  } else {
    SetFromInterval(fastest->host_ns - fastest->received_ns,
                    fastest->host_ns - fastest->sent_ns, e);
  }
  return e;
}

}  // namespace blkperf::fleet
