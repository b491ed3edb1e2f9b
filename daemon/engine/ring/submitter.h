// One pinned submitter thread: its ring, registered buffers, request objects
// and the batched submit/reap loop (the shape of fio's t/io_uring). Internal
// to the engine; Workload owns and drives these. (submitter_test.cc runs
// this example, UsageExampleRunsANopWorkload.)
//
//   SubmitterControl control;                 // shared_requests, strategies
//   SubmitterThread s(resolved_spec, index, fds, &control);
//   std::thread t([&] { s.ThreadMain(loop_done); });  // set up, gate, run
//   s.ready().WaitForNotification();
//   if (!s.setup_status().ok()) ...  // control.abort = true; go.Open(); join
//   control.go.Open();                // every submitter starts
//   ... s.Snapshot(&thread_snapshot) from any thread, any time ...
//   ... loop_done() is called once the loop ended and its I/O drained ...
//   control.stop = true; t.join();
//
// Files: submitter.cc the thread body and the loop (one translation unit,
// so its steps inline), submitter_setup.cc set-up and tear-down,
// submitter_stats.cc snapshots and phase marks, submitter_faults.cc failed
// I/Os and enters. Its state objects, each with its own test: the offset
// cursor (offset_cursor.h), the shaped issuer (shaped_issuer.h), the CPU
// times (thread_cpu_times.h), the free buffer slots (buffer_slot_queue.h),
// the random bits (xorshift.h), the stats (thread_stats.h) and the control
// block (submitter_control.h).
//
// Threading: everything but Snapshot() and the control block runs on the
// submitter's own thread. Statistics are single-writer relaxed atomics so
// Snapshot() from another thread is race-free without slowing the writer.
#ifndef BLKPERF_DAEMON_ENGINE_RING_SUBMITTER_H_
#define BLKPERF_DAEMON_ENGINE_RING_SUBMITTER_H_

#include <liburing.h>
#include <sys/uio.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "daemon/engine/host/io_worker_cpu.h"
#include "daemon/engine/host/page_placement.h"
#include "daemon/engine/host/realtime_priority.h"
#include "daemon/engine/ring/buffer_slot_queue.h"
#include "daemon/engine/ring/io_buffers.h"
#include "daemon/engine/ring/io_prep.h"
#include "daemon/engine/ring/io_turn.h"
#include "daemon/engine/ring/offset_cursor.h"
#include "daemon/engine/ring/request_cache.h"
#include "daemon/engine/ring/request.h"
#include "daemon/engine/ring/ring_sizing.h"
#include "daemon/engine/ring/shaped_issuer.h"
#include "daemon/engine/ring/start_gate.h"
#include "daemon/engine/ring/submitter_control.h"
#include "daemon/engine/ring/thread_cpu_times.h"
#include "daemon/engine/ring/thread_stats.h"
#include "daemon/engine/ring/turn_clock.h"
#include "daemon/engine/ring/turn_log.h"
#include "daemon/engine/ring/xorshift.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/split/split_plan.h"
#include "daemon/engine/verify/verify_tracker.h"
#include "model/histogram.h"
#include "model/slo_search.h"
#include "model/snapshot.h"

namespace blkperf::internal {

// The note a closed-loop run in latency_mode batch carries: its slat and
// clat are not fio's (the enter that submits also waits for completions).
std::string BatchLatencyNote(uint32_t complete_batch);

// Queue limits of a target as the splitter wants them.
DeviceSplitLimits SplitLimitsFor(const TargetInfo& target);

// The first error of a failed io_uring_enter: no target or offset is to
// blame, so it names the thread and what the call was doing.
FirstError EnterFailure(int thread, int error_number, uint32_t sqes,
                        unsigned wait_nr);

// "EIO" for EIO (glibc's name), else "errno N".
std::string ErrnoName(int error_number);
// Of a ThreadStats error slot: its name ("EIO", "short transfer", "verify
// mismatch") and the errno value reports carry for it.
std::string SlotName(int slot);
int SlotErrno(int slot);

// Longest a wait for completions blocks before the loop looks at stop, the
// end of the run and io_timeout again.
inline constexpr int64_t kWaitTickNs = 50'000'000;

// How often the loop looks for I/O outstanding past `io_timeout_ns`: a
// quarter of it (at least 1 ms), so a stall is reported within 1.25x.
inline int64_t StallCheckInterval(int64_t io_timeout_ns) {
  return std::max<int64_t>(io_timeout_ns / 4, 1'000'000);
}

// Plans `strategy` on every target of `spec` for I/O buffers made of
// 2^page_shift-byte pages: appends one Splitter per target to `*splitters`
// (when not null) and returns the most pieces one I/O may be cut into.
absl::StatusOr<uint32_t> PlanSplitters(const ResolvedSpec& spec,
                                       const SplitStrategy& strategy,
                                       unsigned page_shift,
                                       std::vector<Splitter>* splitters);

// Whether a submitter's requests all stay its own under request cache
// `Cache`: a PerCpuRequestCache is filled with exactly the thread's
// queue_depth requests and has that capacity, so it never flushes to, nor
// takes from, the shared pool. Request i then keeps buffer slot i, and the
// loop keeps no buffer free list. Shared-pool requests move between threads
// and take a free buffer slot of the thread that gets them.
template <typename Cache>
constexpr bool OwnsRequests() {
  return std::is_same_v<Cache, PerCpuRequestCache<Request>>;
}

class SubmitterThread {
  // submitter_test.cc: runs Prepare and Reap against a fake ring.
  friend class SubmitterThreadPeer;

