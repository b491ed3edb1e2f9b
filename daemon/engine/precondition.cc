// Workload-independent preconditioning (WorkloadSpec::precondition, SNIA
// PTS): before a workload's measured run, full sequential passes of 128 KiB
// writes over every target, one target after the other. Each pass over a
// target is a write workload of its own on the engine (one thread, queue
// depth kPreconditionQueueDepth, io_count = the target's whole 128 KiB
// blocks), reopened from the workload's own descriptor, so it takes the
// engine's path (rings, fixed buffers, io_timeout) and no new one. The
// workload's submitters wait on the start gate meanwhile (set up, no I/O);
// Start()'s driver releases them once every pass is done.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/units.h"
#include "daemon/engine/target/target.h"
#include "daemon/engine/workload.h"

namespace blkperf {
namespace {

// How often a pass's progress is read, and a stop or the time limit seen.
constexpr absl::Duration kProgressTick = absl::Milliseconds(100);

// Whether target descriptor `fd` can be reopened for direct I/O.
bool AllowsDirect(int fd) {
  const int reopened = ReopenTarget(fd, O_RDONLY | O_DIRECT);
  if (reopened < 0) return reopened != -EINVAL;  // another error: try anyway
  close(reopened);
  return true;
}

}  // namespace

void Workload::PreconditionThenDrive() {
  const bool done = RunPrecondition();
  preconditioning_.store(false);
  if (done && Release(ReadDevices())) {
    Drive();
    return;
  }
  // Stopped, failed or past the limit: the submitters leave the gate and
  // exit without I/O, and the workload ends.
  PiMutexLock lock(&mu_);
  StopLocked();
}

bool Workload::RunPrecondition() {
  const uint32_t passes = spec_.spec.precondition.sequential_passes;
  std::vector<bool> direct(spec_.targets.size(), true);
  {
    PiMutexLock lock(&mu_);
    precondition_.passes = passes;
    for (size_t i = 0; i < spec_.targets.size(); ++i) {
      const TargetInfo& info = spec_.targets[i];
      const uint64_t blocks = info.size_bytes / kPreconditionBlockSize;
      precondition_.bytes_planned += passes * blocks * kPreconditionBlockSize;
      if (blocks == 0) {
        precondition_.notes.push_back(absl::StrCat(
            "targets[", i, "] ", info.path, " (", info.size_bytes,
            " bytes) is smaller than one 128 KiB write: not preconditioned"));
      } else if (info.size_bytes % kPreconditionBlockSize != 0) {
        precondition_.notes.push_back(absl::StrCat(
            "targets[", i, "] ", info.path, ": its last ",
            info.size_bytes % kPreconditionBlockSize,
            " bytes (less than one 128 KiB write) are not preconditioned"));
      }
      direct[i] = AllowsDirect(fds_[i]);
      if (!direct[i]) {
        precondition_.notes.push_back(absl::StrCat(
            "targets[", i, "] ", info.path,
            ": written through the page cache (its file system refuses "
            "O_DIRECT)"));
      }
    }
  }
  const int64_t deadline_ns =
      MonotonicNowNs() + absl::ToInt64Nanoseconds(limits_.max_runtime);
  for (uint32_t pass = 0; pass < passes; ++pass) {
    for (size_t i = 0; i < spec_.targets.size(); ++i) {
      const absl::Status status =
          PreconditionPass(i, pass, direct[i], deadline_ns);
      if (status.ok()) continue;
      PiMutexLock lock(&mu_);
      if (absl::IsCancelled(status)) {
        precondition_.notes.push_back(absl::StrCat(
            "stopped during preconditioning pass ", pass + 1, "/", passes));
        return false;
      }
      precondition_failed_ = true;
      precondition_error_.target = spec_.targets[i].path;
      precondition_error_.message = absl::StrCat(
          "precondition pass ", pass + 1, "/", passes, " of targets[", i,
          "] ", spec_.targets[i].path, ": ", status.message());
      return false;
    }
    PiMutexLock lock(&mu_);
    precondition_.passes_done = pass + 1;
  }
  PiMutexLock lock(&mu_);
  precondition_.complete = true;
  return true;
}

absl::Status Workload::PreconditionPass(size_t index, uint32_t pass,
                                        bool direct, int64_t deadline_ns) {
  const TargetInfo& info = spec_.targets[index];
  const uint64_t blocks = info.size_bytes / kPreconditionBlockSize;
  if (blocks == 0) return absl::OkStatus();
  WorkloadSpec run;
  run.targets.push_back(TargetSpec{.path = info.path,
                                   .allow_write = true,
                                   .fd = fds_[index],
                                   .claim_held = spec_.writes});
  run.op = Op::kWrite;
  run.block_size = kPreconditionBlockSize;
  run.queue_depth = static_cast<uint32_t>(std::min<uint64_t>(
      {kPreconditionQueueDepth, limits_.max_queue_depth, blocks}));
  run.threads = 1;
  // Beside this workload's first submitter, which sleeps on the gate.
  const std::vector<int> cpus = SpecCpus(spec_.spec);
  if (!cpus.empty()) run.cpus = {cpus.front()};
  run.runtime = absl::ZeroDuration();
  run.io_count = blocks;
  run.direct = direct;
  run.seed = spec_.spec.seed + pass;  // each pass writes other data
  run.io_timeout = spec_.spec.io_timeout;
  absl::StatusOr<std::unique_ptr<Workload>> started = Start(run, limits_);
  if (!started.ok()) return started.status();
  Workload& w = **started;
  uint64_t before;
  absl::Duration time_before;
  {
    PiMutexLock lock(&mu_);
    before = precondition_.bytes_written;
    time_before = precondition_.time;
  }
  const auto record = [&](const WorkloadSnapshot& s) {
    PiMutexLock lock(&mu_);
    precondition_.bytes_written = before + s.total.write_bytes;
    precondition_.time = time_before + s.elapsed;
  };
  bool stopped = false;
  bool late = false;
  while (!w.WaitFor(kProgressTick)) {
    record(w.Snapshot());
    if (!stopped && cancel_.load()) {
      stopped = true;
      w.RequestStop();
    } else if (!stopped && MonotonicNowNs() > deadline_ns) {
      stopped = late = true;
      w.RequestStop();
    }
  }
  w.Wait();
  const WorkloadSnapshot end = w.Snapshot();
  record(end);
  if (cancel_.load()) return absl::CancelledError("stopped");
  if (late) {
    return absl::DeadlineExceededError(absl::StrCat(
        "preconditioning ran past ",
        limits_.daemon_flags ? "the daemon limit --max_runtime="
                             : "the limit max_runtime ",
        absl::FormatDuration(limits_.max_runtime)));
  }
  if (end.has_error) return absl::InternalError(end.error.message);
  if (end.state != WorkloadState::kFinished ||
      end.total.write_bytes != blocks * kPreconditionBlockSize) {
    return absl::InternalError(absl::StrCat(
        "ended ", WorkloadStateName(end.state), " after ",
        FormatBytes(static_cast<double>(end.total.write_bytes)), " of ",
        FormatBytes(static_cast<double>(blocks * kPreconditionBlockSize))));
  }
  return absl::OkStatus();
}

}  // namespace blkperf
