#include "daemon/engine/ring/thread_cpu_times.h"

#include <sys/resource.h>

#include <algorithm>

namespace blkperf::internal {

void ThreadCpuTimes::RecordExit() {
  rusage usage;
  if (getrusage(RUSAGE_THREAD, &usage) != 0) return;
  final_user_.store(usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6);
  final_system_.store(usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6);
}

CpuSeconds ThreadCpuTimes::SinceStart(pid_t tid, bool exited,
                                      const IoWorkerCpu& workers) const {
  CpuSeconds out;
  if (exited) {
    out.user = final_user_.load();
    out.system = final_system_.load();
  } else if (tid != 0) {
    ReadTaskCpu(tid, &out.user, &out.system);
  }
  if (tid != 0) out.io_workers = workers.SecondsOf(tid);
  return out;
}

void ThreadCpuTimes::MarkBaseline(const CpuSeconds& since_start) {
  baseline_user_.store(since_start.user, std::memory_order_relaxed);
  baseline_system_.store(since_start.system, std::memory_order_relaxed);
  baseline_io_workers_.store(since_start.io_workers, std::memory_order_relaxed);
  baseline_taken_.store(true, std::memory_order_release);
}

CpuSeconds ThreadCpuTimes::InWindow(const CpuSeconds& since_start) const {
  if (!baseline_taken()) return {};
  // Each reading only grows (the kernel keeps a task's adjusted times
  // monotonic, and IoWorkerCpu its sums); the clamp keeps a thread whose
  // procfs read failed at zero rather than negative.
  const auto since = [](double now, const std::atomic<double>& then) {
    return std::max(0.0, now - then.load(std::memory_order_relaxed));
  };
  return {.user = since(since_start.user, baseline_user_),
          .system = since(since_start.system, baseline_system_),
          .io_workers = since(since_start.io_workers, baseline_io_workers_)};
}

}  // namespace blkperf::internal
