// Tells a timing test whether the machine itself stalled while it ran.
//
// On a virtual machine the vCPUs can stop for milliseconds (the host
// preempts them while they are busy; this development VM's pauses reach
// 30-100 ms while other tests fork and exit), and on a kernel built with
// PREEMPT_NONE a long kernel path holds a CPU against every real-time
// thread. Neither is blkperf's doing, and neither can be told from a late
// switch or start by looking at blkperf alone. The witness is one thread
// per allowed CPU at SCHED_FIFO 2 (above the engine's real-time waits at
// 1, so none of blkperf's own threads can hold it off) that sleeps in steps
// of kStep and records every wake-up later than the threshold: the CPU ran
// nothing of the witness's priority for that long. A pause that began
// between two wake-ups is seen from the next one: at most kStep shorter
// than it was.
//
// A test then allows a deadline to be missed by no more than the machine
// was seen paused around it (PausedWithin), and prints what it allowed.
// Without root the witness does not run (status() says why) and sees no
// pause, so it never excuses anything.
//
//   PauseWitness witness;
//   ... run, note when each thing was due (CLOCK_MONOTONIC) ...
//   EXPECT_LT(late, kBound + witness.PausedWithin(due - slice, happened));
#ifndef BLKPERF_TESTS_TIMING_PAUSE_WITNESS_H_
#define BLKPERF_TESTS_TIMING_PAUSE_WITNESS_H_

#include <atomic>
#include <cstdint>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace blkperf::testing {

// One late wake-up of a witness thread: it was due at `due` and ran at
// `woke`, on both clocks (fleet hosts in time namespaces share only
// CLOCK_REALTIME with the test).
struct MachinePause {
  int cpu = -1;
  int64_t due_monotonic_ns = 0;
  int64_t woke_monotonic_ns = 0;
  int64_t due_realtime_ns = 0;
  int64_t woke_realtime_ns = 0;
  absl::Duration length() const {
    return absl::Nanoseconds(woke_monotonic_ns - due_monotonic_ns);
  }
};

class PauseWitness {
 public:
  static constexpr absl::Duration kDefaultThreshold = absl::Microseconds(500);
  // How often each witness thread wakes. With 1 ms steps a pause was seen
  // up to 1 ms short of its length; 250 us steps cost about 2.3 % of each
  // CPU here, 1 ms steps 0.7 % (bench/RESULTS.md, 2026-12-06 05:25).
  static constexpr absl::Duration kStep = absl::Microseconds(250);
  // The witness threads' SCHED_FIFO priority: above the engine's real-time
  // waits (kRealtimeWaitPriority; pause_witness_test checks the order).
  static constexpr int kPriority = 2;

  // Starts the witness threads and returns once each one watches its CPU
  // (or has failed to); stops them on destruction.
  explicit PauseWitness(absl::Duration threshold = kDefaultThreshold);
  ~PauseWitness();
  PauseWitness(const PauseWitness&) = delete;
  PauseWitness& operator=(const PauseWitness&) = delete;

  // CLOCK_MONOTONIC now, the clock of the windows asked about below.
  static int64_t MonotonicNowNs();

  // OK while every witness thread runs at SCHED_FIFO 2 on its CPU;
  // otherwise why not (those threads then record nothing).
  absl::Status status() const;

  std::vector<MachinePause> Pauses() const;

  // How long the machine was seen paused within [from_ns, to_ns] of
  // CLOCK_MONOTONIC: per CPU the pauses' overlap with that window, added
  // up; the most of any CPU. Zero when the witness does not run.
  absl::Duration PausedWithin(int64_t from_ns, int64_t to_ns) const;

  // The longest single pause overlapping [from_ns, to_ns] (zero if none):
  // for a test whose figure a pause distorts wherever it falls (a p99).
  absl::Duration LongestPauseWithin(int64_t from_ns, int64_t to_ns) const;

  // The pauses overlapping [from_ns, to_ns], one line each, for a test's
  // message ("cpu 1: 12.3ms at +4.5ms"), offsets from `from_ns`.
  std::string DescribeWithin(int64_t from_ns, int64_t to_ns) const;

 private:
  void Watch(int cpu, std::latch* started);

  const int64_t threshold_ns_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  // std::mutex, not absl::Mutex: Debian's Abseil is not built for TSan,
  // and workload_test runs under it.
  mutable std::mutex mu_;
  absl::Status status_;               // guarded by mu_
  std::vector<MachinePause> pauses_;  // guarded by mu_
};

}  // namespace blkperf::testing

#endif  // BLKPERF_TESTS_TIMING_PAUSE_WITNESS_H_
