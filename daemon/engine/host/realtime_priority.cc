#include "daemon/engine/host/realtime_priority.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace blkperf {

absl::Status RealtimePriority::Raise() {
  tid_ = static_cast<pid_t>(syscall(SYS_gettid));
  previous_policy_ = sched_getscheduler(tid_);
  if (previous_policy_ < 0 || sched_getparam(tid_, &previous_param_) != 0) {
    return absl::InternalError(
        absl::StrCat("sched_getscheduler: ", strerror(errno)));
  }
  const int policy = previous_policy_ & ~SCHED_RESET_ON_FORK;
  if (policy == SCHED_FIFO || policy == SCHED_RR) {
    raised_ = true;  // already real time: keep the operator's choice
    return absl::OkStatus();
  }
  const sched_param param{.sched_priority = kRealtimeWaitPriority};
  if (sched_setscheduler(tid_, SCHED_FIFO, &param) != 0) {
    const int error = errno;
    return absl::PermissionDeniedError(absl::StrCat(
        "sched_setscheduler(SCHED_FIFO, ", kRealtimeWaitPriority,
        "): ", strerror(error),
        error == EPERM ? " (needs CAP_SYS_NICE or RLIMIT_RTPRIO >= 1)" : ""));
  }
  raised_ = true;
  must_restore_ = true;
  return absl::OkStatus();
}

void RealtimePriority::Restore() {
  if (must_restore_) {
    // Lowering a thread's own priority is always allowed.
    sched_setscheduler(tid_, previous_policy_, &previous_param_);
    must_restore_ = false;
  }
  raised_ = false;
}

absl::Status NiceBoost::Raise() {
  tid_ = static_cast<pid_t>(syscall(SYS_gettid));
  errno = 0;
  previous_nice_ = getpriority(PRIO_PROCESS, static_cast<id_t>(tid_));
  if (errno != 0) {
    return absl::InternalError(absl::StrCat("getpriority: ", strerror(errno)));
  }
  if (previous_nice_ <= kBoostedNice) return absl::OkStatus();
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(tid_), kBoostedNice) != 0) {
    const int error = errno;
    return absl::PermissionDeniedError(absl::StrCat(
        "setpriority(", kBoostedNice, "): ", strerror(error),
        error == EACCES || error == EPERM
            ? " (needs CAP_SYS_NICE or RLIMIT_NICE >= 40)"
            : ""));
  }
  must_restore_ = true;
  return absl::OkStatus();
}

void NiceBoost::Restore() {
  if (!must_restore_) return;
  // Raising a nice value (lowering the priority) is always allowed.
  setpriority(PRIO_PROCESS, static_cast<id_t>(tid_), previous_nice_);
  must_restore_ = false;
}

}  // namespace blkperf
