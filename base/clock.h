// The process's clocks in nanoseconds, for control code (leases, start
// instants, clock samples, timeouts). Both are vDSO reads, tens of ns. The
// submitters' per-turn clock is daemon/engine/ring/turn_clock.h, which can
// also read the TSC.
//
//   const int64_t deadline_ns = MonotonicNowNs() + 5'000'000'000;
//   if (MonotonicNowNs() > deadline_ns) { ... }
#ifndef BLKPERF_BASE_CLOCK_H_
#define BLKPERF_BASE_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace blkperf {

// CLOCK_MONOTONIC, ns: never steps; the unit of start instants and leases.
inline int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// CLOCK_REALTIME, ns since the epoch: wall time, may step.
inline int64_t RealtimeNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace blkperf

#endif  // BLKPERF_BASE_CLOCK_H_
