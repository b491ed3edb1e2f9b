// Ctrl-C and SIGTERM for a foreground run, with no thread of its own: the
// handler calls the stop callback directly, on whichever thread the signal
// lands, so the callback must be async-signal-safe (lock-free atomics only,
// as Workload::RequestStopFromSignal).
//
//   StopSignalHandler on_signal(
//       [](void* w) { static_cast<Workload*>(w)->RequestStopFromSignal(); },
//       workload);
//   ... run; every SIGINT/SIGTERM now calls the callback ...
//   // destructor: restores the previous handlers, waits out a handler
//   // still running, and the callback is never called again
//
// One handler object may exist at a time (the handlers share one slot).
#ifndef BLKPERF_DAEMON_RUN_STOP_SIGNAL_H_
#define BLKPERF_DAEMON_RUN_STOP_SIGNAL_H_

#include <signal.h>

namespace blkperf {

class StopSignalHandler {
 public:
  using Callback = void (*)(void* arg);

  // Installs handlers for SIGINT and SIGTERM that call `on_stop(arg)` once
  // per signal received. `on_stop` must be async-signal-safe.
  StopSignalHandler(Callback on_stop, void* arg);
  ~StopSignalHandler();
  StopSignalHandler(const StopSignalHandler&) = delete;
  StopSignalHandler& operator=(const StopSignalHandler&) = delete;

  // Signals handled so far by this object (read by tests).
  int signals_seen() const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_RUN_STOP_SIGNAL_H_
