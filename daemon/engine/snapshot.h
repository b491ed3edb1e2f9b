// Figures of a workload at one moment: what Workload::Snapshot() returns and
// what the control plane, metrics and reports read. Plain values, mergeable.
//
//   WorkloadSnapshot s = workload.Snapshot();
//   double iops = s.total.Iops(s.elapsed);
//   uint64_t p99 = s.total.latency.Percentile(99);
#ifndef BLKPERF_DAEMON_ENGINE_SNAPSHOT_H_
#define BLKPERF_DAEMON_ENGINE_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/engine/histogram.h"

namespace blkperf {

enum class WorkloadState {
  kRamping,   // running, not yet measuring
  kRunning,   // measuring
  kStopping,  // stop asked or time up; draining in-flight I/O
  kFinished,  // ran to its runtime or I/O count
  kStopped,   // stopped by a user before its end
  kFailed,    // stopped by an I/O error (see WorkloadSnapshot::error)
};
absl::string_view WorkloadStateName(WorkloadState state);
inline bool IsTerminal(WorkloadState state) {
  return state == WorkloadState::kFinished ||
         state == WorkloadState::kStopped || state == WorkloadState::kFailed;
}

// I/O errors of one kind. errno_value is positive; the two pseudo errnos
// below stand for a short transfer and for verification failures.
struct ErrorCount {
  int errno_value = 0;
  std::string name;  // "EIO", "short transfer", "verify mismatch"
  uint64_t count = 0;
};
inline constexpr int kShortTransferErrno = 1000;
inline constexpr int kVerifyMismatchErrno = 1001;

// The first error a workload saw, with where it happened.
struct FirstError {
  int errno_value = 0;
  std::string target;
  uint64_t offset = 0;
  std::string message;  // "EIO (Input/output error) at /dev/x offset 4096"
};

// Counters of one submitter thread, or their sum (`thread_index` -1).
struct ThreadSnapshot {
  int thread_index = -1;
  int cpu = -1;
  uint64_t ios = 0;  // completed logical I/Os, measured phase only
  uint64_t bytes = 0;
  uint64_t read_ios = 0;
  uint64_t read_bytes = 0;
  uint64_t write_ios = 0;
  uint64_t write_bytes = 0;
  uint64_t sqes = 0;         // SQEs submitted (pieces)
  uint64_t enter_calls = 0;  // io_uring_enter calls made for submit and reap
  uint64_t inflight = 0;     // logical I/Os in flight now
  uint64_t cache_hits = 0;   // request objects from the thread's own cache
  uint64_t cache_misses = 0; // request objects from the shared pool
  double user_cpu_seconds = 0;
  double system_cpu_seconds = 0;
  std::vector<ErrorCount> errors;
  LatencyHistogram latency;  // logical I/O latency, nanoseconds

  uint64_t ErrorTotal() const;
  // Adds `other` (counters, errors by errno, histogram).
  void Merge(const ThreadSnapshot& other);
  double Iops(absl::Duration elapsed) const;
  double BytesPerSecond(absl::Duration elapsed) const;
  double IosPerCall() const;
};

// How the rings were actually set up, after feature probing and fallbacks.
struct RingSetup {
  std::vector<std::string> setup_flags;  // e.g. "SINGLE_ISSUER", "DEFER_TASKRUN"
  bool registered_ring_fd = false;
  bool fixed_buffers = false;
  bool registered_files = false;
  bool polled = false;
  bool sqpoll = false;
  bool huge_pages = false;  // I/O buffers backed by huge pages
};

struct WorkloadSnapshot {
  WorkloadState state = WorkloadState::kRamping;
  absl::Time taken;
  // Measured time so far (from the end of ramp-up to now or to the end).
  absl::Duration elapsed;
  ThreadSnapshot total;
  std::vector<ThreadSnapshot> threads;
  RingSetup ring;
  // Fallbacks and facts a user must know, e.g. that polled: auto fell back.
  std::vector<std::string> notes;
  bool has_error = false;
  FirstError error;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SNAPSHOT_H_
