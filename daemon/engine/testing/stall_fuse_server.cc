// A FUSE file system with one file, /data, whose reads can be made to stop
// completing, for a while or for good, or be served one at a time: the
// devices of the engine's stall, open-loop and SLO tests.
//
//   stall_fuse_server MOUNTPOINT SIZE_BYTES [--stall_ms=N] [--service_us=N]
//   kill -USR1 <pid>   # from now on, reads are never answered
//   kill -USR2 <pid>   # (--stall_ms) no read is answered for N ms, then
//                      # every read held meanwhile is
//   kill -TERM <pid>   # unmount and exit; the kernel fails pending reads
//
// Reads return zeros. With --service_us a worker thread answers reads in
// arrival order, one at a time, each after N us: a queue whose latency
// grows with the load (capacity 1e6 / N reads a second). The file is
// opened with direct_io, so every read reaches this server (no page
// cache). Test-only.
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fuse3/fuse_lowlevel.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/clock.h"

namespace {

using ::blkperf::MonotonicNowNs;

constexpr fuse_ino_t kDataIno = 2;
constexpr char kDataName[] = "data";
uint64_t g_size = 0;
volatile sig_atomic_t g_stalled = 0;
// Set by the signal handler, taken by the worker thread: a lock-free atomic
// is both signal-safe and race-free.
std::atomic<int> g_stall_asked{0};
int64_t g_stall_ns = 0;    // --stall_ms
int64_t g_service_ns = 0;  // --service_us

void OnUsr1(int) { g_stalled = 1; }
void OnUsr2(int) { g_stall_asked.store(1); }

void SleepNs(int64_t ns) {
  const int64_t until = MonotonicNowNs() + ns;
  const timespec at = {.tv_sec = until / 1000000000,
                       .tv_nsec = until % 1000000000};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) != 0) {
  }
}

struct PendingRead {
  fuse_req_t req;
  size_t size;
  off_t offset;
};

// Reads waiting for the worker (--stall_ms, --service_us).
std::mutex g_mu;
std::condition_variable g_cv;
std::deque<PendingRead> g_queue;
std::atomic<bool> g_exit{false};

void Answer(fuse_req_t req, size_t size, off_t offset) {
  static std::vector<char> zeros;
  if (static_cast<uint64_t>(offset) >= g_size) {
    fuse_reply_buf(req, nullptr, 0);
    return;
  }
  size = static_cast<size_t>(
      std::min<uint64_t>(size, g_size - static_cast<uint64_t>(offset)));
  if (zeros.size() < size) zeros.resize(size);
  fuse_reply_buf(req, zeros.data(), size);
}

// Answers queued reads in order: none while a stall lasts, each after the
// service time.
void Worker() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  int64_t stall_until = 0;
  while (!g_exit.load()) {
    if (g_stall_asked.exchange(0) != 0) {
      stall_until = MonotonicNowNs() + g_stall_ns;
    }
    if (MonotonicNowNs() < stall_until) {
      SleepNs(std::min<int64_t>(1'000'000, stall_until - MonotonicNowNs()));
      continue;
    }
    PendingRead next;
    {
      std::unique_lock<std::mutex> lock(g_mu);
      if (g_queue.empty()) {
        g_cv.wait_for(lock, std::chrono::milliseconds(1));
        continue;
      }
      next = g_queue.front();
      g_queue.pop_front();
    }
    if (g_service_ns > 0) SleepNs(g_service_ns);
    Answer(next.req, next.size, next.offset);
  }
}

void Attributes(fuse_ino_t ino, struct stat* st) {
  memset(st, 0, sizeof(*st));
  st->st_ino = ino;
  if (ino == FUSE_ROOT_ID) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
  } else {
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = static_cast<off_t>(g_size);
    st->st_blksize = 4096;
  }
}

void Lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (parent != FUSE_ROOT_ID || strcmp(name, kDataName) != 0) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  fuse_entry_param e;
  memset(&e, 0, sizeof(e));
  e.ino = kDataIno;
  Attributes(kDataIno, &e.attr);
  fuse_reply_entry(req, &e);
}

void GetAttr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  if (ino != FUSE_ROOT_ID && ino != kDataIno) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct stat st;
  Attributes(ino, &st);
  fuse_reply_attr(req, &st, 0);
}

void Open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (ino != kDataIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  fi->direct_io = 1;
  fuse_reply_open(req, fi);
}

void Read(fuse_req_t req, fuse_ino_t, size_t size, off_t offset,
          fuse_file_info*) {
  if (g_stalled) return;  // never answered: the I/O stays outstanding
  if (g_stall_ns == 0 && g_service_ns == 0) {
    Answer(req, size, offset);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_queue.push_back({req, size, offset});
  }
  g_cv.notify_one();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: %s MOUNTPOINT SIZE_BYTES [--stall_ms=N] [--service_us=N]\n",
            argv[0]);
    return 2;
  }
  g_size = strtoull(argv[2], nullptr, 10);
  for (int i = 3; i < argc; ++i) {
    if (strncmp(argv[i], "--stall_ms=", 11) == 0) {
      g_stall_ns = strtoll(argv[i] + 11, nullptr, 10) * 1'000'000;
    } else if (strncmp(argv[i], "--service_us=", 13) == 0) {
      g_service_ns = strtoll(argv[i] + 13, nullptr, 10) * 1'000;
    } else {
      fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  signal(SIGUSR1, OnUsr1);
  signal(SIGUSR2, OnUsr2);
  std::thread worker;
  if (g_stall_ns > 0 || g_service_ns > 0) worker = std::thread(Worker);
  fuse_lowlevel_ops ops;
  memset(&ops, 0, sizeof(ops));
  ops.lookup = Lookup;
  ops.getattr = GetAttr;
  ops.open = Open;
  ops.read = Read;
  char* fuse_argv[] = {argv[0], nullptr};
  fuse_args args = FUSE_ARGS_INIT(1, fuse_argv);
  fuse_session* se = fuse_session_new(&args, &ops, sizeof(ops), nullptr);
  // fuse_session_new may grow `args`; free them on every way out.
  int ret = 1;
  if (se != nullptr) {
    if (fuse_set_signal_handlers(se) == 0) {
      if (fuse_session_mount(se, argv[1]) == 0) {
        ret = fuse_session_loop(se);
        fuse_session_unmount(se);
      }
      fuse_remove_signal_handlers(se);
    }
    g_exit.store(true);
    if (worker.joinable()) worker.join();
    fuse_session_destroy(se);
  } else {
    g_exit.store(true);
    if (worker.joinable()) worker.join();
  }
  fuse_opt_free_args(&args);
  return ret == 0 ? 0 : 1;
}
