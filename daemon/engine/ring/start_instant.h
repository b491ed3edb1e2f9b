// Waiting for a start instant of CLOCK_MONOTONIC precisely, on the thread
// that is to act at it.
//
// A timer wake-up alone lands tens of microseconds late on a virtual
// machine (the vCPU must be woken by the hypervisor first: about 40 us at
// the median and 90 us at p99 with a 1 ns timer slack on the development
// VM), and later still when other threads keep the CPU busy. So the wait
// sleeps until `kStartSpinWindowNs` before the instant with an absolute
// clock_nanosleep (timer slack 1 ns for the wait, restored after), then
// polls the clock on the CPU until the instant. The poll does not
// sched_yield(): under EEVDF every yield pushes the thread's deadline a
// slice later, so a yielding poller is starved by exactly the threads it
// competes with (real-time pollers do yield, to each other: StartPoll).
// The window covers the timer's lateness when the CPUs were idle before
// the instant: a halted vCPU is woken by the hypervisor first, and with a
// 250 us window the fleet test's quiet rounds (8 hosts on 2 CPUs) had
// first submissions up to 3.4 ms after their instants, 3 rounds in 6 over
// 0.8 ms; with 1 ms at most 0.85 ms, 30 rounds all under a 0.72 ms skew
// (bench/RESULTS.md, 2026-12-05). Real-time pollers yield to each other,
// so a longer window no longer queues other hosts' starts behind it. The
// cost: at most about kStartSpinWindowNs of CPU per waiting thread, once
// per workload.
//
// The submitter calls this at real-time priority (realtime_priority.h):
// at the normal policy a thread that wakes while another one runs on its
// CPU waits for that one's slice, milliseconds, however precise the wait.
//
//   std::atomic<bool> stop{false};
//   if (WaitForInstant(at_ns, stop)) { /* now >= at_ns */ }
#ifndef BLKPERF_DAEMON_ENGINE_RING_START_INSTANT_H_
#define BLKPERF_DAEMON_ENGINE_RING_START_INSTANT_H_

#include <sched.h>

#include <atomic>
#include <cstdint>

#include "base/clock.h"

namespace blkperf {

// How long before the instant the wait stops sleeping and polls the clock.
inline constexpr int64_t kStartSpinWindowNs = 1'000'000;

// What the poll does between two reads of the clock.
enum class StartPoll {
  // A spin-loop hint only: for a thread at the normal policy, where
  // sched_yield() would push its deadline back and starve it (above).
  kSpin,
  // sched_yield(): for a thread at a real-time policy. It hands the CPU to
  // the other real-time threads of its priority that wait there (other
  // starts on the same CPU, whose instants may come first: with spinning
  // pollers, 8 test hosts' submitters on one CPU queued behind each other
  // up to 0.6 ms), and returns at once when there are none.
  kYieldToPeers,
};

// Returns true once CLOCK_MONOTONIC >= `at_ns` (at once if it already is),
// false as soon as `stop` is seen set (checked at least every 100 ms while
// sleeping and on every poll). Never returns true early.
bool WaitForInstant(int64_t at_ns, const std::atomic<bool>& stop,
                    int64_t spin_window_ns = kStartSpinWindowNs,
                    StartPoll poll = StartPoll::kSpin);

// The polling half alone, for a caller that has slept until shortly before
// `at_ns` its own way: polls CLOCK_MONOTONIC until `at_ns` (true) unless
// `stopped()` is true first (false). `stopped` is called on every poll.
template <typename Stopped>
bool PollUntilInstant(int64_t at_ns, Stopped stopped,
                      StartPoll poll = StartPoll::kSpin);

namespace internal {
// A spin-loop hint to the CPU; nothing where the architecture has none.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace internal

template <typename Stopped>
bool PollUntilInstant(int64_t at_ns, Stopped stopped, StartPoll poll) {
  while (MonotonicNowNs() < at_ns) {
    if (stopped()) return false;
    if (poll == StartPoll::kYieldToPeers) {
      sched_yield();
    } else {
      internal::CpuRelax();
    }
  }
  return true;
}

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_RING_START_INSTANT_H_