 public:
  SubmitterThread(const ResolvedSpec& spec, int index, std::vector<int> fds,
                  SubmitterControl* control);
  ~SubmitterThread();
  SubmitterThread(const SubmitterThread&) = delete;
  SubmitterThread& operator=(const SubmitterThread&) = delete;

  // The thread's body: Setup, ready, wait for go, run, drain, tear down.
  // Calls `loop_done` once its loop has ended and its I/O drained, or once
  // it gave up draining I/O a stalled device holds (then it keeps waiting
  // for that I/O, touching nothing but its own ring, and tears down when it
  // completes).
  void ThreadMain(const std::function<void()>& loop_done);
  // True when the loop gave up on I/O a stalled device still holds.
  bool abandoned() const { return abandoned_.load(std::memory_order_acquire); }

  // Notified once setup finished (either way); then setup_status() is final.
  absl::Notification& ready() { return ready_; }
  const absl::Status& setup_status() const { return setup_status_; }
  // How the ring was set up; valid after ready().
  const RingSetup& ring_setup() const { return ring_setup_; }
  const std::vector<std::string>& notes() const { return notes_; }
  // True once the loop has exited and in-flight I/O drained.
  bool exited() const { return exited_.load(std::memory_order_acquire); }
  // Where this thread's I/O buffers' pages lay when its loop ended
  // (page_placement.h): read then, once, since the kernel faults plain
  // read buffers in during the run. An empty placement when the thread
  // has no buffers (NOP) or its loop never ran. Valid once the workload
  // has finished (Workload's finished_, which the thread notifies after).
  const absl::StatusOr<PagePlacement>& buffer_placement() const {
    return buffer_placement_;
  }
  // Monotonic ns of this thread's last reap (the end of its measured time).
  int64_t last_reap_ns() const {
    return last_reap_ns_.load(std::memory_order_acquire);
  }

  // CLOCK_MONOTONIC and CLOCK_REALTIME ns at which the thread left the start
  // gate, immediately before it prepared and submitted its first batch; 0
  // until then (and for a thread that never ran). Read monotonic first: the
  // realtime stamp is valid once it is non-zero.
  int64_t first_submit_monotonic_ns() const {
    return first_submit_monotonic_ns_.load(std::memory_order_acquire);
  }
  int64_t first_submit_realtime_ns() const {
    return first_submit_realtime_ns_.load(std::memory_order_relaxed);
  }
  // Of a thread released at a start instant (Workload::Go): whether its
  // wait for the instant and its first turn ran at real-time priority
  // (realtime_priority.h), and if not why (the refusal's text). Valid once
  // first_submit_monotonic_ns() is non-zero; false and empty for a thread
  // started at once.
  bool start_wait_realtime() const { return start_wait_realtime_; }
  const std::string& start_wait_error() const { return start_wait_error_; }

