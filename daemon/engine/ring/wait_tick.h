// The ring's wait tick: one multishot IORING_OP_TIMEOUT, armed once per
// ring, that posts a CQE every interval. The kernel ends an io_uring_enter
// wait whenever a timeout fires, whatever the wait's min_complete, so a
// wait that passes no timeout of its own still returns within one
// interval: the submitter loop sees stop, the end of the run and
// io_timeout in time without an IORING_ENTER_EXT_ARG timeout on every
// enter (which the kernel copies in on each call and, when the wait
// sleeps, arms and cancels as an hrtimer). t/io_uring waits the same way,
// with no timeout, but never bounds its waits.
//
//   ASSIGN_OR_RETURN(bool ticking, ArmWaitTick(&ring, kWaitTickNs));
//   ... io_uring_submit_and_wait(&ring, wait_nr) returns within a tick ...
//   ... a reap skips CQEs for which IsWaitTick(cqe->user_data) ...
#ifndef BLKPERF_DAEMON_ENGINE_RING_WAIT_TICK_H_
#define BLKPERF_DAEMON_ENGINE_RING_WAIT_TICK_H_

#include <liburing.h>

#include <cstdint>

#include "absl/status/statusor.h"

namespace blkperf::internal {

// The user_data of every tick CQE. No I/O's tag is 0 (completion_tag.h
// packs a request's address, never null).
inline constexpr uint64_t kWaitTickUserData = 0;

inline bool IsWaitTick(uint64_t user_data) {
  return user_data == kWaitTickUserData;
}

// IORING_TIMEOUT_MULTISHOT (Linux 6.4), absent from liburing 2.3's headers.
inline constexpr unsigned kTimeoutMultishot = 1U << 6;

// Arms the tick on `ring`, which must have a free SQE, nothing queued and
// nothing in its CQ, and must not be an IOPOLL or SQPOLL ring (an IOPOLL
// wait does not sleep; an SQPOLL ring would report a refusal late).
// Returns true when the tick runs, false when the kernel refused a
// multishot timeout (EINVAL: a kernel before 6.4), so the caller must bound
// each wait itself; an error for any other failure. Each tick CQE has
// res -ETIME and IORING_CQE_F_MORE; one without F_MORE ends the tick.
// The SQE it used is left zeroed.
absl::StatusOr<bool> ArmWaitTick(io_uring* ring, int64_t interval_ns);

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_WAIT_TICK_H_
