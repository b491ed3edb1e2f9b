// SubmitterThread's thread body and its loop: Run, Prepare, Reap, Drain
// and the checks a turn makes, all in this one translation unit so the
// loop's steps inline into it (set-up, snapshots and faults are in
// submitter_setup.cc, submitter_stats.cc and submitter_faults.cc).

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
#include "base/clock.h"
#include "base/status_macros.h"
#include "daemon/engine/host/host_capabilities.h"
#include "daemon/engine/host/process_threads.h"
#include "daemon/engine/ring/completion_tag.h"
#include "daemon/engine/ring/start_instant.h"
#include "daemon/engine/ring/wait_tick.h"

namespace blkperf::internal {

namespace {

// The next free SQE, for a caller that knows the SQ has room (Prepare
// reads the free space once per batch). io_uring_get_sqe would reload the
// kernel's head on every call; rings here never use IORING_SETUP_SQE128.
inline io_uring_sqe* NextSqe(io_uring* ring) {
  io_uring_sq* sq = &ring->sq;
  return &sq->sqes[sq->sqe_tail++ & sq->ring_mask];
}

}  // namespace

void SubmitterThread::NoteStartWait(const absl::Status& raised) {
  start_wait_realtime_ = raised.ok();
  if (!raised.ok()) start_wait_error_ = std::string(raised.message());
}

void SubmitterThread::StampFirstSubmit() {
  const int64_t realtime = RealtimeNowNs();
  const int64_t monotonic = MonotonicNowNs();
  first_submit_realtime_ns_.store(realtime, std::memory_order_relaxed);
  first_submit_monotonic_ns_.store(monotonic, std::memory_order_release);
}

void SubmitterThread::ThreadMain(const std::function<void()>& loop_done) {
  tid_ = static_cast<pid_t>(syscall(SYS_gettid));
  // io_uring names its io-wq workers "iou-wrk-<tid>" after this thread.
  pthread_setname_np(pthread_self(),
                     absl::StrCat("blkperf-sub", index_).substr(0, 15).c_str());
  setup_status_ = Setup();
  ring_setup_.huge_pages = io_buffers_.huge_pages();
  ring_setup_.buffer_layout = std::string(BufferLayoutName(io_buffers_.layout()));
  ring_setup_.io_mode = std::string(IoModeName(io_mode_));
  // Real time before the gate, not after it: the gate opens shortly
  // before a scheduled instant, and a thread woken at the normal policy
  // waited behind the other threads of its CPU (in the kernel, on this
  // PREEMPT_NONE one) for 23-343 ms, past the instant, before it could
  // raise itself (8 of 34 busy rounds of fleet_e2e_test with another
  // test's FUSE server busy on the same CPU; bench/RESULTS.md,
  // 2026-12-06). Sleeping on the gate at real time costs nothing; an
  // unscheduled start goes back to the normal policy at once.
  const absl::Status raised = start_priority_.Raise();
  ready_.Notify();
  control_->go.Wait();
  const bool scheduled = control_->start_at_ns != 0;
  if (scheduled) {
    NoteStartWait(raised);
  } else {
    start_priority_.Restore();
  }
  const bool on_time =
      !scheduled ||
      WaitForInstant(control_->start_at_ns, control_->stop,
                     kStartSpinWindowNs,
                     start_priority_.raised() ? StartPoll::kYieldToPeers
                                              : StartPoll::kSpin);
  if (setup_status_.ok() && !control_->abort.load() && on_time) {
    StampFirstSubmit();
    if (per_cpu_cache_ != nullptr) {
      RunLoop(*per_cpu_cache_);
    } else {
      RunLoop(*shared_cache_);
    }
    if (io_buffers_.base() != nullptr) {
      buffer_placement_ =
          ReadPagePlacement(io_buffers_.base(), io_buffers_.mapped_bytes());
    }
  }
  loop_ended_.store(true, std::memory_order_release);  // or never ran
  start_priority_.Restore();  // the loop did not run, or ended in turn one
  // Before the ring goes away its kernel threads (and their CPU) go too.
  // An abandoned thread samples before the workload ends: after loop_done
  // the workload, and the control block with it, may be gone.
  control_->io_worker_cpu.Sample({tid_});
  if (abandoned()) {
    loop_done();  // the workload ends; this thread waits for the device
    WaitOutAbandoned();
  }
  cpu_times_.RecordExit();
  TearDownRing();
  const bool was_abandoned = abandoned();
  exited_.store(true, std::memory_order_release);
  if (!was_abandoned) loop_done();
}

inline bool SubmitterThread::DrawIsWrite(uint32_t read_percent) {
  if (read_percent == 100) return false;  // no draw when all go one way
  if (read_percent == 0) return true;
  // The high 32 random bits scaled onto [0, 100).
  return ((rng_.Next() >> 32) * 100 >> 32) >= read_percent;
}

template <typename Cache>
void SubmitterThread::RunLoop(Cache& cache) {
  // The shaped loop calls prep_ (trims have their own); the plain loop is
  // compiled once per I/O mode, its prep inlined.
  if (group_.shaped) return Run<true, IoMode::kFixed>(cache);
  switch (io_mode_) {
    case IoMode::kFixed:
      return Run<false, IoMode::kFixed>(cache);
    case IoMode::kPlain:
      return Run<false, IoMode::kPlain>(cache);
    case IoMode::kVectored:
      return Run<false, IoMode::kVectored>(cache);
    case IoMode::kNop:
      return Run<false, IoMode::kNop>(cache);
  }
}

template <bool kShaped, IoMode kMode>
inline void SubmitterThread::PrepPiece(io_uring_sqe* sqe, Request* req,
                                       uint64_t piece_offset,
                                       uint32_t piece_length, uint64_t tag) {
  char* addr = buffers_ + size_t{req->buffer} * slot_bytes_ +
               (piece_offset - req->offset);
  const int fd = registered_files_ ? req->target : fds_[req->target];
  const PieceIo io{sqe,          fd,           addr,
                   piece_length, piece_offset,
                   static_cast<uint16_t>(req->buffer & buf_index_mask_),
                   req->is_write};
  if constexpr (kShaped) {
    prep_(io, &piece_iovecs_);
  } else {
    PrepIo<kMode>(io, &piece_iovecs_);
  }
  sqe->flags |= sqe_flags_;
  sqe->user_data = tag;
}

template <IoMode kMode, typename Cache>
inline uint32_t SubmitterThread::PrepareUnsplit(Cache& cache,
                                                uint32_t max_ios,
                                                uint16_t turn_slot,
                                                bool measuring) {
  // Every member the loop needs is read into a local first: an SQE's byte
  // fields may alias any member, so the compiler would reload members
  // after each SQE store. One I/O is one SQE here, so the SQ head is read
  // once and the batch is at most the free space.
  io_uring_sq& sq = ring_.sq;
  Request** const batch = batch_.data();
  const uint32_t ios = static_cast<uint32_t>(cache.GetBatch(
      batch, std::min(max_ios, io_uring_sq_space_left(&ring_))));
  if constexpr (!OwnsRequests<Cache>()) {
    for (uint32_t i = 0; i < ios; ++i) {
      batch[i]->buffer = free_buffers_.Take();
      by_buffer_[batch[i]->buffer] = batch[i];
    }
  }
  io_uring_sqe* const sqes = sq.sqes;
  const unsigned sq_mask = sq.ring_mask;
  const unsigned sq_tail = sq.sqe_tail;
  const uint32_t targets = static_cast<uint32_t>(fds_.size());
  const int* const fds = fds_.data();
  const bool registered_files = registered_files_;
  const uint8_t sqe_flags = sqe_flags_;
  const uint32_t length = io_length_;
  const uint32_t read_percent = read_percent_;
  char* const buffers = buffers_;
  const size_t slot_bytes = slot_bytes_;
  const uint16_t buf_index_mask = buf_index_mask_;
  uint16_t* const turn_of = turn_of_.data();
  uint32_t cursor = target_cursor_;
  const auto prep = [&](Request* const req, io_uring_sqe* const sqe)
                        ABSL_ATTRIBUTE_ALWAYS_INLINE {
    // A free request's pieces_left is already 1; the thread's own requests
    // have this loop's length from setup.
    if constexpr (!OwnsRequests<Cache>()) req->length = length;
    turn_of[SlotOf<Cache>(req)] = turn_slot;
    bool is_write = false;
    if constexpr (kMode == IoMode::kNop) {
      // No device, so no target or offset to draw (t/io_uring -N1 draws
      // none), and target, offset and direction keep their zeroes: the
      // request's line is not touched.
      PrepIo<kMode>(PieceIo{.sqe = sqe}, &piece_iovecs_);
    } else {
      const uint16_t target = static_cast<uint16_t>(cursor);
      cursor = NextTarget(cursor, targets);
      req->target = target;
      req->offset = offsets_.Next(target, rng_);
      is_write = DrawIsWrite(read_percent);
      req->is_write = is_write;
      const PieceIo io{sqe,
                       registered_files ? target : fds[target],
                       buffers + size_t{req->buffer} * slot_bytes,
                       length,
                       req->offset,
                       static_cast<uint16_t>(req->buffer & buf_index_mask),
                       is_write};
      PrepIo<kMode>(io, &piece_iovecs_);
    }
    sqe->flags |= sqe_flags;
    sqe->user_data =
        CompletionTag<Request>::Pack(req, turn_slot, /*whole=*/true, is_write);
  };
  // The SQEs as far as the ring's end, then from its start: each loop
  // steps a pointer instead of masking an index.
  const unsigned first = sq_tail & sq_mask;
  const uint32_t before_end = std::min(ios, sq_mask + 1 - first);
  for (uint32_t i = 0; i < before_end; ++i) prep(batch[i], &sqes[first + i]);
  for (uint32_t i = before_end; i < ios; ++i) {
    prep(batch[i], &sqes[i - before_end]);
  }
  sq.sqe_tail = sq_tail + ios;
  target_cursor_ = cursor;
  inflight_ += ios;
  pieces_inflight_ += ios;
  if (measuring) stats_.sqes.Add(ios);
  return ios;
}

template <bool kShaped, IoMode kMode, typename Cache>
inline uint32_t SubmitterThread::Prepare(Cache& cache, uint32_t max_ios,
                                  uint16_t turn_slot, bool measuring,
                                  int64_t now_ns) {
  return PrepareBody<kShaped, kMode>(cache, max_ios, turn_slot, measuring,
                                     now_ns);
}

template <bool kShaped, IoMode kMode, typename Cache>
inline uint32_t SubmitterThread::PrepareBody(Cache& cache, uint32_t max_ios,
                                             uint16_t turn_slot,
                                             bool measuring, int64_t now_ns) {
  if constexpr (!kShaped) {
    if (split_none_ && !verify_) {
      return PrepareUnsplit<kMode>(cache, max_ios, turn_slot, measuring);
    }
  }
  uint32_t ios = 0;
  uint32_t sqes = 0;
  const uint16_t targets = static_cast<uint16_t>(fds_.size());
  // The SQ head is read once per batch: only this thread adds SQEs, so the
  // free space can only grow while the batch is being filled.
  const uint32_t space = io_uring_sq_space_left(&ring_);
  while (ios < max_ios && space - sqes >= max_pieces_) {
    if constexpr (kShaped) {
      // Open loop: only I/Os whose intended time has come (a pending sync
      // is not paced). Closed loop: next_ns() is always in the past.
      if (!issuer_.Due(now_ns)) break;
    }
    Request* req = cache.Get();
    if (ABSL_PREDICT_FALSE(req == nullptr)) break;
    if constexpr (!OwnsRequests<Cache>()) {
      req->buffer = free_buffers_.Take();
      by_buffer_[req->buffer] = req;
    }
    req->target = static_cast<uint16_t>(target_cursor_);
    if constexpr (kShaped) {
      issuer_.Pick(req, now_ns, rng_);  // may replace the target (a sync's)
      if (req->kind != kSyncIo) {
        target_cursor_ = NextTarget(target_cursor_, targets);
      }
    } else {
      target_cursor_ = NextTarget(target_cursor_, targets);
      req->offset = offsets_.Next(req->target, rng_);
      req->length = io_length_;
      req->is_write = DrawIsWrite(read_percent_);
    }
    turn_of_[SlotOf<Cache>(req)] = turn_slot;
    // The shaped loop's lengths vary and verify checks every completion, so
    // their I/Os are never reaped as whole (Reap reads the request).
    const auto tag = [&](bool whole) {
      return CompletionTag<Request>::Pack(req, turn_slot,
                                          !kShaped && !verify_ && whole,
                                          req->is_write);
    };
    if (ABSL_PREDICT_FALSE(verify_)) {
      req->verify_value = verifier_->Begin(
          req->target, &req->offset, req->is_write,
          buffers_ + size_t{req->buffer} * slot_bytes_);
    }
    if (kShaped && ABSL_PREDICT_FALSE(req->kind == kSyncIo)) {
      io_uring_sqe* sqe = NextSqe(&ring_);
      const int fd = registered_files_ ? req->target : fds_[req->target];
      io_uring_prep_fsync(sqe, fd, group_.datasync ? IORING_FSYNC_DATASYNC : 0);
      sqe->flags |= sqe_flags_;
      sqe->user_data = tag(false);
      ++sqes;
    } else if (split_none_) {
      PrepPiece<kShaped, kMode>(NextSqe(&ring_), req, req->offset,
                                req->length, tag(true));
      ++sqes;
    } else {
      const Splitter& splitter = splitters_[req->target];
      const uint64_t buffer_base = size_t{req->buffer} * slot_bytes_;
      const uint32_t length = req->length;
      uint32_t done = 0;
      uint32_t pieces = 0;
      while (done < length) {
        const uint32_t piece = splitter.NextPieceLength(
            req->offset + done, buffer_base + done, length - done);
        PrepPiece<kShaped, kMode>(NextSqe(&ring_), req, req->offset + done,
                                  piece, tag(piece == length));
        done += piece;
        ++pieces;
      }
      req->pieces_left = pieces;
      sqes += pieces;
    }
    ++ios;
  }
  inflight_ += ios;
  pieces_inflight_ += sqes;
  if (measuring) stats_.sqes.Add(sqes);
  return ios;
}

template <typename Cache, bool kFits>
inline void SubmitterThread::Release(typename Cache::PutRun& puts,
                                     Request* req) {
  if constexpr (!OwnsRequests<Cache>()) {
    by_buffer_[req->buffer] = nullptr;
    free_buffers_.Return(req->buffer);
  }
  if constexpr (kFits) {
    puts.PutFitting(req);
  } else {
    puts.Put(req);
  }
}

template <typename Cache>
inline void SubmitterThread::PrefetchTurnState(const Cache& cache,
                                               uint16_t turn_slot) {
  // A kernel with page-table isolation and no PCID (the development VM)
  // flushes the TLB on every return from io_uring_enter, so the first
  // touch of each page after it walks the page tables; touched in program
  // order, those walks stall one after another. These lines are the first
  // of their pages the reap and the next prepare touch: the cache's ring
  // at its head and its tail, the turn log, the three latency histograms
  // (and the bucket each recorded last) and the counters, the batch and
  // turn arrays, the control block, the next CQE and SQE. Loading them at
  // once gained about 1.5 % on NOP (bench/RESULTS.md, 2026-12-03).
  if constexpr (OwnsRequests<Cache>()) cache.Prefetch();
  turns_->Prefetch(turn_slot);
  __builtin_prefetch(&stats_, 1);
  stats_.latency.Prefetch();
  stats_.submit_latency.Prefetch();
  stats_.completion_latency.Prefetch();
  __builtin_prefetch(batch_.data(), 1);
  __builtin_prefetch(turn_of_.data(), 1);
  __builtin_prefetch(control_, 0);
  __builtin_prefetch(&ring_.cq.cqes[*ring_.cq.khead & ring_.cq.ring_mask], 0);
  __builtin_prefetch(&ring_.sq.sqes[ring_.sq.sqe_tail & ring_.sq.ring_mask], 1);
}

template <bool kShaped>
inline SubmitterThread::Finished SubmitterThread::FinishOther(
    const io_uring_cqe& cqe, bool measuring, int64_t now_ns,
    TallyFor<kShaped>* tally) {
  ++tally->cqes;
  if (ABSL_PREDICT_FALSE(IsWaitTick(cqe.user_data))) {
    ++tally->ticks;
    // A tick without F_MORE was its last: bound the waits again.
    if ((cqe.flags & IORING_CQE_F_MORE) == 0) wait_tick_ = false;
    return {};
  }
  Request* const req = CompletionTag<Request>(cqe.user_data).request();
  if (ABSL_PREDICT_FALSE(cqe.res < 0)) {
    if (req->result == 0) req->result = cqe.res;
  } else {
    req->done_bytes += static_cast<uint32_t>(cqe.res);
  }
  if (--req->pieces_left != 0) return {};  // more pieces of it in flight
  // The logical I/O is complete: all of its pieces were reaped.
  ++tally->completed;
  // Reads and writes transfer their length; trims and syncs return 0.
  const uint32_t expected = !kShaped || req->kind <= kWriteIo ? req->length : 0;
  const bool failed = req->result != 0 || req->done_bytes != expected;
  Finished done{.req = req};
  if (ABSL_PREDICT_FALSE(verify_) && !VerifyCompletion(req, failed)) {
    if (measuring) ++finished_ios_;
  } else if (ABSL_PREDICT_FALSE(failed)) {
    OnIoError(req, measuring);
  } else if (measuring) {
    if constexpr (kShaped) {
      ++tally->kind_ios[req->kind];
      tally->kind_bytes[req->kind] += req->length;
      tally->late += req->late;
      done.timed = latency_tracking_ && req->kind != kSyncIo;
      if (done.timed && issuer_.open_loop()) {
        stats_.intended_latency.Record(
            static_cast<uint64_t>(now_ns - req->intended_ns));
        // Issue lag: its turn's submit stamp less its intended time, so
        // per I/O intended_latency = issue_lag + latency exactly. Never
        // negative: Prepare takes only I/Os already due.
        const int64_t submit_ns =
            turns_->stamps(CompletionTag<Request>(cqe.user_data).turn_slot())
                .submit_ns;
        stats_.issue_lag.Record(static_cast<uint64_t>(
            std::max<int64_t>(0, submit_ns - req->intended_ns)));
      }
    } else {
      if (req->is_write) {
        ++tally->write_ios;
      } else {
        ++tally->read_ios;
      }
      done.timed = latency_tracking_;
    }
  }
  // Back to a free request's values, which Prepare relies on.
  req->pieces_left = 1;
  req->result = 0;
  req->done_bytes = 0;
  return done;
}

SubmitterThread::Finished SubmitterThread::FinishOtherOutOfLine(
    const io_uring_cqe& cqe, bool measuring, int64_t now_ns,
    OtherTally* tally) {
  return FinishOther<false>(cqe, measuring, now_ns, tally);
}

template <bool kShaped, typename Cache>
inline uint32_t SubmitterThread::Reap(Cache& cache, bool measuring,
                                      int64_t now_ns) {
  // The CQEs are read in place: one acquire load of the tail for the whole
  // batch, and one release store of the head (io_uring_cq_advance) after.
  const unsigned n = io_uring_cq_ready(&ring_);
  if (n == 0) return 0;
  const unsigned head = *ring_.cq.khead;
  CompletionRun<LiveLatencyHistogram> run(
      turns_.get(), &stats_.latency, &stats_.submit_latency,
      &stats_.completion_latency, now_ns);
  typename Cache::PutRun puts(cache);  // the cache is not used otherwise here
  TallyFor<kShaped> other;
  const unsigned mask = ring_.cq.ring_mask;
  // Rings here never use IORING_SETUP_CQE32: one 16-byte CQE per entry.
  const io_uring_cqe* const cqes = ring_.cq.cqes;
  // A whole I/O (one SQE) that transferred its full length is accounted
  // from its CQE alone (completion_tag.h): its request is not read. Pieces
  // of split I/Os, failures, short transfers, verify's I/Os and the shaped
  // loop's go to FinishOther, which reads their request.
  const int32_t whole_result = static_cast<int32_t>(io_length_);
  const bool time_whole = measuring && latency_tracking_;
  const bool mixed_directions = read_percent_ != 0 && read_percent_ != 100;
  uint32_t whole_writes = 0;
  unsigned i = 0;
  while (i < n) {
    const io_uring_cqe& cqe = cqes[(head + i) & mask];
    const CompletionTag<Request> tag(cqe.user_data);
    if (ABSL_PREDICT_FALSE(!tag.whole() || cqe.res != whole_result)) {
      Finished done;
      if constexpr (kShaped) {
        done = FinishOther<true>(cqe, measuring, now_ns, &other);
      } else {
        done = FinishOtherOutOfLine(cqe, measuring, now_ns, &other);
      }
      if (done.req != nullptr) {
        run.Add(tag.turn_slot(), done.timed);
        Release<Cache>(puts, done.req);
      }
      ++i;
      continue;
    }
    // The run of whole, full-length I/Os of this CQE's turn, as far as the
    // cache takes them without a flush, in a loop that calls nothing: its
    // counts stay in registers (across a call they would be stored and
    // loaded back once per CQE), and the turn's run is told once.
    const uint16_t slot = tag.turn_slot();
    if constexpr (OwnsRequests<Cache>()) {
      // The thread's own requests keep their buffers, so releasing a run is
      // only copying its request pointers from the CQ into the cache's
      // ring (TakeWholeRun), as far as neither ring wraps: about a third
      // of the instructions per CQE of the loop below.
      const unsigned at = (head + i) & mask;
      const uint32_t limit = static_cast<uint32_t>(std::min<size_t>(
          {n - i, mask + 1 - at, puts.contiguous_room()}));
      if (ABSL_PREDICT_TRUE(limit != 0)) {
        Request** const places = puts.next_places();
        const WholeRun taken =
            mixed_directions
                ? TakeWholeRun<Request, true>(&cqes[at], limit, whole_result,
                                              places)
                : TakeWholeRun<Request, false>(&cqes[at], limit, whole_result,
                                               places);
        puts.Filled(taken.ios);
        whole_writes += taken.writes;
        run.Add(slot, taken.ios, time_whole ? taken.ios : 0);
        i += taken.ios;
        continue;
      }
    }
    const unsigned end = i + static_cast<unsigned>(
                                 std::min<size_t>(n - i, puts.room()));
    if (ABSL_PREDICT_FALSE(end == i)) {  // a full cache: this Put flushes
      whole_writes += tag.write();
      run.Add(slot, time_whole);
      Release<Cache>(puts, tag.request());
      ++i;
      continue;
    }
    const unsigned first = i;
    uint32_t writes = 0;
    do {
      const io_uring_cqe& next = cqes[(head + i) & mask];
      const CompletionTag<Request> next_tag(next.user_data);
      if (!next_tag.whole() || next.res != whole_result ||
          next_tag.turn_slot() != slot) {
        break;
      }
      writes += next_tag.write();
      Release<Cache, /*kFits=*/true>(puts, next_tag.request());
      ++i;
    } while (i < end);
    whole_writes += writes;
    run.Add(slot, i - first, time_whole ? i - first : 0);
  }
  run.Flush();
  const uint32_t whole_ios = n - other.cqes;
  const uint32_t completed = whole_ios + other.completed;
  io_uring_cq_advance(&ring_, n);
  pieces_inflight_ -= n - other.ticks;
  inflight_ -= completed;
  if (!measuring) return completed;
  if constexpr (kShaped) {
    const uint64_t* const kind_ios = other.kind_ios;
    const uint64_t* const kind_bytes = other.kind_bytes;
    const uint64_t ios =
        kind_ios[kReadIo] + kind_ios[kWriteIo] + kind_ios[kTrimIo];
    finished_ios_ += ios;
    stats_.ios.Add(ios);
    stats_.bytes.Add(kind_bytes[kReadIo] + kind_bytes[kWriteIo] +
                     kind_bytes[kTrimIo]);
    stats_.read_ios.Add(kind_ios[kReadIo]);
    stats_.read_bytes.Add(kind_bytes[kReadIo]);
    stats_.write_ios.Add(kind_ios[kWriteIo]);
    stats_.write_bytes.Add(kind_bytes[kWriteIo]);
    stats_.trim_ios.Add(kind_ios[kTrimIo]);
    stats_.trim_bytes.Add(kind_bytes[kTrimIo]);
    stats_.sync_ios.Add(kind_ios[kSyncIo]);
    stats_.late_ios.Add(other.late);
  } else {
    // Whole I/Os are the plain loop's only.
    const uint64_t read_ios = other.read_ios + (whole_ios - whole_writes);
    const uint64_t write_ios = other.write_ios + whole_writes;
    const uint64_t ios = read_ios + write_ios;
    finished_ios_ += ios;
    stats_.ios.Add(ios);
    stats_.bytes.Add(ios * io_length_);
    stats_.read_ios.Add(read_ios);
    stats_.read_bytes.Add(read_ios * io_length_);
    stats_.write_ios.Add(write_ios);
    stats_.write_bytes.Add(write_ios * io_length_);
  }
  return completed;
}

void SubmitterThread::FollowRate(int64_t now_ns) {
  // Pairs with the release store that published the rate (an acquire load
  // is a plain load on x86-64, and TSan sees it, unlike a fence).
  const uint32_t generation =
      control_->rate_generation.load(std::memory_order_acquire);
  if (ABSL_PREDICT_TRUE(generation == issuer_.rate_generation())) return;
  issuer_.TakeRate(generation, control_->rates[generation], now_ns);
}

unsigned SubmitterThread::OpenLoopWait(uint32_t room, uint32_t prepped,
                                       int64_t now, int64_t* timeout_ns) const {
  if (inflight_ >= queue_depth_ || room == prepped) {
    // No slot (or the I/O count is reached): wait as the closed loop does,
    // so a rate beyond what the device sustains costs no more enters.
    return std::min(complete_batch_, inflight_);
  }
  if (issuer_.Due(now)) return 0;  // due now: go round again
  // Sleep in the kernel until the next intended time or a completion:
  // never a busy wait, even with nothing in flight.
  *timeout_ns = std::clamp<int64_t>(issuer_.next_ns() - now, 1, *timeout_ns);
  return 1;
}

template <bool kShaped, IoMode kMode, typename Cache>
void SubmitterThread::Run(Cache& cache) {
  const int64_t measure_start = control_->measure_start_ns;
  const int64_t end = control_->end_ns;
  clock_ = TurnClock::Create();
  int64_t now = clock_();
  bool measuring = now >= measure_start;
  uint64_t enter_calls = 0;
  KernelRing ring(&ring_, ring_setup_.registered_ring_fd);
  // A start's real-time priority lasts until the first turn is submitted.
  next_steer_ns_ = now + kSteerIntervalNs;
  next_stall_check_ns_ = NextStallCheck(now);
  next_check_ns_ = start_priority_.raised()
                       ? now
                       : std::min(next_steer_ns_, next_stall_check_ns_);
  if constexpr (kShaped) {
    // The schedule starts with the thread's first I/O.
    issuer_.Start(ShapedIssuer::ThreadRate(group_), now);
    FollowRate(now);
  }
  // The first phase boundary this thread marks. A sequentially consistent
  // store, then load, against Workload's publication (a sequentially
  // consistent store) and its load of taken_generation_: either the
  // workload sees the loop beginning, or this load sees its generation.
  // Nothing is counted yet, so the mark is phase_mark_ as constructed,
  // zero: no copy delays the first turn (and, on a CPU shared at a start
  // instant, other threads' first turns).
  taken_generation_.store(kLoopBeginning);
  const uint32_t first_generation = control_->split_generation.load();
  FollowSplitGeneration(first_generation);
  taken_generation_.store(first_generation, std::memory_order_release);
  for (;;) {
    if (ABSL_PREDICT_FALSE(control_->stop.load(std::memory_order_relaxed)) ||
        (end != 0 && now >= end)) {
      break;
    }
    uint32_t room = queue_depth_ - inflight_;
    if (io_quota_ != 0) {
      const uint64_t left = io_quota_ - std::min(io_quota_, finished_ios_ + inflight_);
      room = static_cast<uint32_t>(std::min<uint64_t>(room, left));
      if (room == 0 && inflight_ == 0) break;
    }
    const uint32_t generation =
        control_->split_generation.load(std::memory_order_relaxed);
    if (ABSL_PREDICT_FALSE(generation != split_generation_)) {
      // An acquire load pairs with the release store that published the
      // strategy (a plain load on x86; TSan does not see a standalone
      // acquire fence). Pieces in flight finish as they were cut; new I/Os
      // use the new strategy.
      TakeUpSplitStrategy(
          control_->split_generation.load(std::memory_order_acquire));
    }
    if constexpr (kShaped) FollowRate(now);
    const uint16_t turn_slot = turns_->NextSlot();
    const uint32_t prepped =
        Prepare<kShaped, kMode>(cache, std::min(room, submit_batch_),
                                turn_slot, measuring, now);
    if (prepped != 0) turns_->Start(turn_slot, prepped);
    // As t/io_uring: while there is room to submit more, do not wait;
    // otherwise wait for a batch of completions in the same syscall.
    unsigned to_wait = 0;
    int64_t timeout = WaitTimeout(now, end, !kShaped && wait_tick_);
    if (kShaped && issuer_.open_loop()) {
      to_wait = OpenLoopWait(room, prepped, now, &timeout);
    } else if (prepped == 0 || inflight_ >= queue_depth_ || room == prepped) {
      to_wait = std::min(complete_batch_, inflight_);
    }
    // Shaped loop: a wait that starts with every slot taken lasts until the
    // device frees one, so an I/O due before it ends waits for a slot. This
    // holds whether or not this turn filled the last slots (in sustained
    // overload every turn refills the slots the last reap freed, then
    // waits with the queue full).
    const bool full_wait = kShaped && inflight_ >= queue_depth_;
    // The batch's stamps are taken right around the enter (io_turn.h); the
    // wait is bounded so stop, the end and io_timeout are seen in time.
    // Open loop submits, then waits for a completion or the next intended
    // time in a second call when nothing completed at once (latency_mode
    // per_io's turn): each I/O is reaped as soon as it completes. (One
    // enter that submits and waits with a timeout also made buffered
    // reads of a page-cache file go to io-wq workers: 3x the service time,
    // more CPU; bench/RESULTS.md.)
    const TurnResult turn = EnterAndStamp(
        ring, clock_, &turns_->stamps(turn_slot), prepped, to_wait,
        kShaped && issuer_.open_loop() ? LatencyMode::kPerIo : latency_mode_,
        timeout);
    PrefetchTurnState(cache, turn_slot);
    if (measuring) enter_calls += turn.calls;  // ramp-up is not measured
    if (ABSL_PREDICT_FALSE(turn.ret < 0) && !TransientEnterError(turn.ret)) {
      OnEnterError(turn.ret, io_uring_sq_ready(&ring_), to_wait);
      break;
    }
    now = turn.reap_ns;
    // Every I/O intended up to now and not yet issued waited for a slot.
    if (full_wait) issuer_.MarkQueueFull(now);
    Reap<kShaped>(cache, measuring, now);
    stats_.inflight.Set(inflight_);
    stats_.enter_calls.Set(enter_calls);
    if (ABSL_PREDICT_FALSE(!measuring) && now >= measure_start) {
      measuring = true;
    }
    last_reap_ns_.store(now, std::memory_order_relaxed);
    if (ABSL_PREDICT_FALSE(now >= next_check_ns_) &&
        PeriodicChecks(cache, now)) {
      break;
    }
  }
  last_reap_ns_.store(now, std::memory_order_release);
  loop_ended_.store(true, std::memory_order_release);
  if (!Drain<kShaped>(cache)) abandoned_.store(true, std::memory_order_release);
}

template <bool kShaped, typename Cache>
bool SubmitterThread::Drain(Cache& cache) {
  // Completions after the end are not measured; they are only collected so
  // buffers can be unregistered with no I/O in flight.
  KernelRing ring(&ring_, ring_setup_.registered_ring_fd);
  while (inflight_ > 0) {
    const int ret = ring.SubmitAndWait(1, kWaitTickNs);
    if (ret < 0 && !TransientEnterError(ret)) break;
    const int64_t now = clock_();
    Reap<kShaped>(cache, /*measuring=*/false, now);
    if (inflight_ > 0 && io_timeout_ns_ != 0 && now >= next_stall_check_ns_ &&
        (stall_reported_ || CheckStalls(cache, now))) {
      // The device holds I/O past io_timeout: do not wait for it here.
      stats_.inflight.Set(inflight_);
      return false;
    }
  }
  stats_.inflight.Set(inflight_);
  return true;
}

void SubmitterThread::WaitOutAbandoned() {
  // Only this thread's ring is touched: the workload may be gone.
  while (pieces_inflight_ > 0) {
    io_uring_cqe* cqe = nullptr;
    const int ret = io_uring_wait_cqe(&ring_, &cqe);
    if (ret < 0 && ret != -EINTR && ret != -EAGAIN) return;
    unsigned head = 0, n = 0, pieces = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++n;
      pieces += !IsWaitTick(cqe->user_data);
    }
    io_uring_cq_advance(&ring_, n);
    pieces_inflight_ -= std::min(pieces, pieces_inflight_);
  }
}

