#include "daemon/engine/ring/wait_tick.h"

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace blkperf::internal {

absl::StatusOr<bool> ArmWaitTick(io_uring* ring, int64_t interval_ns) {
  if (interval_ns <= 0) {
    return absl::InvalidArgumentError("wait tick: interval must be > 0 ns");
  }
  io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == nullptr) return absl::InternalError("wait tick: no free SQE");
  // The kernel copies the interval when it prepares the SQE, within the
  // submit below.
  __kernel_timespec interval{.tv_sec = interval_ns / 1'000'000'000,
                             .tv_nsec = interval_ns % 1'000'000'000};
  // Count 0: the tick repeats until the ring goes.
  io_uring_prep_timeout(sqe, &interval, 0, kTimeoutMultishot);
  sqe->user_data = kWaitTickUserData;
  const int submitted = io_uring_submit(ring);
  // The kernel read the SQE in that submit: zero it again for rings whose
  // preps write only some fields (a NOP's, io_prep.h).
  memset(sqe, 0, sizeof(*sqe));
  if (submitted != 1) {
    return absl::InternalError(absl::StrCat(
        "wait tick: io_uring_submit returned ", submitted,
        submitted < 0 ? absl::StrCat(" (", strerror(-submitted), ")") : ""));
  }
  // A refused timeout completes at once, inside that submit; an armed one
  // posts nothing until the first tick.
  io_uring_cqe* cqe = nullptr;
  if (io_uring_peek_cqe(ring, &cqe) != 0 || cqe == nullptr) return true;
  const int res = cqe->res;
  const bool more = (cqe->flags & IORING_CQE_F_MORE) != 0;
  io_uring_cqe_seen(ring, cqe);
  if (res == -ETIME && more) return true;  // the first tick, already
  if (res == -EINVAL) return false;
  return absl::InternalError(absl::StrCat(
      "wait tick: the multishot timeout completed at once with ",
      res < 0 ? strerror(-res) : absl::StrCat("result ", res)));
}

}  // namespace blkperf::internal
