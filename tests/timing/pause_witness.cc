#include "tests/timing/pause_witness.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "base/clock.h"

namespace blkperf::testing {
namespace {

int64_t Overlap(const MachinePause& p, int64_t from_ns, int64_t to_ns) {
  return std::max<int64_t>(0, std::min(p.woke_monotonic_ns, to_ns) -
                                  std::max(p.due_monotonic_ns, from_ns));
}

}  // namespace

PauseWitness::PauseWitness(absl::Duration threshold)
    : threshold_ns_(absl::ToInt64Nanoseconds(threshold)) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = absl::InternalError(
        absl::StrCat("sched_getaffinity: ", std::strerror(errno)));
    return;
  }
  std::latch started(CPU_COUNT(&allowed));
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) {
      threads_.emplace_back([this, cpu, &started] { Watch(cpu, &started); });
    }
  }
  started.wait();
}

PauseWitness::~PauseWitness() {
  stop_.store(true);
  for (std::thread& t : threads_) t.join();
}

void PauseWitness::Watch(int cpu, std::latch* started) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  const sched_param fifo{.sched_priority = kPriority};
  int err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
  if (err == 0) err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
  if (err != 0) {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) {
      status_ = absl::FailedPreconditionError(
          absl::StrCat("pause witness on cpu ", cpu, ": SCHED_FIFO ", kPriority,
                       " pinned: ", std::strerror(err)));
    }
    started->count_down();
    return;
  }
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  sched_yield();  // on its CPU now
  int64_t due = MonotonicNowNs();
  started->count_down();
  while (!stop_.load(std::memory_order_relaxed)) {
    due += absl::ToInt64Nanoseconds(kStep);
    const timespec until = {.tv_sec = due / 1'000'000'000,
                            .tv_nsec = due % 1'000'000'000};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
    const int64_t woke = MonotonicNowNs();
    const int64_t woke_realtime = RealtimeNowNs();
    if (woke - due <= threshold_ns_) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      pauses_.push_back({.cpu = cpu,
                         .due_monotonic_ns = due,
                         .woke_monotonic_ns = woke,
                         .due_realtime_ns = woke_realtime - (woke - due),
                         .woke_realtime_ns = woke_realtime});
    }
    due = woke;  // the next step counts from here, not the missed ones
  }
}

int64_t PauseWitness::MonotonicNowNs() { return ::blkperf::MonotonicNowNs(); }

absl::Status PauseWitness::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

std::vector<MachinePause> PauseWitness::Pauses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pauses_;
}

absl::Duration PauseWitness::PausedWithin(int64_t from_ns,
                                          int64_t to_ns) const {
  std::map<int, int64_t> per_cpu;
  for (const MachinePause& p : Pauses()) {
    per_cpu[p.cpu] += Overlap(p, from_ns, to_ns);
  }
  int64_t most = 0;
  for (const auto& [cpu, ns] : per_cpu) most = std::max(most, ns);
  return absl::Nanoseconds(most);
}

absl::Duration PauseWitness::LongestPauseWithin(int64_t from_ns,
                                                int64_t to_ns) const {
  absl::Duration longest;
  for (const MachinePause& p : Pauses()) {
    if (Overlap(p, from_ns, to_ns) > 0) longest = std::max(longest, p.length());
  }
  return longest;
}

std::string PauseWitness::DescribeWithin(int64_t from_ns, int64_t to_ns) const {
  std::string out;
  for (const MachinePause& p : Pauses()) {
    if (Overlap(p, from_ns, to_ns) == 0) continue;
    absl::StrAppend(
        &out, "cpu ", p.cpu, ": ", absl::FormatDuration(p.length()), " at +",
        absl::FormatDuration(absl::Nanoseconds(p.due_monotonic_ns - from_ns)),
        "\n");
  }
  return out.empty() ? "no pause witnessed\n" : out;
}

}  // namespace blkperf::testing