  // Any thread: copies this thread's counters into `out`; its io-wq and
  // SQPOLL CPU as of the last sample of control->io_worker_cpu (take one
  // for all submitters first: Workload::SampleIoWorkers).
  void Snapshot(ThreadSnapshot* out) const;
  // Any thread, once, at the start of the measured window (Workload: when
  // the ramp ends, or at launch with none): takes this thread's CPU time and
  // its kernel workers' so far (sample control->io_worker_cpu first), which
  // every later snapshot's CPU times leave out. Until then they are zero,
  // as the counts are: neither the setup (the buffers' fill, the
  // registrations) nor the ramp is in the window.
  void MarkCpuBaseline();
  // Any thread: where this thread's counts end the phase before split
  // generation `generation` (Workload::SwitchLocked). The thread takes a
  // generation up at the start of the first loop turn that sees it, so an
  // I/O counts in the phase in force when its thread reaped it. False
  // while the thread has neither taken `generation` up nor left its loop
  // (a turn's wait lasts at most kWaitTickNs); otherwise `out` holds its
  // counts when it took `generation` up (zero when its loop had not begun
  // at the publication, its final counts when the loop ended first) and
  // its CPU as Snapshot() reads it now. Call once `generation` is
  // published and before the next one is.
  bool PhaseBoundary(uint32_t generation, ThreadSnapshot* out) const;
  // The thread's kernel id once ThreadMain has begun, else 0.
  pid_t tid() const { return tid_; }
  // Any thread: adds this thread's verify figures (records once exited).
  void AddVerify(VerifySummary* out) const;

 private:
  absl::Status Setup();
  // Records whether the thread waits for a scheduled start at real time
  // (`raised`: start_priority_.Raise()'s answer, taken before the gate).
  void NoteStartWait(const absl::Status& raised);
  void StampFirstSubmit();
  // Builds this thread's splitters for `strategy` (validated by Workload).
  absl::Status ApplyStrategy(const SplitStrategy& strategy);
  // Switches to the strategy of `generation` and marks the phase boundary:
  // the counts now, then the generation (PhaseBoundary reads them).
  void TakeUpSplitStrategy(uint32_t generation);
  // The strategy of `generation`, unless it is in force already.
  void FollowSplitGeneration(uint32_t generation);
  // Snapshot() but for the thread's index, CPU and CPU times.
  void CountsTo(ThreadSnapshot* out) const;
  // CPU times of the measured window (zero before it starts).
  void CpuTimesTo(ThreadSnapshot* out) const;
  // Setup's steps, in order.
  absl::Status PinToCpu();
  absl::Status AllocateBuffers();
  // Request objects, buffer slots, turn arrays and the request cache.
  absl::Status AllocateRequests();
  // The note batch-mode latencies carry (BatchLatencyNote).
  void NoteBatchLatency();
  // Ring entries for every piece of every in-flight I/O; the splitters.
  absl::Status SizeRing();
  // The ring (polled as the spec asks, or falling back when the targets
  // cannot poll, noted), its registrations and the buffers' first fill.
  absl::Status SetUpPolledRing();
  // This thread's share of io_count (noted when it has none).
  void SetIoQuota();
  absl::Status SetUpRing(bool polled);
  absl::Status RegisterResources();
  // With IOPOLL: reads one block of each target; false on -EOPNOTSUPP.
  absl::StatusOr<bool> ProbePolling();
  // Passes one NOP through the ring (see the .cc).
  absl::Status WarmUpRing();
  // Arms the ring's wait tick where it applies and reports which bound the
  // waits have (ring_setup_.wait_bound); a kernel that refuses it leaves
  // every wait with a timeout of its own, noted.
  absl::Status StartWaitTick();
  void TearDownRing();

