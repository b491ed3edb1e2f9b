// What a workload does: the engine's plain-C++ view of a spec. The control
// plane converts its protobuf into this; `blkperfd run` fills it from flags.
//
//   WorkloadSpec spec;
//   spec.targets.push_back({.path = "/dev/zram0"});
//   spec.op = Op::kRandRead;
//   spec.queue_depth = 128;
//   absl::StatusOr<ValidatedSpec> ok = ValidateSpec(spec, limits);
#ifndef BLKPERF_MODEL_WORKLOAD_SPEC_H_
#define BLKPERF_MODEL_WORKLOAD_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "model/io_shape.h"
#include "model/split_strategy.h"
#include "model/steady_state.h"

namespace blkperf {

// Shortest WorkloadSpec::series_interval.
inline constexpr absl::Duration kMinSeriesInterval = absl::Milliseconds(10);

// WorkloadSpec::experiment_arm: 1 to kMaxExperimentArmBytes of
// [A-Za-z0-9_.:=,/+-] (an experiment arm's name, experiment/design.h: its
// metrics label `arm`). IsExperimentArmName says whether `name` is one.
inline constexpr size_t kMaxExperimentArmBytes = 64;
bool IsExperimentArmName(absl::string_view name);

// trim / randtrim discard ranges (block devices: BLOCK_URING_CMD_DISCARD;
// files: fallocate PUNCH_HOLE | KEEP_SIZE); they need allow_write.
enum class Op { kRead, kWrite, kRandRead, kRandWrite, kRandRW, kTrim, kRandTrim };
enum class PollMode { kOff, kOn, kAuto };
enum class RequestCacheMode { kPerCpu, kShared };
// When completions are reaped, and so what the latencies include (docs/numbers.md,
// "What the numbers mean").
//   kBatch: one io_uring_enter submits the batch and waits for
//     complete_batch completions (t/io_uring's loop); an early completion is
//     charged the wait for the rest of the batch.
//   kPerIo: submit with one enter that does not wait, then wait for ONE
//     completion and reap whatever has arrived: each I/O is stamped by the
//     first enter that returns after it completes. Costs extra enters.
enum class LatencyMode { kBatch, kPerIo };
// How the I/O buffers are registered with the ring (fixed_buffers only): one
// registered buffer per queue slot, or the whole region as one registered
// buffer that every I/O indexes (buf_index 0). Auto: one_region where the
// kernel takes the region as one buffer, else per_slot (IoBuffers::Create
// decides and says why).
enum class BufferLayout { kPerSlot, kOneRegion, kAuto };
// The kernel refuses to register one buffer larger than 1 GiB.
inline constexpr uint64_t kMaxRegisteredBufferBytes = uint64_t{1} << 30;
// What backs the I/O buffers: normal pages, hugetlb pages (MAP_HUGETLB), or
// hugetlb pages when the buffers span at least one huge page and the host
// has enough free, else normal pages (a fallback is noted).
enum class HugePageMode { kOff, kOn, kAuto };

absl::string_view OpName(Op op);
bool ParseOp(absl::string_view text, Op* op);
absl::string_view PollModeName(PollMode mode);
bool ParsePollMode(absl::string_view text, PollMode* mode);
absl::string_view RequestCacheModeName(RequestCacheMode mode);
bool ParseRequestCacheMode(absl::string_view text, RequestCacheMode* mode);
absl::string_view LatencyModeName(LatencyMode mode);
bool ParseLatencyMode(absl::string_view text, LatencyMode* mode);
absl::string_view BufferLayoutName(BufferLayout layout);  // "per_slot" ...
bool ParseBufferLayout(absl::string_view text, BufferLayout* layout);
absl::string_view HugePageModeName(HugePageMode mode);  // "off", "on", "auto"
bool ParseHugePageMode(absl::string_view text, HugePageMode* mode);

// True for ops that issue writes (trims included: they destroy data).
bool OpWrites(Op op, uint32_t read_percent);
// randread, randwrite, randrw, randtrim.
bool OpIsRandom(Op op);
// trim, randtrim.
bool OpTrims(Op op);

struct TargetSpec {
  // A block device or a regular file.
  std::string path;
  // Regular files only: create the file if missing and pre-fill it (with the
  // verification pattern of `WorkloadSpec::seed`) up to this many bytes.
  // 0 leaves the file as it is. Creating is writing: it needs allow_write.
  uint64_t create_size = 0;
  // The user's explicit permission to write to this target. Without it every
  // write (and creation) is refused.
  bool allow_write = false;
  // An open descriptor of the target (O_PATH is enough) that the caller has
  // already checked, e.g. the daemon against its allow rules. When >= 0 the
  // engine never resolves `path` (kept for messages): it probes this
  // descriptor and reopens its inode through /proc/self/fd with the flags
  // the workload needs (ReopenTarget), and creates nothing (create_size is
  // then the caller's job). Borrowed: the caller keeps it open until
  // Workload::Start returns.
  int fd = -1;
  // blkperf's own file (the default target): a verify read of it with no
  // usable verify state first re-fills it with verify blocks.
  bool refill_for_verify = false;
  // Engine-internal, never from a request: the caller already holds this
  // block device's exclusive claim (a workload preconditioning its own
  // targets, daemon/engine/precondition.cc), so writing opens it without
  // an O_EXCL claim of its own (the kernel would refuse a second one).
  bool claim_held = false;

