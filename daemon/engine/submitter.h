// One pinned submitter thread: its ring, registered buffers, request objects
// and the batched submit/reap loop (the shape of fio's t/io_uring). Internal
// to the engine; Workload owns and drives these.
//
//   SubmitterThread s(spec, index, fds, &control);
//   std::thread t([&] { s.ThreadMain(); });   // sets up, waits for go, runs
//   s.ready().WaitForNotification();
//   if (!s.setup_status().ok()) ...           // control.abort + go, join
//   ... control.go.Notify(); ... s.Snapshot(&out) any time ...
//
// Threading: everything but Snapshot() and the control block runs on the
// submitter's own thread. Statistics are single-writer relaxed atomics so
// Snapshot() from another thread is race-free without slowing the writer.
#ifndef BLKPERF_DAEMON_ENGINE_SUBMITTER_H_
#define BLKPERF_DAEMON_ENGINE_SUBMITTER_H_

#include <liburing.h>
#include <sys/uio.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "daemon/engine/histogram.h"
#include "daemon/engine/request_cache.h"
#include "daemon/engine/snapshot.h"
#include "daemon/engine/spec_validation.h"
#include "daemon/engine/split_plan.h"
#include "daemon/engine/verify_tracker.h"

namespace blkperf::internal {

// A logical I/O in flight. Lives in arrays sized at setup; the request caches
// hand out pointers to these, and the pointer is the SQE's user_data.
struct alignas(64) Request {
  uint64_t offset = 0;     // device offset of the logical I/O
  int64_t submit_ns = 0;   // when its first piece was submitted
  uint32_t length = 0;
  uint32_t pieces_left = 0;
  uint16_t target = 0;     // index into the workload's targets
  uint16_t buffer = 0;     // registered buffer slot of the submitter
  bool is_write = false;
  int32_t result = 0;      // first failing piece's negative errno, else 0
  uint32_t done_bytes = 0; // bytes its completed pieces transferred
  uint32_t verify_value = 0;  // verify: VerifyTracker::Begin's result
};

// A counter written by exactly one thread and read by others: relaxed load +
// store (never a read-modify-write), so the writer pays a plain add.
class SingleWriterCounter {
 public:
  void Add(uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) + n,
                 std::memory_order_relaxed);
  }
  void Set(uint64_t n) { value_.store(n, std::memory_order_relaxed); }
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Errno slots: real errnos 1..kMaxErrno-1, then the two pseudo errnos.
inline constexpr int kMaxErrno = 134;
inline constexpr int kShortTransferSlot = kMaxErrno;
inline constexpr int kVerifyMismatchSlot = kMaxErrno + 1;
inline constexpr int kErrorSlots = kMaxErrno + 2;

// Written only by the owning submitter. Its own cache lines.
struct alignas(64) ThreadStats {
  SingleWriterCounter ios;
  SingleWriterCounter bytes;
  SingleWriterCounter read_ios;
  SingleWriterCounter read_bytes;
  SingleWriterCounter write_ios;
  SingleWriterCounter write_bytes;
  SingleWriterCounter sqes;
  SingleWriterCounter enter_calls;
  SingleWriterCounter inflight;
  SingleWriterCounter error_total;
  std::array<SingleWriterCounter, kErrorSlots> errors;
  LiveLatencyHistogram latency;
};

// The workload-wide control block the submitters read (and only Workload
// writes, apart from `first_error_claimed`).
struct alignas(64) SubmitterControl {
  // Set by Workload before `go`: absolute CLOCK_MONOTONIC nanoseconds.
  int64_t measure_start_ns = 0;
  int64_t end_ns = 0;  // 0: no time limit
  absl::Notification go;
  std::atomic<bool> abort{false};  // setup failed elsewhere: exit without I/O
  alignas(64) std::atomic<bool> stop{false};  // read once per loop turn
  // The submitter whose error stops the workload claims this first.
  alignas(64) std::atomic<bool> first_error_claimed{false};
  FirstError first_error;  // written by the claimant, then published
  std::atomic<bool> first_error_published{false};
  SharedRequestPool<Request>* shared_requests = nullptr;
  // Pieces per logical I/O the rings are sized for (every strategy a
  // workload may switch to must fit).
  uint32_t piece_capacity = 1;
  // Live split-strategy switching: Workload writes split_strategies[g] and
  // then publishes g with a release store; submitters poll the generation
  // once per loop turn (one relaxed load of a read-mostly line) and rebuild
  // their splitters when it changes. Entries are never rewritten.
  alignas(64) std::atomic<uint32_t> split_generation{0};
  std::array<SplitStrategy, 1024> split_strategies{};
  // spec.verify: the generation tables (owned by Workload).
  const VerifySetup* verify = nullptr;
};

// Queue limits of a target as the splitter wants them.
DeviceSplitLimits SplitLimitsFor(const TargetInfo& target);

// Most SQEs a ring can hold (IORING_MAX_ENTRIES).
inline constexpr uint32_t kMaxRingEntries = 32768;

// Plans `strategy` on every target of `spec` for I/O buffers made of
// 2^page_shift-byte pages: appends one Splitter per target to `*splitters`
// (when not null) and returns the most pieces one I/O may be cut into.
absl::StatusOr<uint32_t> PlanSplitters(const ResolvedSpec& spec,
                                       const SplitStrategy& strategy,
                                       unsigned page_shift,
                                       std::vector<Splitter>* splitters);

class SubmitterThread {
 public:
  SubmitterThread(const ResolvedSpec& spec, int index, std::vector<int> fds,
                  SubmitterControl* control);
  ~SubmitterThread();
  SubmitterThread(const SubmitterThread&) = delete;
  SubmitterThread& operator=(const SubmitterThread&) = delete;

