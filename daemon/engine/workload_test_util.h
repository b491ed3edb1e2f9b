// Helpers for tests that run real workloads.
//
//   WorkloadSnapshot s = RunToEnd(spec);          // start, wait, snapshot
//   absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
//   ExpectPhasesOnTime(s, slice, bound, witness);  // A/B phases' lateness
#ifndef BLKPERF_DAEMON_ENGINE_WORKLOAD_TEST_UTIL_H_
#define BLKPERF_DAEMON_ENGINE_WORKLOAD_TEST_UTIL_H_

#include <cstdint>
#include <iostream>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "daemon/engine/workload.h"
#include "gtest/gtest.h"
#include "tests/timing/pause_witness.h"

namespace blkperf {

// Starts `spec` with the default engine limits.
inline absl::StatusOr<std::unique_ptr<Workload>> StartWorkload(
    const WorkloadSpec& spec) {
  return Workload::Start(spec, EngineLimits{});
}

// Starts `spec`, waits for its end and returns the final snapshot; a test
// failure and an empty snapshot when it cannot start.
inline WorkloadSnapshot RunToEnd(const WorkloadSpec& spec) {
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  (*w)->Wait();
  return (*w)->Snapshot();
}

// Every A/B phase of `s` after the first began at or after its slice's
// instant, and less than `bound` after it, or later only by as long as
// `witness` saw the machine paused from the slice before (when the last
// boundary was built) until the phase began.
inline void ExpectPhasesOnTime(const WorkloadSnapshot& s, absl::Duration slice,
                               absl::Duration bound,
                               const testing::PauseWitness& witness) {
  const int64_t origin = s.start.measure_start_monotonic_ns;
  ASSERT_NE(origin, 0);
  for (size_t k = 1; k < s.phases.size(); ++k) {
    const absl::Duration late = s.phases[k].start - k * slice;
    const int64_t due = origin + absl::ToInt64Nanoseconds(k * slice);
    const int64_t began = origin + absl::ToInt64Nanoseconds(s.phases[k].start);
    const int64_t since = due - absl::ToInt64Nanoseconds(slice);
    EXPECT_GE(late, absl::ZeroDuration()) << "phase " << k;
    const absl::Duration paused = witness.PausedWithin(since, began);
    if (late >= bound && late < bound + paused) {
      std::cerr << "phase " << k << " began " << late << " late, allowed by "
                << paused << " of machine pauses:\n"
                << witness.DescribeWithin(since, began);
    }
    EXPECT_LT(late, bound + paused)
        << "phase " << k << "; machine pauses seen from the slice before: "
        << witness.DescribeWithin(since, began)
        << "(witness: " << witness.status() << "); notes: "
        << absl::StrJoin(s.notes, "; ");
  }
}

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_WORKLOAD_TEST_UTIL_H_
