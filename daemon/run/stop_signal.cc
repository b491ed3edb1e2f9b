#include "daemon/run/stop_signal.h"

#include <errno.h>
#include <sched.h>

#include <atomic>

namespace blkperf {
namespace {

// The current handler object's callback and its argument; null when none.
std::atomic<StopSignalHandler::Callback> g_on_stop{nullptr};
std::atomic<void*> g_arg{nullptr};
// Handlers between their load of g_on_stop and their return: the
// destructor waits for none to be left before the callback's object goes.
std::atomic<int> g_in_flight{0};
std::atomic<int> g_seen{0};

static_assert(std::atomic<StopSignalHandler::Callback>::is_always_lock_free &&
              std::atomic<void*>::is_always_lock_free &&
              std::atomic<int>::is_always_lock_free);

void OnStopSignal(int) {
  // Only lock-free atomics and the callback (async-signal-safe by contract).
  const int saved = errno;
  g_in_flight.fetch_add(1);
  const StopSignalHandler::Callback on_stop = g_on_stop.load();
  if (on_stop != nullptr) {
    g_seen.fetch_add(1);
    on_stop(g_arg.load());
  }
  g_in_flight.fetch_sub(1);
  errno = saved;
}

}  // namespace

StopSignalHandler::StopSignalHandler(Callback on_stop, void* arg) {
  g_seen.store(0);
  g_arg.store(arg);
  g_on_stop.store(on_stop);
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopSignalHandler::~StopSignalHandler() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_on_stop.store(nullptr);
  // A handler that loaded the callback before the store above may still be
  // running on another thread: it finishes in a few instructions.
  while (g_in_flight.load() != 0) sched_yield();
  g_arg.store(nullptr);
}

int StopSignalHandler::signals_seen() const { return g_seen.load(); }

}  // namespace blkperf
