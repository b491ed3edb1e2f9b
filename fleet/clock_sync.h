// Clock offsets between the orchestrator and a daemon from GetClock samples.
//
// A sample is (local send time, daemon monotonic time, local receive time).
// The daemon read its clock somewhere inside the round trip, so each sample
// bounds the offset (daemon clock - local clock) on both sides:
//
//   host_ns - received_ns  <=  offset  <=  host_ns - sent_ns
//
// (the answer needed >= 0 ns to come back; the request >= 0 ns to get
// there). Every sample's bounds hold at once, so the offset lies in the
// intersection of all of them: the latest lower bound comes from the sample
// whose answer came back fastest, the earliest upper bound from the one
// whose request got there fastest, which need not be the same sample. The
// estimate is the middle of that interval and its error half the width.
// That interval lies inside the minimum-round-trip sample's own, so the
// bound is never looser than "half the smallest round trip" and, on links
// whose delay jitters, much tighter (the NTP "fastest in each direction"
// refinement). Samples should be taken close together: clocks that drift
// apart between samples widen nothing but can make the bounds disagree; if
// they do not intersect at all, the estimate falls back to the
// minimum-round-trip sample and says so (`consistent` false).
//
//   std::vector<ClockSample> samples = ...;  // 8 GetClock calls
//   absl::StatusOr<ClockEstimate> e = EstimateOffset(samples);
//   int64_t host_instant = local_instant + e->offset_ns;  // +- e->error_ns
#ifndef BLKPERF_FLEET_CLOCK_SYNC_H_
#define BLKPERF_FLEET_CLOCK_SYNC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/clock.h"

namespace blkperf::fleet {

struct ClockSample {
  int64_t sent_ns = 0;      // local CLOCK_MONOTONIC before the call
  int64_t host_ns = 0;      // the daemon's CLOCK_MONOTONIC it returned
  int64_t received_ns = 0;  // local CLOCK_MONOTONIC after the answer
};

struct ClockEstimate {
  // daemon clock - local clock, ns.
  int64_t offset_ns = 0;
  // |true offset - offset_ns| <= error_ns (half the intersection's width,
  // rounded up; half the minimum round trip when not `consistent`).
  int64_t error_ns = 0;
  // The smallest round trip among the samples.
  int64_t rtt_ns = 0;
  // Samples considered.
  int samples = 0;
  // False when the samples' bounds did not intersect (a clock stepped or
  // drifted while sampling): the minimum-round-trip sample alone was used.
  bool consistent = true;
};

// The estimate described above. InvalidArgument when `samples` is empty or
// a sample was received before it was sent.
absl::StatusOr<ClockEstimate> EstimateOffset(
    absl::Span<const ClockSample> samples);

// This process's CLOCK_MONOTONIC, ns (base/clock.h).
using ::blkperf::MonotonicNowNs;

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_CLOCK_SYNC_H_
