// SubmitterThread's fault handling, out of the loop's code: failed I/Os
// and enters, their error sites, verify mismatches, and the names of
// error slots.

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

std::string ErrnoName(int error_number) {
  // glibc >= 2.32: "EIO" for EIO; nullptr for unknown values.
  const char* name = strerrorname_np(error_number);
  return name != nullptr ? name : absl::StrCat("errno ", error_number);
}

std::string SlotName(int slot) {
  if (slot == kShortTransferSlot) return "short transfer";
  if (slot == kVerifyMismatchSlot) return "verify mismatch";
  return ErrnoName(slot);
}

int SlotErrno(int slot) {
  if (slot == kShortTransferSlot) return kShortTransferErrno;
  if (slot == kVerifyMismatchSlot) return kVerifyMismatchErrno;
  return slot;
}

FirstError EnterFailure(int thread, int error_number, uint32_t sqes,
                        unsigned wait_nr) {
  FirstError error;
  error.errno_value = error_number;
  error.message = absl::StrCat(
      "io_uring_enter failed on submitter thread ", thread, ": ",
      ErrnoName(error_number), " (", strerror(error_number), ") with ", sqes,
      " SQEs queued, waiting for ", wait_nr,
      " completions; no target or offset is involved");
  return error;
}

void SubmitterThread::OnEnterError(int ret, uint32_t sqes, unsigned wait_nr) {
  const int error_number = -ret;
  stats_.errors[error_number < kMaxErrno ? error_number : EIO].Add(1);
  stats_.error_total.Add(1);
  if (!control_->fatal_claimed.exchange(true)) {
    control_->fatal_error = EnterFailure(index_, error_number, sqes, wait_nr);
    control_->fatal_published.store(true, std::memory_order_release);
  }
  control_->stop.store(true);
}

void SubmitterThread::ClaimErrorSite(int errno_value, uint16_t target,
                                     uint64_t offset) {
  // A load first: once the slots are full, errors cost no read-modify-write.
  if (control_->error_sites_claimed.load(std::memory_order_relaxed) >=
      kMaxErrorSites) {
    return;
  }
  const uint32_t i = control_->error_sites_claimed.fetch_add(1);
  if (i >= kMaxErrorSites) return;
  ErrorSiteSlot& slot = control_->error_sites[i];
  slot.errno_value = errno_value;
  slot.target = target;
  slot.offset = offset;
  slot.ready.store(true, std::memory_order_release);
}

void SubmitterThread::OnIoError(Request* req, bool measuring) {
  int slot;
  int error_number;
  if (req->result < 0) {
    error_number = -req->result;
    slot = error_number < kMaxErrno ? error_number : EIO;
  } else {
    slot = kShortTransferSlot;
    error_number = kShortTransferErrno;
  }
  if (measuring) ++finished_ios_;
  stats_.errors[slot].Add(1);
  stats_.error_total.Add(1);
  ClaimErrorSite(error_number, req->target, req->offset);
  const std::string& path = spec_.spec.targets[req->target].path;
  if (!control_->first_error_claimed.exchange(true)) {
    FirstError& first = control_->first_error;
    first.errno_value = error_number;
    first.target = path;
    first.offset = req->offset;
    if (slot == kShortTransferSlot) {
      first.message = absl::StrCat("short transfer: ", req->done_bytes, " of ",
                                   req->length, " bytes at ", path,
                                   " offset ", req->offset);
    } else {
      first.message = absl::StrCat(SlotName(slot), " (", strerror(error_number),
                                   ") at ", path, " offset ", req->offset,
                                   req->is_write ? " (write)" : " (read)");
    }
    control_->first_error_published.store(true, std::memory_order_release);
  }
  if (!continue_on_error_) control_->stop.store(true);
}

bool SubmitterThread::VerifyCompletion(Request* req, bool failed) {
  const char* data = buffers_ + size_t{req->buffer} * slot_bytes_;
  if (verifier_->End(req->target, req->offset, req->is_write,
                     req->verify_value, failed, data)) {
    return true;
  }
  stats_.errors[kVerifyMismatchSlot].Add(1);
  stats_.error_total.Add(1);
  ClaimErrorSite(kVerifyMismatchErrno, req->target,
                 verifier_->last_bad_byte_offset());
  if (!control_->first_error_claimed.exchange(true)) {
    FirstError& first = control_->first_error;
    first.errno_value = kVerifyMismatchErrno;
    first.target = spec_.spec.targets[req->target].path;
    first.offset = req->offset;
    first.message = verifier_->last_message();
    control_->first_error_published.store(true, std::memory_order_release);
  }
  if (!continue_on_error_) control_->stop.store(true);
  return false;
}

}  // namespace blkperf::internal
