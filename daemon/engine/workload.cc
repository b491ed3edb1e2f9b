#include "daemon/engine/workload.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/common/status_macros.h"
#include "daemon/engine/submitter.h"
#include "daemon/engine/target.h"

namespace blkperf {

using internal::MonotonicNanos;
using internal::SubmitterThread;

Workload::Workload(ResolvedSpec spec)
    : spec_(std::move(spec)),
      shared_requests_(std::make_unique<SharedRequestPool<internal::Request>>(
          size_t{spec_.spec.threads} * spec_.spec.queue_depth)) {
  control_.shared_requests = shared_requests_.get();
}

absl::StatusOr<std::unique_ptr<Workload>> Workload::Start(
    const WorkloadSpec& spec, const EngineLimits& limits) {
  // Field checks first, so a bad spec creates no file.
  BLKPERF_RETURN_IF_ERROR(ValidateSpecFields(spec, limits));
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    const TargetSpec& target = spec.targets[i];
    if (target.create_size == 0) continue;
    const absl::Status created =
        CreateAndPrefillFile(target.path, target.create_size, spec.seed);
    if (!created.ok()) {
      return absl::Status(created.code(),
                          absl::StrCat("targets[", i, "].create_size: ",
                                       created.message()));
    }
  }
  BLKPERF_ASSIGN_OR_RETURN(ResolvedSpec resolved, ResolveSpec(spec, limits));
  std::unique_ptr<Workload> workload(new Workload(std::move(resolved)));
  BLKPERF_RETURN_IF_ERROR(workload->OpenTargets());
  BLKPERF_RETURN_IF_ERROR(workload->Launch());
  return workload;
}

Workload::~Workload() {
  RequestStop();
  Wait();
  for (int fd : fds_) close(fd);
}

absl::Status Workload::OpenTargets() {
  for (size_t i = 0; i < spec_.targets.size(); ++i) {
    const TargetInfo& info = spec_.targets[i];
    int flags = (spec_.writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;
    if (spec_.spec.direct) flags |= O_DIRECT;
    // A write workload claims block devices exclusively for its whole run;
    // the kernel refuses the claim while the device is mounted or held.
    if (spec_.writes && info.kind == TargetKind::kBlockDevice) flags |= O_EXCL;
    const int fd = open(info.path.c_str(), flags);
    if (fd < 0) {
      const int error_number = errno;
      std::string why;
      if (error_number == EBUSY) {
        why = " (in use: mounted, held by another device, or claimed by "
              "another writer)";
      } else if (error_number == EINVAL && spec_.spec.direct) {
        why = " (the file system may not support O_DIRECT; set direct false)";
      }
      return absl::ErrnoToStatus(
          error_number, absl::StrCat("targets[", i, "] ", info.path,
                                     ": open for ",
                                     spec_.writes ? "writing" : "reading",
                                     why));
    }
    fds_.push_back(fd);
  }
  return absl::OkStatus();
}

absl::Status Workload::Launch() {
  const uint32_t threads = spec_.spec.threads;
  for (uint32_t i = 0; i < threads; ++i) {
    submitters_.push_back(std::make_unique<SubmitterThread>(
        spec_, static_cast<int>(i), fds_, &control_));
  }
  running_threads_.store(static_cast<int>(threads));
  for (uint32_t i = 0; i < threads; ++i) {
    SubmitterThread* submitter = submitters_[i].get();
    threads_.emplace_back([this, submitter] {
      submitter->ThreadMain();
      if (running_threads_.fetch_sub(1) == 1) finished_.Notify();
    });
  }
  absl::Status failure;
  for (auto& submitter : submitters_) {
    submitter->ready().WaitForNotification();
    if (failure.ok() && !submitter->setup_status().ok()) {
      failure = submitter->setup_status();
    }
  }
  for (auto& submitter : submitters_) {
    for (const std::string& note : submitter->notes()) {
      if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) {
        notes_.push_back(note);
      }
    }
  }
  if (!failure.ok()) {
    control_.abort.store(true);
    control_.go.Notify();
    Wait();
    return failure;
  }
  start_time_ = absl::Now();
  const int64_t now = MonotonicNanos();
  control_.measure_start_ns = now + absl::ToInt64Nanoseconds(spec_.spec.ramp_time);
  control_.end_ns =
      spec_.spec.runtime > absl::ZeroDuration()
          ? control_.measure_start_ns + absl::ToInt64Nanoseconds(spec_.spec.runtime)
          : 0;
  control_.go.Notify();
  return absl::OkStatus();
}

void Workload::RequestStop() {
  if (!finished_.HasBeenNotified()) {
    absl::MutexLock lock(&mu_);
    stopped_by_user_ = true;
  }
  control_.stop.store(true);
}

void Workload::Wait() {
  if (threads_.empty()) return;  // never launched
  finished_.WaitForNotification();
  absl::MutexLock lock(&mu_);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

bool Workload::WaitFor(absl::Duration timeout) {
  return finished_.WaitForNotificationWithTimeout(timeout);
}

bool Workload::Finished() const { return finished_.HasBeenNotified(); }

WorkloadSnapshot Workload::Snapshot() const {
  WorkloadSnapshot snapshot;
  snapshot.taken = absl::Now();
  const bool finished = finished_.HasBeenNotified();
  const int64_t now = MonotonicNanos();
  int64_t last_reap = 0;
  for (const auto& submitter : submitters_) {
    ThreadSnapshot thread;
    submitter->Snapshot(&thread);
    snapshot.total.Merge(thread);
    snapshot.threads.push_back(std::move(thread));
    last_reap = std::max(last_reap, submitter->last_reap_ns());
  }
  if (!submitters_.empty()) snapshot.ring = submitters_[0]->ring_setup();
  snapshot.notes = notes_;
  const int64_t end = finished ? last_reap : now;
  snapshot.elapsed =
      absl::Nanoseconds(std::max<int64_t>(0, end - control_.measure_start_ns));
  if (control_.first_error_published.load(std::memory_order_acquire)) {
    snapshot.has_error = true;
    snapshot.error = control_.first_error;
  }
  bool stopped_by_user;
  {
    absl::MutexLock lock(&mu_);
    stopped_by_user = stopped_by_user_;
  }
  if (finished) {
    if (snapshot.has_error && !spec_.spec.continue_on_error) {
      snapshot.state = WorkloadState::kFailed;
    } else if (stopped_by_user) {
      snapshot.state = WorkloadState::kStopped;
    } else {
      snapshot.state = WorkloadState::kFinished;
    }
  } else if (control_.stop.load() ||
             (control_.end_ns != 0 && now >= control_.end_ns)) {
    snapshot.state = WorkloadState::kStopping;
  } else if (now < control_.measure_start_ns) {
    snapshot.state = WorkloadState::kRamping;
  } else {
    snapshot.state = WorkloadState::kRunning;
  }
  return snapshot;
}

}  // namespace blkperf
