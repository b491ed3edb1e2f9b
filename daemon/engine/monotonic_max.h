// A reading that may only go up, shared by a writer thread and any number
// of readers: for cumulative figures whose source can lose parts, such as
// the CPU time of io-wq workers (an idle worker exits and its time leaves
// /proc/self/task, so a fresh sum can be lower than an earlier one).
//
//   MonotonicMax io_wq_seconds;
//   out->io_worker_cpu_seconds = io_wq_seconds.Raise(SumOfLiveWorkers());
//
// Not for the I/O hot path: Raise is a compare-exchange loop.
#ifndef BLKPERF_DAEMON_ENGINE_MONOTONIC_MAX_H_
#define BLKPERF_DAEMON_ENGINE_MONOTONIC_MAX_H_

#include <atomic>

namespace blkperf::internal {

class MonotonicMax {
 public:
  // Thread-safe: raises the stored value to `reading` when that is larger
  // and returns the stored value afterwards (never less than any reading
  // passed so far, by any thread).
  double Raise(double reading) {
    double seen = value_.load(std::memory_order_relaxed);
    while (reading > seen &&
           !value_.compare_exchange_weak(seen, reading,
                                         std::memory_order_relaxed)) {
    }
    return reading > seen ? reading : seen;
  }
  double Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_MONOTONIC_MAX_H_