  bool operator==(const TargetSpec&) const = default;
};

// A latency objective to search for (slo_search.h): the highest open-loop
// rate at which `target` holds.
struct SloSpec {
  bool enabled = false;
  SloTarget target;
  // The search stops when the bracket [met, missed] is at most this share
  // of the closed-loop IOPS wide. In (0, 0.5].
  double precision = 0.05;
  // Each step runs `settle` (not measured: the queue and the schedule
  // settle at the new rate) and then `step` (measured).
  absl::Duration step = absl::Seconds(2);
  absl::Duration settle = absl::Milliseconds(250);

  bool operator==(const SloSpec&) const = default;
};

// Workload-independent preconditioning (SNIA PTS): before the workload's
// own I/O, `sequential_passes` full passes of sequential 128 KiB writes
// over every target, one target after the other (direct I/O where the
// target allows it). It writes every block: each target needs allow_write.
// Not measured; the result says what ran (PreconditionSummary).
struct PreconditionSpec {
  uint32_t sequential_passes = 0;  // 0: none; at most kMaxPreconditionPasses

  bool operator==(const PreconditionSpec&) const = default;
};
inline constexpr uint32_t kPreconditionBlockSize = 128 * 1024;
inline constexpr uint32_t kMaxPreconditionPasses = 16;
// Preconditioning's queue depth (one thread).
inline constexpr uint32_t kPreconditionQueueDepth = 32;

// One job group: its own submitter threads and CPUs with their own I/O
// shape. A field left unset takes the workload's value (rates excepted: a
// workload with groups sets rates per group).
struct JobGroupSpec {
  std::string name;   // [A-Za-z0-9._-]{1,32}; default "g<index>"
  std::vector<int> cpus;  // required: one thread per CPU
  std::optional<Op> op;
  std::optional<uint32_t> read_percent;
  std::optional<uint32_t> block_size;
  std::optional<uint32_t> alignment;
  std::optional<uint32_t> queue_depth;
  std::optional<OffsetDistribution> distribution;
  std::optional<uint32_t> random_percent;
  std::optional<std::vector<BlockSizeShare>> read_bssplit;
  std::optional<std::vector<BlockSizeShare>> write_bssplit;
  std::optional<uint64_t> rate_iops;
  std::optional<uint64_t> rate_bw;
  std::optional<Arrivals> arrivals;
  std::optional<uint32_t> fsync_every;
  std::optional<uint32_t> fdatasync_every;

