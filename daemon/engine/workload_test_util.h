// Helpers for tests that run real workloads.
//
//   WorkloadSnapshot s = RunToEnd(spec);          // start, wait, snapshot
//   absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
#ifndef BLKPERF_DAEMON_ENGINE_WORKLOAD_TEST_UTIL_H_
#define BLKPERF_DAEMON_ENGINE_WORKLOAD_TEST_UTIL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "daemon/engine/workload.h"
#include "gtest/gtest.h"

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

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_WORKLOAD_TEST_UTIL_H_
