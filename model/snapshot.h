// Figures of a workload at one moment: what Workload::Snapshot() returns and
// what the control plane, metrics and reports read. Plain values, mergeable.
//
//   WorkloadSnapshot s = workload.Snapshot();
//   double iops = s.total.Iops(s.elapsed);
//   uint64_t p99 = s.total.latency.Percentile(99);
#ifndef BLKPERF_MODEL_SNAPSHOT_H_
#define BLKPERF_MODEL_SNAPSHOT_H_

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "model/environment.h"
#include "model/histogram.h"
#include "model/series.h"
#include "model/slo_search.h"
#include "model/steady_state.h"

namespace blkperf {

enum class WorkloadState {
  kRamping,   // running, not yet measuring
  kRunning,   // measuring
  kStopping,  // stop asked or time up; draining in-flight I/O
  kFinished,  // ran to its runtime or I/O count
  kStopped,   // stopped by a user before its end
  kFailed,    // stopped by an I/O error or a stalled I/O (see `error`)
  // Ran to its end under continue_on_error, but I/O errors were counted
  // (total.ErrorTotal(), first ones in WorkloadSnapshot::error_sites).
  kFinishedWithErrors,
  kArmed,     // set up (rings, buffers, targets), waiting for Go; no I/O yet
  kAborted,   // ended by an abort (fleet runs: AbortRun or the arm lease)
  kCreating,  // filling its create_size files before any I/O (daemon only)
};
absl::string_view WorkloadStateName(WorkloadState state);
inline bool IsTerminal(WorkloadState state) {
  return state == WorkloadState::kFinished ||
         state == WorkloadState::kStopped || state == WorkloadState::kFailed ||
         state == WorkloadState::kFinishedWithErrors ||
         state == WorkloadState::kAborted;
}

// I/O errors of one kind. errno_value is positive; the two pseudo errnos
// below stand for a short transfer and for verification failures.
struct ErrorCount {
  int errno_value = 0;
  std::string name;  // "EIO", "short transfer", "verify mismatch"
  uint64_t count = 0;
};
inline constexpr int kShortTransferErrno = 1000;
inline constexpr int kVerifyMismatchErrno = 1001;

// Where one failed I/O was: the first kMaxErrorSites of a workload are kept.
struct ErrorSite {
  int errno_value = 0;
  std::string target;
  uint64_t offset = 0;
};
inline constexpr int kMaxErrorSites = 16;

// The first error a workload saw, with where it happened.
struct FirstError {
  int errno_value = 0;
  std::string target;
  uint64_t offset = 0;
  std::string message;  // "EIO (Input/output error) at /dev/x offset 4096"
};

// Counters of one submitter thread, or their sum (`thread_index` -1).
struct ThreadSnapshot {
  int thread_index = -1;
  int cpu = -1;
  uint64_t ios = 0;  // completed logical I/Os, measured phase only
  uint64_t bytes = 0;
  uint64_t read_ios = 0;
  uint64_t read_bytes = 0;
  uint64_t write_ios = 0;
  uint64_t write_bytes = 0;
  uint64_t sqes = 0;         // SQEs submitted (pieces)
  uint64_t enter_calls = 0;  // io_uring_enter calls made for submit and reap
  uint64_t inflight = 0;     // logical I/Os in flight now
  uint64_t cache_hits = 0;   // request objects from the thread's own cache
  uint64_t cache_misses = 0; // request objects from the shared pool
  double user_cpu_seconds = 0;
  double system_cpu_seconds = 0;
  // CPU of the kernel threads working for this submitter's ring: io-wq
  // workers ("iou-wrk-<tid>", where I/O the device cannot issue without
  // blocking is punted) and the SQPOLL thread ("iou-sqp-<tid>").
  double io_worker_cpu_seconds = 0;
  std::vector<ErrorCount> errors;
  // Logical I/O latencies in nanoseconds, over the same completed I/Os
  // (docs/numbers.md; daemon/engine/ring/io_turn.h):
  //   latency = submit_latency + completion_latency, per I/O exactly.
  LatencyHistogram latency;             // total: enter before .. reap
  LatencyHistogram submit_latency;      // slat: enter before .. enter after
  LatencyHistogram completion_latency;  // clat: enter after .. reap
  // The I/Os were timed in batch turns (latency_mode batch, closed loop):
  // the submitting enter also waited for complete_batch completions, so
  // submit_latency and completion_latency are not fio's slat and clat and
  // are named batch_wait and after_wait wherever they are shown (text,
  // JSON, API; docs/numbers.md). A sum is when any of its parts is.
  bool batch_turns = false;
  // Open loop only: from each I/O's intended issue time (rate_pacer.h) to
  // its reap, so queueing for a slot and a stalled device show in full.
  // Empty in closed loop.
  LatencyHistogram intended_latency;
  // Open loop only, over the same I/Os: issue lag, from each I/O's intended
  // issue time to the clock read right before the enter that submitted it
  // (the generator's own lateness plus any wait for a queue slot). Per I/O
  // exactly intended_latency = issue_lag + latency. Empty in closed loop.
  LatencyHistogram issue_lag;
  // Open loop: measured I/Os issued after their intended time because every
  // queue slot was taken when it was due (a turn waited with the queue full
  // past its intended time).
  uint64_t late_ios = 0;
  // Trims (in ios and bytes too) and syncs (not in ios).
  uint64_t trim_ios = 0;
  uint64_t trim_bytes = 0;
  uint64_t sync_ios = 0;

