// A submitter thread's CPU time as any thread reads it: its own user and
// system seconds and its kernel workers' (io-wq, SQPOLL; io_worker_cpu.h),
// counted from the start of the measured window. Neither the set-up (the
// buffers' fill, the registrations) nor the ramp is in the window; before
// it starts every figure is zero, as the counts are. Not on the I/O path:
// readings come from procfs and getrusage.
//
//   ThreadCpuTimes cpu;                               // the thread's
//   ... on the submitter, as it exits: cpu.RecordExit();
//   ... any thread, at the window's start:
//   cpu.MarkBaseline(cpu.SinceStart(tid, exited, workers));
//   ... any thread, later:
//   const CpuSeconds used = cpu.InWindow(cpu.SinceStart(tid, exited, workers));
#ifndef BLKPERF_DAEMON_ENGINE_RING_THREAD_CPU_TIMES_H_
#define BLKPERF_DAEMON_ENGINE_RING_THREAD_CPU_TIMES_H_

#include <sys/types.h>

#include <atomic>

#include "daemon/engine/host/io_worker_cpu.h"

namespace blkperf::internal {

struct CpuSeconds {
  double user = 0;
  double system = 0;
  double io_workers = 0;  // the thread's io_uring kernel threads
};

class ThreadCpuTimes {
 public:
  // On the thread itself, as it exits: its user and system time then (its
  // /proc task entry goes away with the thread). Once.
  void RecordExit();

  // Any thread: CPU seconds of thread `tid` since it started (0 for all
  // when tid is 0, a thread that has not begun). A thread that has
  // `exited` gives its RecordExit figures; a live one its procfs figures
  // (zero when they cannot be read); its kernel workers' as of the last
  // sample of `workers`.
  CpuSeconds SinceStart(pid_t tid, bool exited,
                        const IoWorkerCpu& workers) const;

  // Any thread, once: the window starts at `since_start` (a SinceStart
  // reading taken now).
  void MarkBaseline(const CpuSeconds& since_start);
  bool baseline_taken() const {
    return baseline_taken_.load(std::memory_order_acquire);
  }

  // Any thread: `since_start` less the baseline, each at least 0 (a procfs
  // read that failed gives zero rather than negative); all zero until
  // MarkBaseline.
  CpuSeconds InWindow(const CpuSeconds& since_start) const;

 private:
  std::atomic<double> final_user_{0};
  std::atomic<double> final_system_{0};
  // Published by baseline_taken_.
  std::atomic<double> baseline_user_{0};
  std::atomic<double> baseline_system_{0};
  std::atomic<double> baseline_io_workers_{0};
  std::atomic<bool> baseline_taken_{false};
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_THREAD_CPU_TIMES_H_
