// Clock offsets between the orchestrator and a daemon from GetClock samples.
// A sample is (local send time, daemon monotonic time, local receive time);
// the daemon read its clock somewhere inside the round trip, so taking the
// midpoint errs by at most half the round trip. The sample with the smallest
// round trip bounds the error best.
//
//   std::vector<ClockSample> samples = ...;  // 8 GetClock calls
//   absl::StatusOr<ClockEstimate> e = BestEstimate(samples);
//   int64_t host_instant = local_instant + e->offset_ns;  // +- e->error_ns
#ifndef BLKPERF_FLEET_CLOCK_SYNC_H_
#define BLKPERF_FLEET_CLOCK_SYNC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace blkperf::fleet {

struct ClockSample {
  int64_t sent_ns = 0;      // local CLOCK_MONOTONIC before the call
  int64_t host_ns = 0;      // the daemon's CLOCK_MONOTONIC it returned
  int64_t received_ns = 0;  // local CLOCK_MONOTONIC after the answer
};

struct ClockEstimate {
  // daemon clock - local clock, ns.
  int64_t offset_ns = 0;
  // |true offset - offset_ns| <= error_ns (half the round trip).
  int64_t error_ns = 0;
  int64_t rtt_ns = 0;
  // Samples considered.
  int samples = 0;
};

// The estimate from the minimum-round-trip sample. InvalidArgument when
// `samples` is empty or a sample was received before it was sent.
absl::StatusOr<ClockEstimate> BestEstimate(absl::Span<const ClockSample> samples);

// This process's CLOCK_MONOTONIC, ns.
int64_t MonotonicNowNs();

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_CLOCK_SYNC_H_