  bool operator==(const JobGroupSpec&) const = default;
};
inline constexpr size_t kMaxJobGroups = 16;

struct WorkloadSpec {
  std::vector<TargetSpec> targets;
  Op op = Op::kRandRead;
  // randrw only: percentage of I/Os that are reads, 0..100.
  uint32_t read_percent = 50;
  uint32_t block_size = 4096;
  // Offsets are multiples of this; 0 means block_size.
  uint32_t alignment = 0;
  // Logical I/Os in flight per thread.
  uint32_t queue_depth = 32;
  // SQEs prepared per io_uring_enter (t/io_uring -s); 0 = min(32, depth).
  uint32_t submit_batch = 0;
  // CQEs waited for per io_uring_enter (t/io_uring -c); 0 = min(32, depth).
  uint32_t complete_batch = 0;
  // Submitter threads. 0 = one per entry of `cpus` (or 1 when cpus is empty).
  uint32_t threads = 0;
  // CPUs to pin the threads to, one entry per thread. Empty: the online
  // CPUs this daemon may run on (its affinity mask, host_cpus.h) in order,
  // round-robin.
  std::vector<int> cpus;
  // A CPU another blkperf run holds (the host's registry,
  // daemon/engine/host/cpu_registry.h) refuses the run instead of being
  // shared with a note. Not in the API: `blkperfd run --cpu_sharing`.
  bool refuse_shared_cpus = false;
  // Measured run time (after ramp). Zero with io_count set: run until count.
  absl::Duration runtime = absl::Seconds(10);
  // Total logical I/Os to measure across all threads; 0 = no limit.
  uint64_t io_count = 0;
  // Time run before measuring starts; I/Os then are not counted.
  absl::Duration ramp_time = absl::ZeroDuration();
  // The result's time series: one point per this much measured time
  // (model/series.h). At least kMinSeriesInterval.
  absl::Duration series_interval = absl::Seconds(1);
  bool direct = true;
  uint64_t seed = 0x626c6b70657266ULL;  // "blkperf"
  // Registered buffers: READ_FIXED / WRITE_FIXED. Off: plain READ / WRITE
  // on a user address (t/io_uring -B0), or READV / WRITEV with `vectored`.
  bool fixed_buffers = true;
  // READV / WRITEV with a one-entry iovec (t/io_uring -V1). Needs
  // fixed_buffers off.
  bool vectored = false;
  BufferLayout buffer_layout = BufferLayout::kAuto;
  HugePageMode huge_pages = HugePageMode::kAuto;
  bool registered_files = true;
  PollMode polled = PollMode::kOff;
  bool sqpoll = false;
  // CPU of the SQPOLL kernel thread; -1 lets the kernel choose.
  int sqpoll_cpu = -1;
  RequestCacheMode request_cache = RequestCacheMode::kPerCpu;
  // Time every I/O into the latency histograms (submission, completion and
  // total; see LatencyMode).
  bool latency_tracking = true;
  LatencyMode latency_mode = LatencyMode::kBatch;
  // An I/O outstanding longer than this fails the workload (a stalled
  // device); the report names its target, offset and age. Waits for
  // completions also wake at least every kWaitTick so stop and the end of
  // the run are honoured while the device is silent.
  absl::Duration io_timeout = absl::Seconds(30);
  // Every block written carries a header (magic, target id, offset, length,
  // seed, write generation, crc32c) and pattern words; every block read is
  // checked against the generation last written there (verify_block.h).
  // Generations are kept in `verify_state_dir` across runs.
  bool verify = false;
  // verify only: read every block of the targets once, sequentially, and
  // stop (op must be read; runtime and io_count are set by the engine).
  bool verify_pass = false;
  // verify only: save each fully reported bad block (the first 16 per
  // thread) to `verify_state_dir`/bad-<target id>-<offset>.bin.
  bool verify_dump = false;
  // Where verify keeps its per-target state; set by the daemon (its data
  // directory + "/verify"), never by a client. Empty: nothing is saved.
  std::string verify_state_dir;
  // Issue every SQE with IOSQE_ASYNC: straight to io-wq workers, skipping
  // the non-blocking attempt that devices without nowait support (zram,
  // loop) fail with EAGAIN before io_uring punts them anyway.
  bool force_async = false;
  // No device: every I/O is an IORING_OP_NOP (t/io_uring -N1), so the run
  // measures the engine's and io_uring's own cost per I/O. `targets` must
  // then be empty (the engine stands in one target named "nop" whose I/Os
  // move no data: bytes count 0); reads only, no verify, no split, no
  // polling, no job groups or workload shapes.
  bool nop = false;
  // Count I/O errors and keep going instead of stopping at the first.
  bool continue_on_error = false;
  // How logical I/Os are cut into SQEs; switchable while running.
  SplitStrategy split;
  // A/B mode: two or more strategies alternated in equal slices of
  // `ab_slice` (A B A B ...) over the measured run; `split` is ignored.
  std::vector<SplitStrategy> ab_strategies;
  absl::Duration ab_slice = absl::Seconds(1);
  // The experiment arm this workload runs, set by the experiment that
  // started it (experiment/runner.h: the arm's name, e.g. "qd=32"); empty
  // outside experiments. Changes nothing the engine does: it is the `arm`
  // label of the workload's metrics. Empty or IsExperimentArmName.
  std::string experiment_arm;