  uint64_t ErrorTotal() const;
  // Adds `other` (counters, errors by errno, histogram).
  void Merge(const ThreadSnapshot& other);
  // Removes what an earlier snapshot of the same counters had, leaving the
  // activity in between. `inflight` stays the later value.
  void Subtract(const ThreadSnapshot& earlier);
  double Iops(absl::Duration elapsed) const;
  double BytesPerSecond(absl::Duration elapsed) const;
  double IosPerCall() const;
  // The queue depth achieved: the mean number of logical I/Os in flight
  // over `elapsed`, by Little's law, iops x mean total latency (submission
  // to reap). 0 without latencies (latency_tracking off).
  double MeanInflight(absl::Duration elapsed) const;
};

// How the rings were actually set up, after feature probing and fallbacks.
struct RingSetup {
  std::vector<std::string> setup_flags;  // e.g. "SINGLE_ISSUER", "DEFER_TASKRUN"
  bool registered_ring_fd = false;
  bool fixed_buffers = false;
  bool registered_files = false;
  bool polled = false;
  bool sqpoll = false;
  bool huge_pages = false;  // I/O buffers backed by huge pages
  // Entries of each submitter's rings as the kernel set them up, and the
  // pieces per logical I/O they were sized for (ring_sizing.h).
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
  uint32_t pieces_per_io = 0;
  std::string buffer_layout;  // "per_slot" or "one_region"
  std::string io_mode;        // "fixed", "plain", "vectored" or "nop"
  // What bounds a wait for completions: "ring_tick" (the ring's multishot
  // timeout, wait_tick.h; the closed loop's enters pass no timeout) or
  // "enter_timeout" (each waiting enter passes one: polled and SQPOLL
  // rings, kernels before 6.4, the shaped loop's waits always).
  std::string wait_bound;
  // The submitter loop's clock (turn_clock.h): "tsc" (the invariant TSC,
  // scaled and steered onto CLOCK_MONOTONIC) or "clock_monotonic".
  std::string clock;
};

// Where the I/O buffers' 4 KiB pages lay in physical memory, over every
// submitter's buffers, read from /proc/self/pagemap as each loop ended
// (daemon/engine/host/page_placement.h). On 4 KiB pages it moves what plain
// buffers cost, and so what fixed vs plain buffers show, by a fifth and
// more at 1 MiB (bench/RESULTS.md).
struct BufferPlacement {
  // True once the run has finished and every thread's placement was read.
  bool read = false;
  // Why it could not be read (e.g. the kernel hides page frames without
  // CAP_SYS_ADMIN); empty when read, or while running.
  std::string unreadable;
  uint64_t pages_present = 0;
  // Of the pairs of present pages next to each other in virtual order, the
  // share whose page frames are next to each other too: 1 = one contiguous
  // run (hugetlb pages are), near 0 = scattered single pages.
  double adjacent_share = 0;
};

// What the block device(s) under the targets did, from /sys/block/<dev>/stat
// deltas: direct evidence of kernel splitting. Other users of the same device
// are counted too; the engine cannot know whether there are any.
struct DeviceCounters {
  bool available = false;   // false: a target has no block device (tmpfs...)
  uint64_t requests = 0;    // reads + writes completed by the device
  uint64_t merges = 0;      // requests the block layer merged
  uint64_t sectors = 0;
  // requests per SQE submitted in the same span (0 without SQEs).
  double requests_per_sqe = 0;
};

// One period of a single split strategy (a workload switches with
// SetSplitStrategy or its A/B schedule). Totals over phases equal the
// workload's totals exactly. Its time starts when its strategy was
// published; each thread's counts enter it at the turn the thread took the
// strategy up (SubmitterThread::PhaseBoundary).
struct PhaseSnapshot {
  int index = 0;
  std::string strategy;        // SplitStrategyName
  absl::Duration start;        // since the workload's measuring began
  absl::Duration end;          // == start + elapsed
  absl::Duration elapsed;
  ThreadSnapshot total;        // counters of this phase only
  DeviceCounters device;
  double PiecesPerIo() const {
    return total.ios != 0 ? static_cast<double>(total.sqes) / total.ios : 0;
  }
};

// A/B result per strategy: the median over its slices.
struct AbStrategyResult {
  std::string strategy;
  int slices = 0;
  double median_iops = 0;
  double median_bytes_per_second = 0;
  double ratio_to_first = 0;   // median_iops / the first strategy's
  // Set when the median rests on fewer than kMinAbSlices full slices.
  std::string note;
  // Against the first strategy, slice by slice (the k-th full slice of each
  // paired; experiment/statistics.h's PairedRatio): the median of the
  // pairs' IOPS ratios, its 95 % interval, the pairs, and the verdict
  // against a kAbMargin margin ("" for the first strategy or with no pair).
  double paired_ratio = 0;
  double paired_ratio_ci_low = 0;
  double paired_ratio_ci_high = 0;
  int pairs = 0;
  std::string verdict;
};
inline constexpr double kAbMargin = 0.02;
inline constexpr double kAbConfidence = 0.95;
inline constexpr int kMinAbSlices = 3;

// When a workload's I/O actually began, per its submitters' own clocks: each
// thread stamps CLOCK_MONOTONIC and CLOCK_REALTIME as it leaves the start
// gate, immediately before it prepares and submits its first batch.
struct StartTimes {
  // The CLOCK_MONOTONIC instant Go asked for; 0 when started at once.
  int64_t scheduled_monotonic_ns = 0;
  // The earliest thread's stamps; 0 until a thread has started.
  int64_t first_monotonic_ns = 0;
  int64_t first_realtime_ns = 0;
  // The latest thread's CLOCK_MONOTONIC stamp (of those started so far).
  int64_t last_monotonic_ns = 0;
  // Threads that have stamped so far.
  int threads_started = 0;
  // Of those, released at a scheduled instant: how many waited for it at
  // real-time priority (realtime_priority.h), and the first refusal's
  // text when some did not (their start may land late when other threads
  // keep the CPU busy), or why none waited (a gate opened after the
  // instant).
  int realtime_wait_threads = 0;
  std::string realtime_wait_error;
  // Where the measured window begins (CLOCK_MONOTONIC): the start instant
  // plus ramp_time. 0 until released.
  int64_t measure_start_monotonic_ns = 0;
};

// One verify mismatch in full: expected vs found header fields.
struct VerifyMismatchRecord {
  std::string target;
  uint64_t offset = 0;           // the block's byte offset
  uint64_t bad_byte_offset = 0;  // byte offset of the first wrong byte/field
  std::string kind;              // "stale", "torn", "corrupt", ...
  int kind_code = 0;
  uint64_t expected_target_id = 0;
  uint32_t expected_length = 0;
  uint64_t expected_seed = 0;
  // The generations the block may hold: one, or two after a crash.
  uint64_t expected_generation_lo = 0;
  uint64_t expected_generation_hi = 0;
  bool found_magic_ok = false;
  uint64_t found_target_id = 0;
  uint64_t found_offset = 0;
  uint32_t found_length = 0;
  uint64_t found_seed = 0;
  uint64_t found_generation = 0;
  uint32_t found_crc = 0;
  uint32_t computed_crc = 0;
  std::string dump_path;  // where the bad block was saved, if asked
  std::string message;
};

// What verify found. Every mismatch is counted; the first
// kVerifyReportedPerThread (16) of each submitter thread are in `records`
// (filled once the workload has finished).
struct VerifySummary {
  bool enabled = false;
  uint64_t checked = 0;    // reads whose block was checked and right
  uint64_t unwritten = 0;  // reads of blocks never written with verify
  uint64_t mismatches = 0;
  std::vector<std::pair<std::string, uint64_t>> by_kind;  // every kind
  std::vector<VerifyMismatchRecord> records;
  std::vector<std::string> state_files;  // per target; "" = not saved
};

// One job group's figures: the merge of its threads.
struct GroupSnapshot {
  std::string name;
  std::vector<int> threads;  // indexes into WorkloadSnapshot::threads
  ThreadSnapshot total;
};

// What preconditioning (WorkloadSpec::precondition) did, so far or in all:
// sequential 128 KiB writes, `passes_done` of `passes` full passes over
// every target. Bytes are the bytes the writes completed; `bytes_planned`
// is passes x the targets' sizes in whole 128 KiB blocks.
struct PreconditionSummary {
  uint32_t passes = 0;  // asked; 0: no preconditioning
  uint32_t passes_done = 0;
  uint64_t bytes_written = 0;
  uint64_t bytes_planned = 0;
  absl::Duration time;  // from its first write to its last completion
  bool complete = false;  // every pass over every target finished
  // Facts about it: a target written through the page cache (O_DIRECT
  // refused), a tail shorter than 128 KiB left unwritten, a stop.
  std::vector<std::string> notes;
};

// Preconditioning's progress as a note and a status line: "preconditioning
// pass 1/2, 40 % (409.60MiB of 1.00GiB written)"; once ended, "done" or
// how far it got.
std::string PreconditionProgressText(const PreconditionSummary& p);

struct WorkloadSnapshot {
  WorkloadState state = WorkloadState::kRamping;
  absl::Time taken;
  // Measured time so far (from the end of ramp-up to now or to the end).
  absl::Duration elapsed;
  ThreadSnapshot total;
  std::vector<ThreadSnapshot> threads;
  RingSetup ring;
  // Fallbacks and facts a user must know, e.g. that polled: auto fell back.
  std::vector<std::string> notes;
  bool has_error = false;
  FirstError error;
  // The first kMaxErrorSites failed I/Os in the order they were counted
  // (all of them when fewer); total.ErrorTotal() counts every one.
  std::vector<ErrorSite> error_sites;
  std::string split_strategy;  // the strategy in force now
  DeviceCounters device;       // whole measured run
  BufferPlacement buffer_placement;
  std::vector<PhaseSnapshot> phases;
  // Phases so far, merged ones counted each (a workload reports at most 64,
  // the later merged into the last; notes say so); phases.size() when none
  // merged. 0 where unknown (decoded from the wire).
  int phases_total = 0;
  std::vector<AbStrategyResult> ab;  // A/B mode only
  StartTimes start;
  VerifySummary verify;              // spec.verify only
  // Job groups only (spec.groups): one per group, in order.
  std::vector<GroupSnapshot> groups;
  // SLO search only: the steps so far and, once done, the answer.
  SloSummary slo;
  // Where it ran: build, host, targets (model/environment.h).
  Environment environment;
  // Per series_interval, over the measured window so far (model/series.h);
  // in steady_state gate mode from the series' start, the gate included.
  Series series;
  // The share (0 to 1) of the submitter CPUs' time over the measured
  // window that this workload's own threads (submitters, io-wq workers) did
  // not take: other processes, other daemon threads, a hypervisor's steal
  // (/proc/stat, daemon/engine/host/other_cpu.h: a lower bound, each CPU's
  // one-tick rounding left out). NaN where unknown (not started, no
  // /proc/stat, a steady-state gate, a result from a daemon that does not
  // report it).
  double other_cpu_share = std::numeric_limits<double>::quiet_NaN();
  // spec.steady_state's outcome (enabled false without one).
  SteadyStateResult steady_state;
  // spec.precondition only: what ran before the measured workload.
  PreconditionSummary precondition;
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_SNAPSHOT_H_