  // Runs the loop of this thread's group and I/O mode (RunLoop chooses
  // once). kShaped: the loop of a shaped group (offset tables, size mixes,
  // open-loop pacing, syncs, trims), which preps through prep_; else the
  // plain one, compiled per I/O mode kMode with its prep inlined.
  template <typename Cache>
  void RunLoop(Cache& cache);
  template <bool kShaped, IoMode kMode, typename Cache>
  void Run(Cache& cache);
  // Prepares up to `max_ios` I/Os of the turn in `turn_slot` (TurnLog);
  // returns how many. Always inlined into its one caller, Run: left to its
  // heuristics, gcc stopped inlining the plain per-CPU-cache loop's
  // Prepare when the state objects came (one call per turn).
  template <bool kShaped, IoMode kMode, typename Cache>
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t Prepare(Cache& cache, uint32_t max_ios,
                                                uint16_t turn_slot,
                                                bool measuring, int64_t now_ns);
  // Prepare's code, always inlined: into Prepare (whose one caller, Run,
  // inlines it in turn) and into PrepareOutOfLine.
  template <bool kShaped, IoMode kMode, typename Cache>
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t PrepareBody(Cache& cache,
                                                    uint32_t max_ios,
                                                    uint16_t turn_slot,
                                                    bool measuring,
                                                    int64_t now_ns);
  // The plain loop's Prepare, out of line: for submitter_test.cc.
  template <IoMode kMode, typename Cache>
  uint32_t PrepareOutOfLine(Cache& cache, uint32_t max_ios, uint16_t turn_slot,
                            bool measuring);
  // The plain loop's Prepare when every I/O is one SQE (split none, no
  // verify): the requests of the batch taken at once, loop invariants in
  // locals.
  template <IoMode kMode, typename Cache>
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t PrepareUnsplit(Cache& cache,
                                                       uint32_t max_ios,
                                                       uint16_t turn_slot,
                                                       bool measuring);
  // The buffer slot of `req`: its index for the thread's own requests (no
  // read of the request), else the slot it was given.
  template <typename Cache>
  uint32_t SlotOf(const Request* req) const {
    if constexpr (OwnsRequests<Cache>()) {
      return static_cast<uint32_t>(req - requests_.get());
    } else {
      return req->buffer;
    }
  }
  // A completed request goes back through one reap's run of Puts: not in
  // flight, its buffer slot freed. kFits: with a Put that cannot flush
  // (REQUIRES: puts.room() > 0).
  template <typename Cache, bool kFits = false>
  void Release(typename Cache::PutRun& puts, Request* req);
  // Right after a turn's enter: starts loading every line the reap and the
  // next prepare touch first, each on a page of its own, so their TLB
  // misses overlap instead of stalling one after another (see the .cc).
  template <typename Cache>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void PrefetchTurnState(const Cache& cache,
                                                      uint16_t turn_slot);
  // Inlined into the loop: its code sits with the loop's own, on pages a
  // turn touches anyway (KernelRing says why that counts).
  template <bool kShaped, typename Cache>
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t Reap(Cache& cache, bool measuring,
                                             int64_t now_ns);
  // The plain loop's Reap, out of line: for submitter_test.cc (Reap is
  // always inlined, so a caller outside the .cc needs a copy of its own).
  template <typename Cache>
  uint32_t ReapOutOfLine(Cache& cache, bool measuring, int64_t now_ns);
  // What one reap of the plain loop counts of the CQEs it hands to
  // FinishOther.
  struct OtherTally {
    uint32_t cqes = 0;       // CQEs handed over, wait ticks included
    uint32_t ticks = 0;      // wait ticks among them
    uint32_t completed = 0;  // logical I/Os they completed
    // Measured, successful, not failing verify, by direction.
    uint64_t read_ios = 0, write_ios = 0;
  };
  // The shaped loop's: by IoKind instead, bytes too, and the late ones.
  struct ShapedTally : OtherTally {
    uint64_t kind_ios[kIoKinds] = {}, kind_bytes[kIoKinds] = {}, late = 0;
  };
  template <bool kShaped>
  using TallyFor = std::conditional_t<kShaped, ShapedTally, OtherTally>;
  // A logical I/O that a CQE completed.
  struct Finished {
    Request* req = nullptr;  // nullptr: the CQE completed none
    bool timed = false;      // its latencies count
  };
  // A CQE the reap does not account from its tag alone: a piece of a split
  // I/O, a failure or short transfer, verify's and the shaped loop's I/Os,
  // a wait tick. Counts it in `*tally`, handles errors and verify, and
  // returns the request, reset to a free request's values, when its
  // logical I/O is complete. Reap still adds it to the turn's run and
  // releases it.
  template <bool kShaped>
  ABSL_ATTRIBUTE_ALWAYS_INLINE Finished FinishOther(const io_uring_cqe& cqe,
                                                    bool measuring,
                                                    int64_t now_ns,
                                                    TallyFor<kShaped>* tally);
  // The plain loop's FinishOther, out of line (Reap says why).
  ABSL_ATTRIBUTE_NOINLINE Finished FinishOtherOutOfLine(
      const io_uring_cqe& cqe, bool measuring, int64_t now_ns,
      OtherTally* tally);
  // Offsets (the plain loop's cursor, the shaped loop's issuer), at setup.
  absl::Status SetUpOffsets();
  // Shaped loop: a new rate generation restarts the schedule at `now_ns`.
  void FollowRate(int64_t now_ns);
  // Shaped loop: the wait of one turn (wait_nr, timeout) under pacing.
  unsigned OpenLoopWait(uint32_t room, uint32_t prepped, int64_t now,
                        int64_t* timeout_ns) const;
  // Reaps what is left; false when a stalled I/O outlived the drain.
  template <bool kShaped, typename Cache>
  bool Drain(Cache& cache);
  // After Drain gave up: waits, reaping nothing but CQEs, until the device
  // returns every piece, so the ring and buffers can go.
  void WaitOutAbandoned();
  // The timeout a wait passes now: at most kWaitTickNs, and never past the
  // end of the run; 0 (none) when `ticked` (the ring's wait tick,
  // wait_tick.h, ends the wait within kWaitTickNs) and the end is further.
  int64_t WaitTimeout(int64_t now, int64_t end, bool ticked) const;
  // The loop's checks not due every turn (next_check_ns_): the start's
  // real-time priority dropped after the first turn, then the clock's
  // steer (once a second) and the stall check.
  // True when the loop must end (a stall).
  template <typename Cache>
  ABSL_ATTRIBUTE_NOINLINE bool PeriodicChecks(const Cache& cache, int64_t now);
  // When the next stall check is due after `now` (never without io_timeout).
  int64_t NextStallCheck(int64_t now) const;
  // Fails the workload when an I/O has been outstanding > io_timeout.
  template <typename Cache>
  ABSL_ATTRIBUTE_NOINLINE bool CheckStalls(const Cache& cache, int64_t now);
  // Fails the workload as paused (not a device stall): this thread did not
  // run for `paused_ns`, longer than io_timeout.
  void ReportPause(int64_t paused_ns, int64_t outstanding_ns);
  ABSL_ATTRIBUTE_NOINLINE void OnEnterError(int ret, uint32_t sqes,
                                            unsigned wait_nr);
  void ClaimErrorSite(int errno_value, uint16_t target, uint64_t offset);
  // Preps one piece of `req` with user_data `tag`.
  template <bool kShaped, IoMode kMode>
  void PrepPiece(io_uring_sqe* sqe, Request* req, uint64_t piece_offset,
                 uint32_t piece_length, uint64_t tag);
  // The plain loop's direction draw: true (a write) with probability
  // (100 - read_percent) %; no random number drawn at 0 or 100.
  bool DrawIsWrite(uint32_t read_percent);
  // The target after `cursor` of `targets`, round robin.
  static uint32_t NextTarget(uint32_t cursor, uint32_t targets) {
    return cursor + 1 == targets ? 0 : cursor + 1;
  }
  ABSL_ATTRIBUTE_NOINLINE void OnIoError(Request* req, bool measuring);
  // verify: checks a completed I/O; false on a mismatch (counted here).
  ABSL_ATTRIBUTE_NOINLINE bool VerifyCompletion(Request* req, bool failed);