int64_t SubmitterThread::WaitTimeout(int64_t now, int64_t end,
                                     bool ticked) const {
  // A tick ends the wait within kWaitTickNs: no timeout of its own unless
  // the end of the run comes sooner.
  if (ticked && (end == 0 || end - now > kWaitTickNs)) return 0;
  if (end == 0) return kWaitTickNs;
  return std::clamp<int64_t>(end - now, 1, kWaitTickNs);
}

int64_t SubmitterThread::NextStallCheck(int64_t now) const {
  return io_timeout_ns_ != 0 ? now + StallCheckInterval(io_timeout_ns_)
                             : std::numeric_limits<int64_t>::max();
}

template <typename Cache>
bool SubmitterThread::PeriodicChecks(const Cache& cache, int64_t now) {
  start_priority_.Restore();  // nothing once restored
  if (now >= next_steer_ns_) {
    clock_.Steer();
    next_steer_ns_ = now + kSteerIntervalNs;
  }
  const bool stalled = now >= next_stall_check_ns_ && CheckStalls(cache, now);
  next_check_ns_ = std::min(next_steer_ns_, next_stall_check_ns_);
  return stalled;
}

template <typename Cache>
bool SubmitterThread::CheckStalls(const Cache& cache, int64_t now) {
  // While the thread runs, checks come a check interval apart (its waits
  // are bounded); the previous one was due then.
  const int64_t last_check_ns =
      next_stall_check_ns_ - StallCheckInterval(io_timeout_ns_);
  next_stall_check_ns_ = NextStallCheck(now);
  const std::optional<int64_t> oldest_ns = turns_->OldestSubmitNs();
  if (!oldest_ns.has_value() || now - *oldest_ns <= io_timeout_ns_) {
    return false;
  }
  // An I/O of that turn still in flight, for the report.
  const auto of_oldest_turn = [&](uint32_t slot) {
    return turns_->stamps(turn_of_[slot]).submit_ns == *oldest_ns;
  };
  const Request* oldest = nullptr;
  if constexpr (OwnsRequests<Cache>()) {
    // The thread's own requests: in flight unless the cache holds them.
    std::fill(free_scratch_.begin(), free_scratch_.end(), 0);
    cache.ForEachLocal([&](const Request* req) {
      free_scratch_[SlotOf<Cache>(req)] = 1;
    });
    for (uint32_t i = 0; i < queue_depth_ && oldest == nullptr; ++i) {
      if (free_scratch_[i] == 0 && of_oldest_turn(i)) {
        oldest = &requests_[i];
      }
    }
  } else {
    for (uint32_t i = 0; i < queue_depth_ && oldest == nullptr; ++i) {
      if (by_buffer_[i] != nullptr && of_oldest_turn(i)) oldest = by_buffer_[i];
    }
  }
  if (oldest == nullptr) return false;  // unreachable: the turn holds I/O
  const int64_t outstanding_ns = now - *oldest_ns;
  stall_reported_ = true;
  if (now - last_check_ns > io_timeout_ns_) {
    // This thread did not run for longer than io_timeout: the daemon was
    // stopped (SIGSTOP, a paused VM), so the I/O's time is not the
    // device's. Not an I/O error; the measurement holds the pause.
    ReportPause(now - last_check_ns, outstanding_ns);
    return true;
  }
  stats_.errors[ETIMEDOUT].Add(1);
  stats_.error_total.Add(1);
  ClaimErrorSite(ETIMEDOUT, oldest->target, oldest->offset);
  FirstError& stall = control_->fatal_error;
  if (!control_->fatal_claimed.exchange(true)) {
    stall.errno_value = ETIMEDOUT;
    stall.target = spec_.spec.targets[oldest->target].path;
    stall.offset = oldest->offset;
    stall.message = absl::StrCat(
        "I/O timeout: ", oldest->is_write ? "write" : "read", " of ",
        oldest->length, " bytes at ", stall.target, " offset ", oldest->offset,
        " outstanding for ",
        absl::FormatDuration(absl::Nanoseconds(outstanding_ns)),
        " (io_timeout ",
        absl::FormatDuration(absl::Nanoseconds(io_timeout_ns_)),
        "; submitter thread ", index_, " has ", inflight_,
        " I/Os outstanding): the device stopped completing");
    control_->fatal_published.store(true, std::memory_order_release);
  }
  control_->stop.store(true);
  return true;
}

