// CPU time of io_uring's kernel threads, per submitter thread. io-wq workers
// ("iou-wrk-<tid>") and SQPOLL threads ("iou-sqp-<tid>") are named after the
// thread whose ring they serve, and live in this process's /proc/self/task;
// an idle io-wq worker exits and its time leaves procfs with it.
//
//   IoWorkerCpu cpu;
//   cpu.Sample({tid0, tid1});           // one walk of /proc/self/task
//   double seconds = cpu.SecondsOf(tid0);
//
// SecondsOf never goes down: a worker's last reading is kept when it exits
// (the time it ran after the last walk before its exit is not counted, at
// most one snapshot interval of it), and a worker id the kernel reuses for a
// new worker starts a new account. Only live workers are held, so memory is
// bounded by the workers alive at one walk plus one figure per owner.
//
// Thread-safe. Not for the I/O hot path: Sample reads procfs.
#ifndef BLKPERF_DAEMON_ENGINE_HOST_IO_WORKER_CPU_H_
#define BLKPERF_DAEMON_ENGINE_HOST_IO_WORKER_CPU_H_

#include <sys/types.h>

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "base/pi_mutex.h"

namespace blkperf::internal {

class IoWorkerCpu {
 public:
  // One kernel thread's CPU time (user + system) as one walk read it.
  struct Reading {
    pid_t worker = 0;  // the kernel thread's id
    pid_t owner = 0;   // the submitter thread it is named after
    double seconds = 0;
  };

  // One walk of /proc/self/task: Update with the readings of the workers
  // of `owners` (ids of 0 are ignored).
  void Sample(absl::Span<const pid_t> owners) ABSL_LOCKS_EXCLUDED(mu_);

  // Folds in the readings of one walk that looked for the workers of
  // `owners`: a worker of one of them that the walk did not see has exited
  // and keeps its last reading; workers of other owners are left as they
  // were. A reading below the last one for the same worker id (or naming
  // another owner) is a new worker with a reused id.
  void Update(absl::Span<const pid_t> owners,
              absl::Span<const Reading> readings) ABSL_LOCKS_EXCLUDED(mu_);

  // CPU seconds of every worker of `owner` seen so far.
  double SecondsOf(pid_t owner) const ABSL_LOCKS_EXCLUDED(mu_);

  // Workers held (those alive at the last walk that looked for them).
  size_t live_workers() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Worker {
    pid_t owner = 0;
    double seconds = 0;
    bool seen = false;  // during the Update in progress
  };

  mutable PiMutex mu_;
  absl::flat_hash_map<pid_t, Worker> live_ ABSL_GUARDED_BY(mu_);
  // Per owner: the last readings of its workers that have exited.
  absl::flat_hash_map<pid_t, double> exited_ ABSL_GUARDED_BY(mu_);
};

// utime + stime of one of this process's threads, from procfs, through
// user_seconds and system_seconds; false when it is gone or unreadable.
bool ReadTaskCpu(pid_t tid, double* user_seconds, double* system_seconds);

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_HOST_IO_WORKER_CPU_H_
