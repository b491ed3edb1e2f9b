// A thread's scheduling raised to real time for a short, latency-critical
// stretch (the wait for a fleet's start instant and the first submission
// after it), then put back.
//
// Why: a thread of the normal policy that wakes while another one runs on
// its CPU waits for that one's slice (EEVDF's base slice, 0.75-3 ms), so a
// start instant lands milliseconds late whenever anything else is busy on
// the submitter's CPU: on the development VM, with a nice-19 busy loop on
// each CPU, 8 namespaced daemons' first submissions came 1.9-3.2 ms after
// their instants; at SCHED_FIFO priority 1 (the lowest real-time
// priority) 0.1-12 us (bench/RESULTS.md, fleet start skew).
//
// Raising needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 1 (the
// systemd unit sets LimitRTPRIO=1). Refused, the thread keeps its policy
// and Raise() says why, for the caller to report: a start that may be late
// under load is never a silent fallback.
//
//   RealtimePriority priority;
//   absl::Status raised = priority.Raise();   // on the thread itself
//   ...                                        // the critical stretch
//   priority.Restore();                        // from any thread
#ifndef BLKPERF_DAEMON_ENGINE_HOST_REALTIME_PRIORITY_H_
#define BLKPERF_DAEMON_ENGINE_HOST_REALTIME_PRIORITY_H_

#include <sched.h>
#include <sys/types.h>

#include "absl/status/status.h"

namespace blkperf {

// The priority Raise() asks for: the lowest of SCHED_FIFO, above every
// thread of the normal policies and below every other real-time thread.
inline constexpr int kRealtimeWaitPriority = 1;

class RealtimePriority {
 public:
  RealtimePriority() = default;
  ~RealtimePriority() { Restore(); }
  RealtimePriority(const RealtimePriority&) = delete;
  RealtimePriority& operator=(const RealtimePriority&) = delete;

  // Puts the calling thread at SCHED_FIFO kRealtimeWaitPriority. A thread
  // already at a real-time policy (started under chrt, say) keeps its own
  // and counts as raised. PermissionDenied (naming sched_setscheduler and
  // the limit to lift) when the kernel refuses; the thread's policy is
  // then unchanged. Call at most once per object.
  absl::Status Raise();

  // Puts the thread back at the policy and priority it had before Raise();
  // nothing when Raise() changed nothing or it was restored already. May
  // be called from any thread of the process.
  void Restore();

  // Whether the thread runs at a real-time policy because of, or
  // despite, Raise() (false before Raise() and after a refusal).
  bool raised() const { return raised_; }

 private:
  pid_t tid_ = 0;
  int previous_policy_ = SCHED_OTHER;
  sched_param previous_param_{};
  bool raised_ = false;
  bool must_restore_ = false;
};

// A thread's nice value lowered to kBoostedNice for a stretch of control
// work that follows a real-time one (an A/B switch's phase boundary after
// its publication), then put back. At nice -20 its CFS weight is 86 times
// a nice-0 thread's, so busy submitters and readers hardly delay it, yet it
// never holds a CPU against real-time threads (other daemons' switches, on
// a machine that runs several), as SCHED_FIFO would.
//
//   NiceBoost boost;
//   boost.Raise().IgnoreError();   // on the thread itself
//   ...                             // the stretch; put back at scope exit
inline constexpr int kBoostedNice = -20;

class NiceBoost {
 public:
  NiceBoost() = default;
  ~NiceBoost() { Restore(); }
  NiceBoost(const NiceBoost&) = delete;
  NiceBoost& operator=(const NiceBoost&) = delete;

  // Sets the calling thread's nice value to kBoostedNice; a thread already
  // at or below it keeps its own. PermissionDenied (naming setpriority and
  // the limit) when refused; the value is then unchanged. At most once.
  absl::Status Raise();
  // Puts the previous nice value back; nothing when Raise() changed none.
  void Restore();

 private:
  pid_t tid_ = 0;
  int previous_nice_ = 0;
  bool must_restore_ = false;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_REALTIME_PRIORITY_H_