  // Setup-time copies of the spec (the hot loop reads only these members).
  const ResolvedSpec& spec_;
  const GroupShape& group_;  // this thread's job group
  const int index_;
  const int cpu_;
  const std::vector<int> fds_;
  SubmitterControl* const control_;
  const uint32_t queue_depth_;
  const uint32_t submit_batch_;
  const uint32_t complete_batch_;
  const uint32_t block_size_;
  // The plain loop's bytes per I/O: block_size_, or 0 for NOP (a NOP
  // completes with 0 and moves no data).
  const uint32_t io_length_;
  const bool fixed_buffers_;
  const IoMode io_mode_;
  // The shaped loop's prep: PrepFunctionFor(io_mode_), or the trim prep of
  // a trim group (the plain loop inlines PrepIo<kMode>).
  const PrepFn prep_;
  const bool registered_files_;
  const uint8_t sqe_flags_;  // IOSQE_FIXED_FILE / IOSQE_ASYNC per the spec
  const bool latency_tracking_;
  const LatencyMode latency_mode_;
  const int64_t io_timeout_ns_;  // 0: no stall detection
  const bool verify_;
  const bool continue_on_error_;
  const uint32_t read_percent_;  // 100 for reads, 0 for writes
  uint64_t io_quota_ = 0;        // measured logical I/Os to do; 0 = no limit
  // The plain loop's offsets; the shaped loop's I/Os and their schedule.
  OffsetCursor offsets_;
  ShapedIssuer issuer_;
  std::vector<Splitter> splitters_;     // one per target
  bool split_none_ = true;              // every splitter is `none`
  uint32_t split_generation_ = 0;       // of control_->split_strategies

