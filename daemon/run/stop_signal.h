// Ctrl-C and SIGTERM for a foreground run, handled async-signal-safely: the
// handler only write()s one byte to a pipe (async-signal-safe per POSIX); a
// watcher thread reads it and calls the stop callback, which may lock.
//
//   StopSignalWatcher watcher([&] { workload->RequestStop(); });
//   ... run; every SIGINT/SIGTERM now calls RequestStop on the watcher ...
//   // destructor: restores the previous handlers and joins the watcher
//
// One watcher may exist at a time (the handler has one pipe to write to).
#ifndef BLKPERF_DAEMON_RUN_STOP_SIGNAL_H_
#define BLKPERF_DAEMON_RUN_STOP_SIGNAL_H_

#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

namespace blkperf {

class StopSignalWatcher {
 public:
  // Installs handlers for SIGINT and SIGTERM. `on_stop` runs on the watcher
  // thread, once per signal received.
  explicit StopSignalWatcher(std::function<void()> on_stop);
  ~StopSignalWatcher();
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;

  // Signals seen so far (read by tests).
  int signals_seen() const { return seen_.load(); }

 private:
  void Watch();

  std::function<void()> on_stop_;
  int pipe_[2] = {-1, -1};
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  std::atomic<int> seen_{0};
  std::thread thread_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_RUN_STOP_SIGNAL_H_