  // --- The I/O shape beyond op and block size (io_shape.h) ---
  // Where random offsets fall.
  OffsetDistribution distribution;
  // Random ops: the share of I/Os at a random offset; the others continue
  // where the thread's previous I/O on that target ended (fio's
  // percentage_random). Sequential ops are 0% random.
  uint32_t random_percent = 100;
  // Block-size mixes of reads and of writes (trims take the write mix);
  // empty: every I/O is block_size.
  std::vector<BlockSizeShare> read_bssplit;
  std::vector<BlockSizeShare> write_bssplit;
  // Open loop: intended issue times at this many I/Os (or bytes) per
  // second, split evenly over the threads; latency is then also measured
  // from each I/O's intended time. 0: closed loop. At most one is set.
  uint64_t rate_iops = 0;
  uint64_t rate_bw = 0;
  Arrivals arrivals = Arrivals::kUniform;
  // After every N writes a thread issues an fsync (fdatasync) of the
  // target it wrote last; 0: never. At most one is set.
  uint32_t fsync_every = 0;
  uint32_t fdatasync_every = 0;
  // Job groups; empty: one group of the fields above.
  std::vector<JobGroupSpec> groups;
  // SLO search mode: the workload steps through open-loop rates.
  SloSpec slo;
  // Steady state (model/steady_state.h): checked on the series; the run
  // stops at attainment, or measuring begins there (gate).
  SteadyStateSpec steady_state;
  // Preconditioning before the workload (none by default).
  PreconditionSpec precondition;

  // Field by field; fleet runs compare a retried request with the first.
  bool operator==(const WorkloadSpec&) const = default;
};

// The CPUs the spec's threads are pinned to as given: the groups' in group
// order, else `cpus`. Empty: the engine's default placement.
std::vector<int> SpecCpus(const WorkloadSpec& spec);
// Submitter threads the spec asks for (0 when the engine decides: no
// groups, no threads and no cpus given).
uint32_t SpecThreads(const WorkloadSpec& spec);
// Submitter threads of the spec's own fields, groups aside: `threads`, else
// one per `cpus` entry, at least 1 (what a spec without groups runs).
uint32_t TopLevelThreads(const WorkloadSpec& spec);
// Whether any I/O of the spec writes (a group's op counts too, and
// preconditioning, which writes every block).
bool SpecWrites(const WorkloadSpec& spec);
// The longest the spec runs: ramp_time + runtime, or with an SLO search
// ramp_time + its most steps x (settle + step).
absl::Duration SpecMaxDuration(const WorkloadSpec& spec);
// Most steps an SLO search of `precision` takes: the closed-loop step,
// ceil(log2(1 / precision)) bisections each repeated once when undecided,
// and the final bracket's two re-tests.
int SloSteps(double precision);

}  // namespace blkperf

#endif  // BLKPERF_MODEL_WORKLOAD_SPEC_H_
