#include "daemon/run/stop_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace blkperf {
namespace {

constexpr char kStop = 's';
constexpr char kQuit = 'q';

// The write end of the current watcher's pipe; -1 when none.
std::atomic<int> g_stop_fd{-1};

void OnStopSignal(int) {
  // Only async-signal-safe calls: an atomic load, write(2), errno restore.
  const int saved = errno;
  const int fd = g_stop_fd.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const ssize_t ignored = write(fd, &kStop, 1);
    (void)ignored;  // a full pipe already holds a pending stop
  }
  errno = saved;
}

}  // namespace

StopSignalWatcher::StopSignalWatcher(std::function<void()> on_stop)
    : on_stop_(std::move(on_stop)) {
  if (pipe2(pipe_, O_CLOEXEC) != 0) {
    std::perror("blkperfd run: pipe2 for the signal watcher");
    std::abort();  // cannot happen short of fd exhaustion at startup
  }
  // The handler must never block on a full pipe.
  fcntl(pipe_[1], F_SETFL, O_NONBLOCK);
  g_stop_fd.store(pipe_[1]);
  thread_ = std::thread([this] { Watch(); });
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopSignalWatcher::~StopSignalWatcher() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_stop_fd.store(-1);
  // Blocking write: the quit byte must reach the watcher.
  fcntl(pipe_[1], F_SETFL, 0);
  const ssize_t ignored = write(pipe_[1], &kQuit, 1);
  (void)ignored;
  thread_.join();
  close(pipe_[0]);
  close(pipe_[1]);
}

void StopSignalWatcher::Watch() {
  for (;;) {
    char byte = 0;
    const ssize_t n = read(pipe_[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kQuit) return;
    seen_.fetch_add(1);
    on_stop_();
  }
}

}  // namespace blkperf
