// The kernel side of one turn of the submitter loop and the moments its
// latency timestamps are taken: a seam between the loop and io_uring, so a
// test can run it against a fake ring and a fake clock.
//
//   KernelRing ring(&uring, /*registered_ring_fd=*/false);
//   TurnClock clock = TurnClock::Create();           // or any Clock below
//   TurnLog::Stamps& stamps = turns.stamps(slot);     // turn_log.h
//   TurnResult turn = EnterAndStamp(ring, clock, &stamps, n, wait_nr,
//                                   LatencyMode::kBatch, timeout_ns);
//   ... reap every CQE now in the ring; each completes at turn.reap_ns ...
//
// (io_turn_test.cc's UsageExample compiles and runs this; submitter_test.cc
// drives the submitter's own turns through a fake Ring.)
//
// The three latencies of a logical I/O (docs/numbers.md):
//   submission (slat) = issued_ns - submit_ns
//   completion (clat) = reap_ns - issued_ns
//   total             = reap_ns - submit_ns  (= slat + clat exactly)
// where submit_ns is read right before the io_uring_enter that submits the
// I/O, issued_ns right after that enter returns, and reap_ns right after the
// enter (or CQ peek) after which its last CQE was reaped. One clock read per
// stamp, shared by the whole batch, and stored once for it (turn_log.h):
// never one per I/O.
//
// Ring concept:
//   int SubmitAndWait(unsigned wait_nr, int64_t timeout_ns);
//       Submits what is queued and waits for wait_nr CQEs, at most
//       timeout_ns when > 0. Returns >= 0, or -errno (-ETIME: timed out).
//   unsigned CqReady();   CQEs waiting to be reaped.
// Clock concept: int64_t operator()() in nanoseconds.
#ifndef BLKPERF_DAEMON_ENGINE_RING_IO_TURN_H_
#define BLKPERF_DAEMON_ENGINE_RING_IO_TURN_H_

#include <errno.h>
#include <liburing.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "absl/base/attributes.h"
#include "model/workload_spec.h"

namespace blkperf::internal {

// Enter failures that are not errors: retry on the next turn.
inline bool TransientEnterError(int ret) {
  return ret == -EINTR || ret == -EAGAIN || ret == -EBUSY || ret == -ETIME;
}

struct TurnResult {
  int ret = 0;          // of the last enter: >= 0 or -errno
  int64_t reap_ns = 0;  // completion stamp of every CQE reaped after the turn
  uint32_t calls = 0;   // SubmitAndWait calls made (1 or 2)
};

// Submits the `n` I/Os prepared for this turn, stamps them in `stamps` (a
// turn's, with `submit_ns` and `issued_ns` fields; untouched when n is 0)
// and waits per `mode`:
//   kBatch: one call submits and waits for `wait_nr` CQEs, so issued_ns is
//     after that wait too (slat includes it, and the I/Os that completed
//     during it get clat 0).
//   kPerIo: a call that only submits; then, unless a CQE is already there
//     or `wait_nr` is 0, a second call waits for one CQE.
// `timeout_ns` > 0 bounds every wait.
template <typename Ring, typename Clock, typename Stamps>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline TurnResult EnterAndStamp(
    Ring& ring, Clock&& clock, Stamps* stamps, uint32_t n, unsigned wait_nr,
    LatencyMode mode, int64_t timeout_ns) {
  TurnResult turn;
  const int64_t submit_ns = clock();
  if (mode == LatencyMode::kPerIo) {
    turn.ret = ring.SubmitAndWait(n == 0 ? std::min(wait_nr, 1u) : 0,
                                  timeout_ns);
    turn.calls = 1;
    turn.reap_ns = clock();
    if (n != 0) {
      stamps->submit_ns = submit_ns;
      stamps->issued_ns = turn.reap_ns;
    }
    if (n == 0 || wait_nr == 0 || ring.CqReady() != 0) return turn;
    if (turn.ret < 0 && !TransientEnterError(turn.ret)) return turn;
    turn.ret = ring.SubmitAndWait(1, timeout_ns);
    turn.calls = 2;
    turn.reap_ns = clock();
    return turn;
  }
  turn.ret = ring.SubmitAndWait(wait_nr, timeout_ns);
  turn.calls = 1;
  turn.reap_ns = clock();
  if (n != 0) {
    stamps->submit_ns = submit_ns;
    stamps->issued_ns = turn.reap_ns;
  }
  return turn;
}

// The kernel ring behind the Ring concept.
//
// A call that passes no timeout enters the kernel itself, with liburing
// 2.3's rules (__io_uring_submit: publish the SQ tail, enter only when
// there is something to submit, wait for or flush; GETEVENTS when waiting
// or when the kernel flags a CQ overflow or pending task work; the
// registered ring index when the ring fd is registered) and the syscall
// instruction inline, not through io_uring_submit_and_wait. On a kernel
// with page-table isolation and no PCID, as on the development VM, every
// return from io_uring_enter flushes the TLB, and each page a turn then
// touches costs a page walk: liburing's code, its PLT entry and GOT are
// pages t/io_uring does not touch (bench/RESULTS.md measures the
// difference). SQPOLL and IOPOLL rings, and calls with a timeout
// (IORING_ENTER_EXT_ARG), go through liburing.
class KernelRing {
 public:
  // `registered_ring_fd`: io_uring_register_ring_fd succeeded on `ring`.
  KernelRing(io_uring* ring, bool registered_ring_fd)
      : ring_(ring),
        direct_(
            (ring->flags & (IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL)) == 0),
        enter_fd_(registered_ring_fd ? ring->enter_ring_fd : ring->ring_fd),
        enter_flags_(registered_ring_fd ? IORING_ENTER_REGISTERED_RING : 0) {}

