// SubmitterThread's counts as other threads read them: snapshots, CPU
// times, phase boundaries of split-strategy switches, verify figures.

#include "daemon/engine/ring/submitter.h"

#include <errno.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "daemon/engine/host/host_capabilities.h"
#include "daemon/engine/host/process_threads.h"
#include "daemon/engine/ring/completion_tag.h"
#include "daemon/engine/ring/start_instant.h"
#include "daemon/engine/ring/wait_tick.h"

namespace blkperf::internal {

void SubmitterThread::AddVerify(VerifySummary* out) const {
  if (verifier_ != nullptr) verifier_->AddTo(out, exited());
}

// Out of line: the loop calls it once a switch, and its copy of the
// counters stays out of the loop's code.
ABSL_ATTRIBUTE_NOINLINE void SubmitterThread::TakeUpSplitStrategy(
    uint32_t generation) {
  FollowSplitGeneration(generation);
  CountsTo(&phase_mark_);
  taken_generation_.store(generation, std::memory_order_release);
}

void SubmitterThread::FollowSplitGeneration(uint32_t generation) {
  if (generation != split_generation_) {
    split_generation_ = generation;
    ApplyStrategy(control_->split_strategies[generation]).IgnoreError();
  }
}

bool SubmitterThread::PhaseBoundary(uint32_t generation,
                                    ThreadSnapshot* out) const {
  // Ended first, then taken: a loop that ended had taken up all it will.
  const bool ended = loop_ended_.load(std::memory_order_acquire);
  const uint32_t taken = taken_generation_.load();  // see Run()'s first mark
  if (taken == generation) {
    *out = phase_mark_;
  } else if (taken == kLoopNotBegun) {
    *out = ThreadSnapshot{};
  } else if (ended) {
    CountsTo(out);
  } else {
    return false;
  }
  out->thread_index = index_;
  out->cpu = cpu_;
  out->batch_turns = batch_turns_;
  CpuTimesTo(out);
  return true;
}

void SubmitterThread::Snapshot(ThreadSnapshot* out) const {
  out->thread_index = index_;
  out->cpu = cpu_;
  CountsTo(out);
  out->batch_turns = batch_turns_;
  CpuTimesTo(out);
}

void SubmitterThread::MarkCpuBaseline() {
  cpu_times_.MarkBaseline(
      cpu_times_.SinceStart(tid_, exited(), control_->io_worker_cpu));
}

void SubmitterThread::CpuTimesTo(ThreadSnapshot* out) const {
  CpuSeconds window;  // zero before the window starts: no procfs read
  if (cpu_times_.baseline_taken()) {
    window = cpu_times_.InWindow(
        cpu_times_.SinceStart(tid_, exited(), control_->io_worker_cpu));
  }
  out->user_cpu_seconds = window.user;
  out->system_cpu_seconds = window.system;
  out->io_worker_cpu_seconds = window.io_workers;
}

void SubmitterThread::CountsTo(ThreadSnapshot* out) const {
  out->ios = stats_.ios.Get();
  out->bytes = stats_.bytes.Get();
  out->read_ios = stats_.read_ios.Get();
  out->read_bytes = stats_.read_bytes.Get();
  out->write_ios = stats_.write_ios.Get();
  out->write_bytes = stats_.write_bytes.Get();
  out->sqes = stats_.sqes.Get();
  out->enter_calls = stats_.enter_calls.Get();
  out->inflight = stats_.inflight.Get();
  if (per_cpu_cache_ != nullptr) {
    out->cache_hits = per_cpu_cache_->hits();
    out->cache_misses = per_cpu_cache_->misses();
  } else if (shared_cache_ != nullptr) {
    out->cache_hits = shared_cache_->hits();
    out->cache_misses = shared_cache_->misses();
  }
  out->errors.clear();
  for (int slot = 0; slot < kErrorSlots; ++slot) {
    const uint64_t count = stats_.errors[slot].Get();
    if (count != 0) {
      out->errors.push_back({SlotErrno(slot), SlotName(slot), count});
    }
  }
  stats_.latency.SnapshotTo(&out->latency);
  stats_.submit_latency.SnapshotTo(&out->submit_latency);
  stats_.completion_latency.SnapshotTo(&out->completion_latency);
  stats_.intended_latency.SnapshotTo(&out->intended_latency);
  stats_.issue_lag.SnapshotTo(&out->issue_lag);
  out->late_ios = stats_.late_ios.Get();
  out->trim_ios = stats_.trim_ios.Get();
  out->trim_bytes = stats_.trim_bytes.Get();
  out->sync_ios = stats_.sync_ios.Get();
}

}  // namespace blkperf::internal