  // The thread's body: Setup, ready, wait for go, run, drain, tear down.
  void ThreadMain();

  // Notified once setup finished (either way); then setup_status() is final.
  absl::Notification& ready() { return ready_; }
  const absl::Status& setup_status() const { return setup_status_; }
  // How the ring was set up; valid after ready().
  const RingSetup& ring_setup() const { return ring_setup_; }
  const std::vector<std::string>& notes() const { return notes_; }
  // True once the loop has exited and in-flight I/O drained.
  bool exited() const { return exited_.load(std::memory_order_acquire); }
  // Monotonic ns of this thread's last reap (the end of its measured time).
  int64_t last_reap_ns() const {
    return last_reap_ns_.load(std::memory_order_acquire);
  }

  // Any thread: copies this thread's counters into `out`.
  void Snapshot(ThreadSnapshot* out) const;
  // Any thread: adds this thread's verify figures (records once exited).
  void AddVerify(VerifySummary* out) const;

 private:
  absl::Status Setup();
  // Builds this thread's splitters for `strategy` (validated by Workload).
  absl::Status ApplyStrategy(const SplitStrategy& strategy);
  absl::Status AllocateBuffers();
  absl::Status SetUpRing(bool polled);
  absl::Status RegisterResources();
  // With IOPOLL: reads one block of each target; false on -EOPNOTSUPP.
  absl::StatusOr<bool> ProbePolling();
  void TearDownRing();

  template <typename Cache>
  void Run(Cache& cache);
  template <typename Cache>
  uint32_t Prepare(Cache& cache, uint32_t max_ios, int64_t now_ns,
                   bool measuring);
  template <typename Cache>
  uint32_t Reap(Cache& cache, bool measuring, int64_t now_ns);
  template <typename Cache>
  void Drain(Cache& cache);
  void PrepPiece(io_uring_sqe* sqe, Request* req, uint64_t piece_offset,
                 uint32_t piece_length);
  uint64_t NextOffset(uint16_t target);
  uint64_t NextRandom();
  ABSL_ATTRIBUTE_NOINLINE void OnPieceError(Request* req, int32_t res,
                                            uint64_t piece_offset,
                                            uint32_t piece_length);
  ABSL_ATTRIBUTE_NOINLINE void OnIoError(Request* req, bool measuring);
  // verify: checks a completed I/O; false on a mismatch (counted here).
  ABSL_ATTRIBUTE_NOINLINE bool VerifyCompletion(Request* req, bool failed);

  // Setup-time copies of the spec (the hot loop reads only these members).
  const ResolvedSpec& spec_;
  const int index_;
  const int cpu_;
  const std::vector<int> fds_;
  SubmitterControl* const control_;
  const uint32_t queue_depth_;
  const uint32_t submit_batch_;
  const uint32_t complete_batch_;
  const uint32_t block_size_;
  const bool fixed_buffers_;
  const bool registered_files_;
  const uint8_t sqe_flags_;  // IOSQE_FIXED_FILE / IOSQE_ASYNC per the spec
  const bool latency_tracking_;
  const bool verify_;
  const bool continue_on_error_;
  const bool random_offsets_;
  const uint32_t read_percent_;  // 100 for reads, 0 for writes
  uint64_t io_quota_ = 0;        // measured logical I/Os to do; 0 = no limit
  std::vector<uint64_t> target_slots_;  // offsets per target (size / align)
  std::vector<uint64_t> seq_cursor_;    // sequential: next slot per target
  std::vector<Splitter> splitters_;     // one per target
  bool split_none_ = true;              // every splitter is `none`
  uint32_t split_generation_ = 0;       // of control_->split_strategies

  // Owned resources, created on the submitter thread.
  io_uring ring_{};
  bool ring_ready_ = false;
  bool polled_ = false;
  char* buffers_ = nullptr;
  size_t buffer_bytes_ = 0;
  bool huge_pages_ = false;
  unsigned page_shift_ = 12;
  std::vector<iovec> buffer_iovecs_;  // one per slot, registered
  std::vector<iovec> piece_iovecs_;   // non-fixed mode: per in-flight piece
  uint32_t piece_iovec_next_ = 0;
  std::vector<uint16_t> free_buffers_;
  uint32_t free_buffer_count_ = 0;
  std::unique_ptr<Request[]> requests_;
  uint64_t rng_state_ = 0;
  uint32_t target_cursor_ = 0;
  uint32_t inflight_ = 0;
  uint32_t pending_pieces_ = 0;  // pieces of one request not yet prepped

  absl::Status setup_status_;
  absl::Notification ready_;
  RingSetup ring_setup_;
  std::vector<std::string> notes_;
  std::atomic<bool> exited_{false};
  std::atomic<int64_t> last_reap_ns_{0};
  pid_t tid_ = 0;
  // Exactly one of these exists (per spec.request_cache), built in Setup().
  std::unique_ptr<PerCpuRequestCache<Request>> per_cpu_cache_;
  std::unique_ptr<SharedRequestCache<Request>> shared_cache_;
  uint32_t max_pieces_ = 1;      // pieces one logical I/O may need
  uint32_t ring_entries_ = 0;
  uint64_t finished_ios_ = 0;    // measured I/Os completed or failed
  // CPU time at exit (the /proc task entry goes away with the thread).
  std::atomic<double> final_user_seconds_{0};
  std::atomic<double> final_system_seconds_{0};
  std::atomic<double> final_worker_seconds_{0};

  std::unique_ptr<VerifyTracker> verifier_;  // spec.verify only

  ThreadStats stats_;
};

// CLOCK_MONOTONIC in nanoseconds (vDSO, no syscall).
int64_t MonotonicNanos();

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_SUBMITTER_H_