  int SubmitAndWait(unsigned wait_nr, int64_t timeout_ns) {
    if (wait_nr != 0 && timeout_ns > 0) {
      __kernel_timespec ts;
      ts.tv_sec = timeout_ns / 1000000000;
      ts.tv_nsec = timeout_ns % 1000000000;
      io_uring_cqe* cqe = nullptr;
      // One io_uring_enter with IORING_ENTER_EXT_ARG (kernel >= 5.11).
      return io_uring_submit_and_wait_timeout(ring_, &cqe, wait_nr, &ts,
                                              nullptr);
    }
    if (!direct_) return io_uring_submit_and_wait(ring_, wait_nr);
    io_uring_sq& sq = ring_->sq;
    const unsigned tail = sq.sqe_tail;
    const unsigned submit = tail - sq.sqe_head;
    if (submit != 0) {
      sq.sqe_head = tail;
      io_uring_smp_store_release(sq.ktail, tail);
    }
    unsigned flags = enter_flags_;
    if (wait_nr != 0 ||
        (IO_URING_READ_ONCE(*sq.kflags) &
         (IORING_SQ_CQ_OVERFLOW | IORING_SQ_TASKRUN)) != 0) {
      flags |= IORING_ENTER_GETEVENTS;
    } else if (submit == 0) {
      return 0;  // nothing to submit, wait for or flush: no syscall
    }
    return Enter(submit, wait_nr, flags);
  }
  unsigned CqReady() { return io_uring_cq_ready(ring_); }

 private:
  // io_uring_enter(2) with no signal mask: >= 0, or -errno.
  int Enter(unsigned to_submit, unsigned wait_nr, unsigned flags) {
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = flags;
    register long r8 __asm__("r8") = 0;  // sigmask: none
    register long r9 __asm__("r9") = 0;  // its size
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"(long{__NR_io_uring_enter}), "D"(long{enter_fd_}),
                       "S"(long{to_submit}), "d"(long{wait_nr}), "r"(r10),
                       "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return static_cast<int>(ret);
#else
    const long ret = syscall(__NR_io_uring_enter, enter_fd_, to_submit,
                             wait_nr, flags, nullptr, 0);
    return ret < 0 ? -errno : static_cast<int>(ret);
#endif
  }

  io_uring* const ring_;
  const bool direct_;  // neither SQPOLL nor IOPOLL
  const int enter_fd_;
  const unsigned enter_flags_;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_IO_TURN_H_