void SubmitterThread::ReportPause(int64_t paused_ns, int64_t outstanding_ns) {
  FirstError& pause = control_->fatal_error;
  if (!control_->fatal_claimed.exchange(true)) {
    pause.errno_value = 0;
    pause.message = absl::StrCat(
        "the daemon was paused: submitter thread ", index_, " did not run for ",
        absl::FormatDuration(
            absl::Trunc(absl::Nanoseconds(paused_ns), absl::Milliseconds(1))),
        " (its I/O checks are ",
        absl::FormatDuration(
            absl::Nanoseconds(StallCheckInterval(io_timeout_ns_))),
        " apart; the process was stopped, e.g. SIGSTOP, or its VM paused), "
        "so an I/O outstanding for ",
        absl::FormatDuration(absl::Trunc(absl::Nanoseconds(outstanding_ns),
                                         absl::Milliseconds(1))),
        " is not the device's doing; the measurement includes the pause");
    control_->fatal_published.store(true, std::memory_order_release);
  }
  control_->stop.store(true);
}

// For submitter_test.cc (the stall check against a fake ring's I/O).
template bool SubmitterThread::CheckStalls(const PerCpuRequestCache<Request>&,
                                           int64_t);

// For submitter_test.cc, which runs these steps against a fake ring: copies
// of their bodies of their own, so the loop's Prepare and Reap keep one
// caller each (Run) and inline there as before.
template <IoMode kMode, typename Cache>
uint32_t SubmitterThread::PrepareOutOfLine(Cache& cache, uint32_t max_ios,
                                           uint16_t turn_slot,
                                           bool measuring) {
  return PrepareBody<false, kMode>(cache, max_ios, turn_slot, measuring,
                                   /*now_ns=*/0);
}
template uint32_t SubmitterThread::PrepareOutOfLine<IoMode::kPlain>(
    PerCpuRequestCache<Request>&, uint32_t, uint16_t, bool);
template uint32_t SubmitterThread::PrepareOutOfLine<IoMode::kPlain>(
    SharedRequestCache<Request>&, uint32_t, uint16_t, bool);

template <typename Cache>
uint32_t SubmitterThread::ReapOutOfLine(Cache& cache, bool measuring,
                                        int64_t now_ns) {
  return Reap<false>(cache, measuring, now_ns);
}
template uint32_t SubmitterThread::ReapOutOfLine(PerCpuRequestCache<Request>&,
                                                 bool, int64_t);
template uint32_t SubmitterThread::ReapOutOfLine(SharedRequestCache<Request>&,
                                                 bool, int64_t);

}  // namespace blkperf::internal