  // Owned resources, created on the submitter thread.
  io_uring ring_{};
  bool ring_ready_ = false;
  bool polled_ = false;
  // The ring's wait tick runs (wait_tick.h): the plain loop's waits pass no
  // timeout of their own. Cleared if the kernel ends the tick.
  bool wait_tick_ = false;
  IoBuffers io_buffers_;
  char* buffers_ = nullptr;       // io_buffers_.base()
  // Bytes from one buffer slot to the next: block_size_, or 0 for NOP (one
  // page stands for every slot; a NOP touches none).
  size_t slot_bytes_ = 0;
  uint16_t buf_index_mask_ = 0;   // io_buffers_.buf_index_mask()
  unsigned page_shift_ = 12;
  IovecRing piece_iovecs_;        // vectored mode: per in-flight piece
  // Shared cache: the free buffer slots.
  BufferSlotQueue free_buffers_;
  std::unique_ptr<Request[]> requests_;
  Xorshift rng_;
  uint32_t target_cursor_ = 0;
  uint32_t inflight_ = 0;
  uint32_t pieces_inflight_ = 0;  // SQEs submitted and not yet reaped
  // The requests taken for this turn; with the shared cache, the one in
  // flight on each buffer slot (the stall check's); the stall check's
  // scratch: sized at setup.
  std::vector<Request*> batch_;
  std::vector<Request*> by_buffer_;
  std::vector<uint8_t> free_scratch_;
  // The TurnLog slot of the request on each buffer slot (its last turn).
  std::vector<uint16_t> turn_of_;
  // The stamps and outstanding I/Os of each turn with I/O in flight.
  std::unique_ptr<TurnLog> turns_;
  // The loop's clock (turn_clock.h): every stamp and `now` of Run and Drain.
  TurnClock clock_;
  // When the loop next runs PeriodicChecks(): the first turn's end while
  // the start's real-time priority is held, then the earlier of the next
  // clock steer and the next stall check (never without io_timeout).
  int64_t next_check_ns_ = 0;
  int64_t next_steer_ns_ = 0;
  int64_t next_stall_check_ns_ = 0;
  bool stall_reported_ = false;
  std::atomic<bool> abandoned_{false};

  absl::Status setup_status_;
  absl::Notification ready_;
  RingSetup ring_setup_;
  std::vector<std::string> notes_;
  // Timed in batch turns (ThreadSnapshot::batch_turns); set at setup.
  bool batch_turns_ = false;
  std::atomic<bool> exited_{false};
  std::atomic<int64_t> last_reap_ns_{0};
  std::atomic<int64_t> first_submit_monotonic_ns_{0};
  std::atomic<int64_t> first_submit_realtime_ns_{0};
  // Held from before the wait for a start instant to the end of the first
  // turn; written before first_submit_monotonic_ns_ (its release store).
  RealtimePriority start_priority_;
  bool start_wait_realtime_ = false;
  std::string start_wait_error_;
  pid_t tid_ = 0;
  // Exactly one of these exists (per spec.request_cache), built in Setup().
  std::unique_ptr<PerCpuRequestCache<Request>> per_cpu_cache_;
  std::unique_ptr<SharedRequestCache<Request>> shared_cache_;
  uint32_t max_pieces_ = 1;      // pieces one logical I/O may need
  uint32_t ring_entries_ = 0;
  uint64_t finished_ios_ = 0;    // measured I/Os completed or failed
  // Its CPU time at exit and at the measured window's start.
  ThreadCpuTimes cpu_times_;
  absl::StatusOr<PagePlacement> buffer_placement_ = PagePlacement{};

  std::unique_ptr<VerifyTracker> verifier_;  // spec.verify only

  ThreadStats stats_;

  // Phase boundaries (PhaseBoundary), after everything the loop touches
  // per I/O: the counts when the thread took up taken_generation_, written
  // before that is release-stored. The workload reads the mark after
  // seeing its generation there and publishes the next generation only
  // after, so the thread never rewrites a mark being read. Sentinels: the
  // loop has not begun, or is taking up its first generation.
  static constexpr uint32_t kLoopNotBegun = ~uint32_t{0};
  static constexpr uint32_t kLoopBeginning = ~uint32_t{0} - 1;
  alignas(64) std::atomic<uint32_t> taken_generation_{kLoopNotBegun};
  std::atomic<bool> loop_ended_{false};  // measured counts are final
  ThreadSnapshot phase_mark_;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_SUBMITTER_H_
