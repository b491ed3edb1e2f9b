#include "daemon/engine/workload.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "daemon/engine/host/environment.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "wire/spec_convert.h"
#include "base/status_macros.h"
#include "base/unique_fd.h"
#include "daemon/engine/host/host_cpus.h"
#include "daemon/engine/host/page_placement.h"
#include "daemon/engine/host/realtime_priority.h"
#include "daemon/engine/ring/ring_sizing.h"
#include "daemon/engine/ring/start_instant.h"
#include "daemon/engine/ring/submitter.h"
#include "daemon/engine/target/target.h"
#include "experiment/statistics.h"
#include "model/percentile_interval.h"

namespace blkperf {
namespace {

// The resolved spec's deterministic wire form: what Environment::spec_hash
// hashes.
std::string ResolvedSpecBytes(const WorkloadSpec& spec) {
  v1::WorkloadSpec proto;
  SpecToProto(spec, &proto);
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  proto.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

}  // namespace

using internal::SubmitterThread;

namespace {

// Re-fills blkperf's own target with verify blocks (FillTargetForVerify):
// through the descriptor the caller checked when it gave one (the path is
// then never resolved), else by path without following a link.
absl::Status RefillForVerify(const TargetSpec& t, uint32_t block_size,
                             uint64_t seed, VerifyStateFile* state) {
  const UniqueFd fd(t.fd >= 0 ? ReopenTarget(t.fd, O_WRONLY)
                              : open(t.path.c_str(),
                                     O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    const int error_number = t.fd >= 0 ? -fd.get() : errno;
    return absl::ErrnoToStatus(error_number,
                               absl::StrCat("open ", t.path, " to fill"));
  }
  return FillTargetForVerify(fd.get(), t.path, block_size, seed, state);
}

// The key of a target's verify state: its identity as probed.
VerifyStateKey StateKeyOf(const TargetInfo& info) {
  if (info.kind == TargetKind::kBlockDevice) {
    return {.block_device = true, .device = info.st_rdev};
  }
  return {.device = info.st_dev, .inode = info.st_ino};
}

}  // namespace

namespace {

// A thread takes a split switch up within a turn, and a turn's wait lasts
// at most kWaitTickNs; past this a thread's counts then stand in, noted.
constexpr absl::Duration kTakeUpWait = absl::Seconds(1);

// Request objects over every thread: each holds its group's queue depth.
size_t TotalQueueDepth(const ResolvedSpec& spec) {
  size_t total = 0;
  for (const GroupShape& g : spec.groups) {
    total += size_t{g.threads} * g.queue_depth;
  }
  return total;
}

}  // namespace

Workload::Workload(ResolvedSpec spec)
    : spec_(std::move(spec)),
      shared_requests_(std::make_unique<SharedRequestPool<internal::Request>>(
          TotalQueueDepth(spec_))),
      series_(spec_.spec.series_interval) {
  control_.shared_requests = shared_requests_.get();
  if (spec_.spec.steady_state.enabled) {
    absl::MutexLock lock(&series_mu_);
    steady_ = std::make_unique<SteadyStateChecker>(
        spec_.spec.steady_state, spec_.spec.series_interval);
  }
  control_.split_strategies[0] = spec_.spec.ab_strategies.empty()
                                     ? spec_.spec.split
                                     : spec_.spec.ab_strategies[0];
  for (const TargetInfo& target : spec_.targets) {
    if (std::find(device_stat_paths_.begin(), device_stat_paths_.end(),
                  target.stat_path) == device_stat_paths_.end()) {
      device_stat_paths_.push_back(target.stat_path);
    }
  }
  if (spec_.spec.nop) {
    notes_.push_back(
        "nop: every I/O is an IORING_OP_NOP on no device (t/io_uring -N1): "
        "no data moves (bytes count 0), and direct and registered_files "
        "have no effect");
  }
}

absl::StatusOr<std::unique_ptr<Workload>> Workload::Arm(
    const WorkloadSpec& spec, const EngineLimits& limits) {
  // Field checks first, so a bad spec creates no file.
  BLKPERF_ASSIGN_OR_RETURN(ValidatedSpec validated, ValidateSpec(spec, limits));
  return Arm(std::move(validated));
}

namespace {

// Creates and pre-fills the file targets with create_size that the caller
// did not open itself.
absl::Status CreateFileTargets(const WorkloadSpec& spec) {
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    const TargetSpec& target = spec.targets[i];
    if (target.create_size == 0 || target.fd >= 0) continue;
    const absl::Status created =
        CreateAndPrefillFile(target.path, target.create_size, spec.seed);
    if (!created.ok()) {
      return absl::Status(created.code(),
                          absl::StrCat("targets[", i, "].create_size: ",
                                       created.message()));
    }
  }
  return absl::OkStatus();
}

// The CPUs, registered host-wide before they are resolved: a spec without
// `cpus` takes CPUs no other blkperf run holds.
absl::StatusOr<CpuRegistration> RegisterSpecCpus(ValidatedSpec* validated) {
  const WorkloadSpec& spec = validated->spec;
  const std::vector<int> listed = SpecCpus(spec);
  BLKPERF_ASSIGN_OR_RETURN(
      CpuRegistration cpus,
      RegisterCpus(CpuRegistryRoot(), validated->host_cpus.placement, listed,
                   spec.groups.empty() ? TopLevelThreads(spec)
                                       : static_cast<uint32_t>(listed.size()),
                   spec.refuse_shared_cpus));
  PlaceOnCpus(cpus.cpus, validated);
  return cpus;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Workload>> Workload::Arm(
    ValidatedSpec validated, std::vector<TargetInfo> probed) {
  if (validated.spec.precondition.sequential_passes != 0) {
    return absl::FailedPreconditionError(
        "precondition: an armed (fleet) workload starts at its Go instant, "
        "and preconditioning takes as long as the device needs; "
        "precondition the hosts with a run of their own first");
  }
  return SetUp(std::move(validated), std::move(probed));
}

absl::StatusOr<std::unique_ptr<Workload>> Workload::SetUp(
    ValidatedSpec validated, std::vector<TargetInfo> probed) {
  const EngineLimits limits = validated.limits;
  BLKPERF_RETURN_IF_ERROR(CreateFileTargets(validated.spec));
  BLKPERF_ASSIGN_OR_RETURN(CpuRegistration cpus,
                           RegisterSpecCpus(&validated));
  BLKPERF_ASSIGN_OR_RETURN(
      ResolvedSpec resolved,
      ResolveSpec(std::move(validated), std::move(probed)));
  std::unique_ptr<Workload> workload(new Workload(std::move(resolved)));
  workload->limits_ = limits;
  workload->environment_ = CollectEnvironment(
      workload->spec_.targets, ResolvedSpecBytes(workload->spec_.spec));
  if (!cpus.note.empty()) workload->notes_.push_back(cpus.note);
  workload->cpu_registration_ = std::move(cpus);
  BLKPERF_RETURN_IF_ERROR(workload->SetUpVerify());
  BLKPERF_RETURN_IF_ERROR(workload->SizeRingsForStrategies());
  BLKPERF_RETURN_IF_ERROR(workload->OpenTargets());
  BLKPERF_RETURN_IF_ERROR(workload->LaunchThreads());
  return workload;
}

absl::StatusOr<std::unique_ptr<Workload>> Workload::Start(
    const WorkloadSpec& spec, const EngineLimits& limits) {
  BLKPERF_ASSIGN_OR_RETURN(ValidatedSpec validated, ValidateSpec(spec, limits));
  return Start(std::move(validated));
}

absl::StatusOr<std::unique_ptr<Workload>> Workload::Start(
    ValidatedSpec validated, std::vector<TargetInfo> probed) {
  const bool precondition = validated.spec.precondition.sequential_passes != 0;
  BLKPERF_ASSIGN_OR_RETURN(std::unique_ptr<Workload> workload,
                           SetUp(std::move(validated), std::move(probed)));
  {
    PiMutexLock lock(&workload->mu_);
    workload->released_ = true;
  }
  Workload* w = workload.get();
  if (precondition) {
    workload->preconditioning_.store(true);
    workload->driver_ = std::thread([w] { w->PreconditionThenDrive(); });
    return workload;
  }
  workload->Release(workload->ReadDevices());  // nothing can have stopped it
  workload->driver_ = std::thread([w] { w->Drive(); });
  return workload;
}

absl::Status Workload::Go(int64_t at_monotonic_ns) {
  PiMutexLock lock(&mu_);
  if (released_ || stopped_by_user_.load() || aborted_) {
    return absl::FailedPreconditionError(
        released_ ? "the workload was already released"
                  : "the workload was stopped or aborted before its start");
  }
  released_ = true;
  scheduled_ns_.store(at_monotonic_ns);
  driver_ = std::thread([this, at_monotonic_ns] {
    // The gate opens (and the device baseline is read: no I/O of this
    // workload can happen before the instant) this far ahead, so that a
    // late timer wake-up or a busy CPU here does not delay the start; the
    // submitters wait out the rest themselves, at real-time priority. So
    // does this thread until the gate is open: at the normal policy, a
    // busy CPU delayed the opening by up to a scheduler slice, and the
    // submitters' wake-up by another. A refusal is the submitters' too,
    // and reported by them (StartTimes.realtime_wait_error).
    // 20 ms: with 8 daemons on one 2-CPU test machine, each one's gate
    // (same SCHED_FIFO priority, so none preempts another) waited behind
    // the others' gate work and opened a median 2.2 ms, at worst 6.2 ms,
    // after its timer; 5 ms was too short (bench/RESULTS.md, 2026-12-03).
    constexpr int64_t kReleaseLeadNs = 20'000'000;
    RealtimePriority priority;
    priority.Raise().IgnoreError();
    if (!SleepUntil(at_monotonic_ns - kReleaseLeadNs)) return;
    const bool released = Release(ReadDevices(), at_monotonic_ns);
    priority.Restore();
    if (released) Drive();
  });
  return absl::OkStatus();
}

bool Workload::Released() const {
  PiMutexLock lock(&mu_);
  return released_;
}

void Workload::Abort() {
  PiMutexLock lock(&mu_);
  if (finished_.HasBeenNotified()) return;
  aborted_ = true;
  StopLocked();
}

bool Workload::SleepUntil(int64_t at_ns) const {
  // Wake at the instant itself, not up to the default 50 us timer slack late.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  constexpr int64_t kCheckEveryNs = 100'000'000;
  for (;;) {
    if (cancel_.load() || finished_.HasBeenNotified()) return false;
    const int64_t now = MonotonicNowNs();
    if (now >= at_ns) return true;
    const int64_t next = std::min(at_ns, now + kCheckEveryNs);
    const timespec until = {.tv_sec = next / 1000000000,
                            .tv_nsec = next % 1000000000};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
  }
}

Workload::~Workload() {
  RequestStop();
  Wait();
  cancel_.store(true);
  if (driver_.joinable()) driver_.join();
  if (series_thread_.joinable()) series_thread_.join();
  for (size_t i = 0; i < threads_.size(); ++i) {
    if (!threads_[i].joinable()) continue;
    if (submitters_[i]->exited()) {  // the stalled I/O came back meanwhile
      threads_[i].join();
      continue;
    }
    // Gave up on I/O a stalled device holds and waits for it, touching only
    // its own ring: it outlives the workload, and its object is left to it
    // (leaked on purpose: the kernel may still write into its buffers).
    threads_[i].detach();
    SubmitterThread* left = submitters_[i].release();
#if defined(__SANITIZE_ADDRESS__)
    __lsan_ignore_object(left);  // on purpose, see above: not a leak report
#else
    (void)left;
#endif
  }
  std::thread switcher;
  {
    PiMutexLock lock(&switch_mu_);
    switcher = std::move(switcher_);
  }
  if (switcher.joinable()) switcher.join();
  for (int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

absl::Status Workload::SetUpVerify() {
  const WorkloadSpec& spec = spec_.spec;
  if (!spec.verify) {
    // Writing without headers makes a target's verify state wrong.
    for (size_t i = 0; i < spec.targets.size(); ++i) {
      const TargetSpec& t = spec.targets[i];
      if (spec_.writes &&
          VerifyStateFile::Discard(spec.verify_state_dir,
                                   StateKeyOf(spec_.targets[i]))) {
        notes_.push_back(absl::StrCat("verify: discarded the verify state of ",
                                      t.path, ": this run writes it without "
                                      "verify"));
      }
    }
    return absl::OkStatus();
  }
  verify_setup_.seed = spec.seed;
  verify_setup_.block_size = spec.block_size;
  verify_setup_.track_in_flight = spec_.writes;
  if (spec.verify_dump) verify_setup_.dump_dir = spec.verify_state_dir;
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    const TargetSpec& t = spec.targets[i];
    const uint64_t blocks = spec_.targets[i].size_bytes / spec.block_size;
    absl::StatusOr<std::unique_ptr<VerifyStateFile>> state =
        VerifyStateFile::Open(spec.verify_state_dir,
                              StateKeyOf(spec_.targets[i]), t.path,
                              spec.block_size, blocks,
                              spec_.writes || t.refill_for_verify
                                  ? VerifyStateFile::kCreateOrLoad
                                  : VerifyStateFile::kLoad);
    if (!state.ok()) {
      return absl::Status(state.status().code(),
                          absl::StrCat("targets[", i, "] ",
                                       state.status().message()));
    }
    if (!(*state)->note().empty()) notes_.push_back((*state)->note());
    if (!spec_.writes && t.refill_for_verify && !(*state)->loaded()) {
      BLKPERF_RETURN_IF_ERROR(
          RefillForVerify(t, spec.block_size, spec.seed, state->get()));
      notes_.push_back(absl::StrCat("verify: re-filled ", t.path,
                                    " with verify blocks of ",
                                    spec.block_size, " bytes (it had no "
                                    "verify state for this block size)"));
    }
    if ((*state)->path().empty()) {
      notes_.push_back(absl::StrCat("verify: the state of ", t.path,
                                    " is not saved (no data directory)"));
    }
    verify_setup_.tables.push_back({(*state)->entries(), blocks,
                                    (*state)->target_id(), t.path});
    verify_states_.push_back(*std::move(state));
  }
  if (spec.verify_pass && spec_.min_target_bytes / spec.block_size !=
                              spec_.targets[0].size_bytes / spec.block_size) {
    notes_.push_back("verify_pass: targets differ in size; each is read up to "
                     "the smallest one's size");
  }
  control_.verify = &verify_setup_;
  return absl::OkStatus();
}

absl::Status Workload::OpenTargets() {
  for (size_t i = 0; i < spec_.targets.size(); ++i) {
    const TargetInfo& info = spec_.targets[i];
    if (info.kind == TargetKind::kNop) {  // nothing to open
      fds_.push_back(-1);
      continue;
    }
    int flags = (spec_.writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;
    if (spec_.spec.direct) flags |= O_DIRECT;
    // A write workload claims block devices exclusively for its whole run;
    // the kernel refuses the claim while the device is mounted or held.
    if (spec_.writes && info.kind == TargetKind::kBlockDevice &&
        !spec_.spec.targets[i].claim_held) {
      flags |= O_EXCL;
    }
    // A read-only workload leaves access times alone, as t/io_uring does
    // (O_NOATIME): no inode writes the user did not ask for, and no atime
    // check per buffered read. The kernel allows it to the file's owner
    // and to CAP_FOWNER only; anyone else reads with access times, and the
    // report says so.
    if (!spec_.writes) flags |= O_NOATIME;
    const int given = spec_.spec.targets[i].fd;
    // The descriptor, or -errno (as ReopenTarget returns).
    const auto open_target = [&] {
      if (given >= 0) return ReopenTarget(given, flags);
      const int opened = open(info.path.c_str(), flags);
      return opened >= 0 ? opened : -errno;
    };
    int fd = open_target();
    if (fd == -EPERM && (flags & O_NOATIME) != 0) {
      flags &= ~O_NOATIME;
      fd = open_target();
      if (fd >= 0) {
        notes_.push_back(absl::StrCat(
            "targets[", i, "] ", info.path,
            ": opened without O_NOATIME (not its owner, no CAP_FOWNER): "
            "reads update its access time"));
      }
    }
    if (fd < 0) {
      const int error_number = -fd;
      std::string why;
      if (error_number == EBUSY) {
        why = " (in use: mounted, held by another device, or claimed by "
              "another writer)";
      } else if (error_number == EINVAL && spec_.spec.direct) {
        why = " (the file system may not support O_DIRECT; set direct false)";
      }
      return absl::ErrnoToStatus(
          error_number, absl::StrCat("targets[", i, "] ", info.path,
                                     ": open for ",
                                     spec_.writes ? "writing" : "reading",
                                     why));
    }
    fds_.push_back(fd);
    BLKPERF_RETURN_IF_ERROR(CheckTrimSupport(i, fd));
  }
  return absl::OkStatus();
}

absl::Status Workload::CheckTrimSupport(size_t index, int fd) const {
  const TargetInfo& info = spec_.targets[index];
  bool trims = false;
  for (const GroupShape& g : spec_.groups) trims = trims || OpTrims(g.op);
  if (!trims) return absl::OkStatus();
  if (info.kind == TargetKind::kBlockDevice) {
    const absl::Status can = internal::CheckUringDiscard(fd);
    if (can.ok()) return can;
    return absl::FailedPreconditionError(absl::StrCat(
        "op ", OpName(spec_.spec.groups.empty() ? spec_.spec.op
                                                : spec_.groups[0].op),
        ": targets[", index, "] ", info.path, ": ", can.message()));
  }
  if (info.kind != TargetKind::kRegularFile) return absl::OkStatus();
  // A hole punched past the end of the file changes nothing (KEEP_SIZE),
  // but fails on a file system that cannot punch holes.
  const uint64_t block = std::max<uint32_t>(512, info.logical_block_size);
  const uint64_t past_end = (info.size_bytes / block + 1) * block;
  if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                static_cast<off_t>(past_end), static_cast<off_t>(block)) != 0) {
    const int error_number = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        "op ", OpName(spec_.spec.groups.empty() ? spec_.spec.op
                                                : spec_.groups[0].op),
        ": targets[", index, "] ", info.path,
        " cannot punch holes (fallocate PUNCH_HOLE: ", strerror(error_number),
        "): its file system does not support trims"));
  }
  return absl::OkStatus();
}

namespace {

// Pieces `strategy` may cut one I/O of the spec into, on any target, with
// 4 KiB buffer pages (the worst case; huge pages only need fewer).
absl::StatusOr<uint32_t> PiecesNeeded(const ResolvedSpec& spec,
                                      const SplitStrategy& strategy) {
  return internal::PlanSplitters(spec, strategy, /*page_shift=*/12, nullptr);
}

using internal::kMaxRingEntries;

}  // namespace

absl::Status Workload::SizeRingsForStrategies() {
  // Room for the strategies the spec names, for `limits`, and bounded
  // headroom for finer live switches (ring_sizing.h). Sized for the
  // deepest group's queue and the largest block.
  const uint32_t qd = spec_.max_queue_depth;
  std::vector<SplitStrategy> named = spec_.spec.ab_strategies;
  if (named.empty()) named.push_back(spec_.spec.split);
  uint32_t capacity = 1;
  for (size_t i = 0; i < named.size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(uint32_t pieces, PiecesNeeded(spec_, named[i]));
    if (uint64_t{pieces} * qd > kMaxRingEntries) {
      return absl::InvalidArgumentError(absl::StrCat(
          spec_.spec.ab_strategies.empty() ? "split"
                                           : absl::StrCat("ab_strategies[", i, "]"),
          " ", SplitStrategyName(named[i]), " cuts one I/O into up to ",
          pieces, " pieces; with queue_depth ", qd,
          " that exceeds the ring's maximum of ", kMaxRingEntries,
          " entries"));
    }
    capacity = std::max(capacity, pieces);
  }
  uint32_t smallest_block = UINT32_MAX;
  for (const TargetInfo& t : spec_.targets) {
    smallest_block = std::min(smallest_block,
                              std::max<uint32_t>(512, t.logical_block_size));
  }
  internal::PieceNeeds needs;
  needs.queue_depth = qd;
  needs.named = capacity;
  absl::StatusOr<uint32_t> limits =
      PiecesNeeded(spec_, SplitStrategy{SplitStrategy::Kind::kLimits, 0});
  if (limits.ok()) needs.limits = *limits;
  needs.finest = std::max<uint32_t>(1, spec_.max_block_size / smallest_block);
  // A NOP is never split (CheckSwitchable): rings of queue_depth entries,
  // as t/io_uring -N1 has.
  control_.piece_capacity =
      spec_.spec.nop ? 1 : internal::RingPieceCapacity(needs);
  return absl::OkStatus();
}

absl::Status Workload::CheckStrategyFits(const SplitStrategy& strategy) const {
  for (const TargetInfo& target : spec_.targets) {
    BLKPERF_RETURN_IF_ERROR(CheckSplitForTarget(strategy, "split", target));
  }
  BLKPERF_ASSIGN_OR_RETURN(uint32_t pieces, PiecesNeeded(spec_, strategy));
  if (pieces > control_.piece_capacity) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split ", SplitStrategyName(strategy), " cuts one I/O into up to ",
        pieces, " pieces, more than the ", control_.piece_capacity,
        " this workload's rings were sized for (queue_depth ",
        spec_.max_queue_depth, ")"));
  }
  return absl::OkStatus();
}

absl::Status Workload::CheckSwitchable(const SplitStrategy& strategy) const {
  if (spec_.spec.nop) {
    return absl::FailedPreconditionError(
        "split: a nop workload has no device whose limits a split could "
        "follow; it runs split none only");
  }
  if (!spec_.spec.ab_strategies.empty()) {
    return absl::FailedPreconditionError(
        "split: the workload alternates ab_strategies; it cannot be switched "
        "by hand");
  }
  BLKPERF_RETURN_IF_ERROR(CheckStrategyFits(strategy));
  if (finished_.HasBeenNotified()) {
    return absl::FailedPreconditionError("split: the workload has ended");
  }
  return absl::OkStatus();
}

absl::Status Workload::SetSplitStrategy(const SplitStrategy& strategy) {
  BLKPERF_RETURN_IF_ERROR(CheckSwitchable(strategy));
  PiMutexLock lock(&switch_mu_);
  return SwitchLocked(strategy, kNoNextSwitch);
}

absl::Status Workload::ScheduleSplitStrategy(const SplitStrategy& strategy,
                                             int64_t at_monotonic_ns) {
  if (at_monotonic_ns <= MonotonicNowNs()) return SetSplitStrategy(strategy);
  BLKPERF_RETURN_IF_ERROR(CheckSwitchable(strategy));
  PiMutexLock lock(&switch_mu_);
  if (switch_pending_) {
    return absl::FailedPreconditionError(
        "split: another scheduled switch is pending; one at a time");
  }
  // The previous switcher cleared switch_pending_ as its last step.
  if (switcher_.joinable()) switcher_.join();
  switch_pending_ = true;
  switcher_ = std::thread([this, strategy, at_monotonic_ns] {
    // Waits at real-time priority, as the start gate does: at the normal
    // policy other busy threads delayed a fleet's switches by up to 22 ms.
    // A refusal leaves it at the normal policy; the priority goes back
    // when `priority` does, after the lock.
    RealtimePriority priority;
    priority.Raise().IgnoreError();
    const bool reached = SleepUntil(at_monotonic_ns);
    PiMutexLock lock(&switch_mu_);
    if (reached) {
      const absl::StatusOr<PublishedSwitch> published = PublishLocked(strategy);
      priority.Restore();
      if (published.ok()) EndPhaseAfterPublish(*published, kNoNextSwitch);
    }
    switch_pending_ = false;
  });
  return absl::OkStatus();
}

absl::Status Workload::SwitchLocked(const SplitStrategy& strategy,
                                    int64_t next_switch_ns) {
  BLKPERF_ASSIGN_OR_RETURN(const PublishedSwitch published,
                           PublishLocked(strategy));
  AppendPhase(EndPhaseLocked(published, next_switch_ns));
  return absl::OkStatus();
}

absl::StatusOr<Workload::PublishedSwitch> Workload::PublishLocked(
    const SplitStrategy& strategy) {
  const uint32_t generation = control_.split_generation.load() + 1;
  if (generation >= control_.split_strategies.size()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("split: a workload can switch strategies at most ",
                     control_.split_strategies.size() - 1, " times"));
  }
  control_.split_strategies[generation] = strategy;
  // Sequentially consistent, for SubmitterThread::PhaseBoundary.
  control_.split_generation.store(generation);
  return PublishedSwitch{generation, MonotonicNowNs()};
}

std::shared_ptr<const PhaseBoundary> Workload::EndPhaseLocked(
    const PublishedSwitch& published, int64_t next_switch_ns) {
  // Before measuring starts there is no phase yet; Release() or Drive()
  // opens the first with whatever strategy is in force then.
  if (!phases_open_) return nullptr;
  const int64_t deadline = std::min(
      published.at_ns + absl::ToInt64Nanoseconds(kTakeUpWait), next_switch_ns);
  std::string late_take_up;
  ThreadSnapshot totals =
      PhaseBoundaryTotals(published, deadline, &late_take_up);
  // Histograms for the first kMaxReportedPhases boundaries only
  // (phase_report.h): the memory of a workload's phases is bounded.
  return MakePhaseBoundary(phase_boundaries_++, published.at_ns,
                           control_.split_strategies[published.generation],
                           std::move(totals), ReadDevices(),
                           std::move(late_take_up));
}

void Workload::EndPhaseAfterPublish(const PublishedSwitch& published,
                                    int64_t next_switch_ns) {
  // The boundary at nice -20: at real time, the boundaries of 8 daemons on
  // one 2-CPU machine (procfs walks) queued each other's next publication
  // by up to 20 ms; at nice 0, busy threads made one overrun its slice.
  std::shared_ptr<const PhaseBoundary> phase;
  {
    NiceBoost boost;
    boost.Raise().IgnoreError();  // refused with the real-time raise
    phase = EndPhaseLocked(published, next_switch_ns);
  }
  // Appended at real time again: a reader holding mu_ then runs at once
  // (PiMutex), however low its own priority.
  RealtimePriority priority;
  priority.Raise().IgnoreError();
  AppendPhase(std::move(phase));
}

void Workload::OpenFirstPhaseLocked(std::shared_ptr<PhaseBoundary> first,
                                    const DeviceCounters& device) {
  first->strategy =
      control_.split_strategies[control_.split_generation.load()];
  first->device = device;
  phases_.push_back(std::move(first));
  phase_boundaries_ = 1;
  phases_open_ = true;
}

void Workload::AppendPhase(std::shared_ptr<const PhaseBoundary> phase) {
  if (phase == nullptr) return;
  PiMutexLock lock(&mu_);
  phases_.push_back(std::move(phase));
}

ThreadSnapshot Workload::PhaseBoundaryTotals(const PublishedSwitch& published,
                                             int64_t deadline_ns,
                                             std::string* late_take_up) {
  SampleIoWorkers();
  ThreadSnapshot total;
  for (size_t i = 0; i < submitters_.size(); ++i) {
    ThreadSnapshot thread;
    while (!submitters_[i]->PhaseBoundary(published.generation, &thread)) {
      const int64_t now = MonotonicNowNs();
      if (now >= deadline_ns) {
        submitters_[i]->Snapshot(&thread);
        if (late_take_up->empty()) {
          *late_take_up = absl::StrCat(
              "thread ", i, " had not taken up split switch ",
              published.generation, " ",
              absl::FormatDuration(absl::Nanoseconds(now - published.at_ns)),
              " after it was published; the wait ends after ",
              absl::FormatDuration(kTakeUpWait),
              " or three quarters into an A/B slice");
        }
        break;
      }
      absl::SleepFor(absl::Microseconds(20));
    }
    total.Merge(thread);
  }
  return total;
}

std::string Workload::LateTakeUpNote(const PhaseBoundaries& phases) {
  int late = 0;
  const std::string* first = nullptr;
  for (const auto& phase : phases) {
    if (phase->late_take_up.empty()) continue;
    if (late++ == 0) first = &phase->late_take_up;
  }
  if (late == 0) return "";
  return absl::StrCat(
      "phases: at ", late,
      " phase boundaries a thread's counts are those when the wait for it "
      "ended, not those when it took the switch up (first: ",
      *first, ")");
}

void Workload::SampleIoWorkers() const {
  std::vector<pid_t> tids;
  tids.reserve(submitters_.size());
  for (const auto& submitter : submitters_) tids.push_back(submitter->tid());
  control_.io_worker_cpu.Sample(tids);
}

void Workload::MarkCpuBaselines() {
  SampleIoWorkers();
  for (const auto& submitter : submitters_) submitter->MarkCpuBaseline();
}

ThreadSnapshot Workload::TotalsNow() const {
  ThreadSnapshot total;
  for (const ThreadSnapshot& thread : ThreadTotalsNow()) total.Merge(thread);
  return total;
}

std::vector<ThreadSnapshot> Workload::ThreadTotalsNow() const {
  SampleIoWorkers();
  std::vector<ThreadSnapshot> threads(submitters_.size());
  for (size_t i = 0; i < submitters_.size(); ++i) {
    submitters_[i]->Snapshot(&threads[i]);
  }
  return threads;
}

DeviceCounters Workload::ReadDevices() const {
  DeviceCounters counters;
  counters.available = true;
  for (const std::string& path : device_stat_paths_) {
    absl::StatusOr<DeviceStat> stat =
        path.empty() ? absl::NotFoundError("") : ReadDeviceStat(path);
    if (!stat.ok()) {
      counters.available = false;
      continue;
    }
    counters.requests += stat->read_ios + stat->write_ios;
    counters.merges += stat->read_merges + stat->write_merges;
    counters.sectors += stat->read_sectors + stat->write_sectors;
  }
  return counters;
}

int64_t Workload::SwitchPollNs() const {
  // Phase switches land close to their instant, so that A/B phases of a
  // fleet run line up across hosts as its start does: a timed wait on the
  // notification (it ends at once when the workload does) until a little
  // before, then the clock polled (start_instant.h). The poll runs on a
  // control CPU that other control threads share, so it is short: it
  // covers a timer wake-up's usual lateness (p99 about 90 us on the
  // development VM), at most 1% of a slice.
  constexpr int64_t kSwitchPollNs = 200'000;
  const int64_t slice_ns = absl::ToInt64Nanoseconds(spec_.spec.ab_slice);
  return std::min<int64_t>(kSwitchPollNs,
                           slice_ns > 0 ? slice_ns / 100 : kSwitchPollNs);
}

bool Workload::WaitForInstant(int64_t when_ns) {
  const int64_t coarse = when_ns - SwitchPollNs();
  const int64_t now = MonotonicNowNs();
  if (coarse > now) {
    finished_.WaitForNotificationWithTimeout(absl::Nanoseconds(coarse - now));
  }
  return PollUntilInstant(when_ns,
                          [this] { return finished_.HasBeenNotified(); });
}

void Workload::Drive() {
  const int64_t start = control_.measure_start_ns;
  if (spec_.spec.ramp_time > absl::ZeroDuration()) {
    // Measuring starts when the ramp ends; the device's counters are read
    // as close to that moment as this thread wakes (Launch() reads them
    // before any I/O when there is no ramp). The phase is made before
    // (its histograms zeroed and, as this thread's first allocation, a
    // heap mapped for it): where this thread shares a submitter's CPU, the
    // measured window loses only the CPU times' and the counters' reads
    // and the append.
    std::shared_ptr<PhaseBoundary> first = FirstPhaseBoundary(start);
    WaitForInstant(start);
    MarkCpuBaselines();
    std::vector<CpuTicks> ticks = CpuTicksNow();
    PiMutexLock switch_lock(&switch_mu_);
    PiMutexLock lock(&mu_);
    start_cpu_ticks_ = std::move(ticks);
    // The engine's counters are zero at this moment. Gate mode opens the
    // first phase at attainment instead (CheckSteadyState()).
    if (!Gated()) OpenFirstPhaseLocked(std::move(first), ReadDevices());
  }
  // The time series: on this thread, once per series_interval; beside the
  // A/B schedule or the SLO search on a thread of its own, as they keep
  // this one until the end.
  const bool busy = !spec_.spec.ab_strategies.empty() || spec_.spec.slo.enabled;
  if (busy) series_thread_ = std::thread([this] { RecordSeries(); });
  RunAbSchedule();
  if (spec_.spec.slo.enabled) RunSloSearch();
  if (!busy) RecordSeries();
  // The last submitter to end records the final device counters.
}

void Workload::RecordSeries() {
  // Released and its measured window set (Release(); Go() releases later).
  while (!started_.load(std::memory_order_acquire)) {
    if (cancel_.load() ||
        finished_.WaitForNotificationWithTimeout(absl::Milliseconds(10))) {
      return;
    }
  }
  const int64_t start = control_.measure_start_ns;
  const int64_t end = control_.end_ns;  // 0: until stopped or done
  const int64_t step = absl::ToInt64Nanoseconds(spec_.spec.series_interval);
  for (int64_t k = 1;; ++k) {
    const int64_t at = end != 0 ? std::min(start + k * step, end)
                                : start + k * step;
    // One wake-up per tick; every end (stop, abort, the destructor's)
    // notifies finished_. Ended: Snapshot() adds the tail.
    const int64_t now = MonotonicNowNs();
    if (at > now &&
        finished_.WaitForNotificationWithTimeout(absl::Nanoseconds(at - now))) {
      return;
    }
    if (finished_.HasBeenNotified()) return;
    std::vector<ThreadSnapshot> threads = ThreadTotalsNow();
    ThreadSnapshot totals;
    for (const ThreadSnapshot& thread : threads) totals.Merge(thread);
    SeriesPoint point;
    {
      absl::MutexLock lock(&series_mu_);
      point = series_.Add(absl::Nanoseconds(at - start), totals);
    }
    if (spec_.spec.steady_state.enabled) {
      CheckSteadyState(point, at, std::move(threads));
    }
    if (at == end) return;
  }
}

void Workload::CheckSteadyState(const SeriesPoint& point, int64_t at_ns,
                                std::vector<ThreadSnapshot> threads) {
  SteadyStateChecker::Event event;
  {
    absl::MutexLock lock(&series_mu_);
    event = steady_->Add(point);
    if (event == SteadyStateChecker::Event::kAttained && Gated()) {
      gate_.Attain(at_ns, std::move(threads));
    }
  }
  if (event != SteadyStateChecker::Event::kAttained) return;
  if (!Gated()) {
    PiMutexLock lock(&mu_);
    StopLocked();  // not a user's stop: the workload ends finished
    return;
  }
  // Measuring begins here: the first phase from the devices' counters now
  // (its counts are the gate's rebased totals, so it starts at zero).
  std::shared_ptr<PhaseBoundary> first = FirstPhaseBoundary(at_ns);
  const DeviceCounters device = ReadDevices();
  PiMutexLock switch_lock(&switch_mu_);
  PiMutexLock lock(&mu_);
  OpenFirstPhaseLocked(std::move(first), device);
}

void Workload::RecordFinalDevices() {
  const DeviceCounters device = ReadDevices();
  std::vector<CpuTicks> ticks = CpuTicksNow();
  PiMutexLock lock(&mu_);
  final_device_ = device;
  have_final_device_ = true;
  final_cpu_ticks_ = std::move(ticks);
}

void Workload::RunAbSchedule() {
  const std::vector<SplitStrategy>& ab = spec_.spec.ab_strategies;
  const int64_t start = control_.measure_start_ns;
  const int64_t slice = absl::ToInt64Nanoseconds(spec_.spec.ab_slice);
  for (size_t k = 1; !ab.empty(); ++k) {
    const int64_t at = start + static_cast<int64_t>(k) * slice;
    if (control_.end_ns != 0 && at >= control_.end_ns) break;
    // The wait and the publication at real-time priority, as a scheduled
    // switch's: at the normal policy, with the submitters busy on every
    // CPU, switches began up to 23 ms late (a test on the development VM).
    // The boundary after it: EndPhaseAfterPublish().
    RealtimePriority priority;
    const absl::Status raised = priority.Raise();
    if (!raised.ok()) NoteAbWaitRefused(raised);
    if (!WaitForInstant(at)) break;
    PiMutexLock lock(&switch_mu_);
    const absl::StatusOr<PublishedSwitch> published =
        PublishLocked(ab[k % ab.size()]);
    priority.Restore();
    if (!published.ok()) break;
    // A thread late to take this switch up never delays the next one: the
    // wait for it ends three quarters into the slice, leaving the rest for
    // the boundary's reads.
    EndPhaseAfterPublish(*published, at + slice - slice / 4);
  }
}

void Workload::NoteAbWaitRefused(const absl::Status& refusal) {
  PiMutexLock lock(&mu_);
  if (!ab_wait_note_.empty()) return;
  ab_wait_note_ = absl::StrCat(
      "A/B: switches wait at the normal scheduling policy and can land up "
      "to a scheduler slice late while every CPU is busy (",
      refusal.message(), ")");
}

bool Workload::WaitUntil(int64_t when_ns) {
  // The SLO search's steps need no sub-millisecond start: a timed wait.
  const int64_t now = MonotonicNowNs();
  if (when_ns > now) {
    finished_.WaitForNotificationWithTimeout(absl::Nanoseconds(when_ns - now));
  }
  return !finished_.HasBeenNotified();
}

internal::SloStepMeasure Workload::MeasureSloStep(double rate) {
  const SloSpec& slo = spec_.spec.slo;
  // Every thread gets an equal share of the step's rate; the submitters
  // restart their schedules when they see the generation change.
  const uint32_t generation = control_.rate_generation.load() + 1;
  control_.rates[generation] = {
      .per_second = rate / spec_.spec.threads,
      .arrivals = spec_.spec.arrivals};
  control_.rate_generation.store(generation, std::memory_order_release);
  internal::SloStepMeasure m;
  if (!WaitUntil(MonotonicNowNs() + absl::ToInt64Nanoseconds(slo.settle))) {
    return m;
  }
  const ThreadSnapshot before = TotalsNow();
  const int64_t from = MonotonicNowNs();
  if (!WaitUntil(from + absl::ToInt64Nanoseconds(slo.step))) return m;
  m.totals = TotalsNow();
  m.totals.Subtract(before);
  m.elapsed = absl::Nanoseconds(MonotonicNowNs() - from);
  m.complete = true;
  return m;
}

absl::Status Workload::SetOpenLoopRate(double iops) {
  const WorkloadSpec& spec = spec_.spec;
  if (spec.rate_iops == 0 || !spec.groups.empty() || spec.slo.enabled) {
    return absl::FailedPreconditionError(
        "rate: only a rate_iops workload without groups or SLO search "
        "changes its open-loop rate");
  }
  if (!(iops > 0) || !std::isfinite(iops)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rate ", iops, " must be above 0"));
  }
  PiMutexLock lock(&mu_);
  if (finished_.HasBeenNotified()) {
    return absl::FailedPreconditionError("rate: the workload has ended");
  }
  const uint32_t generation = control_.rate_generation.load() + 1;
  if (generation >= control_.rates.size()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "rate: at most ", control_.rates.size() - 1, " changes per workload"));
  }
  control_.rates[generation] = {.per_second = iops / spec.threads,
                                .arrivals = spec.arrivals};
  control_.rate_generation.store(generation, std::memory_order_release);
  return absl::OkStatus();
}

void Workload::RunSloSearch() {
  const SloSpec& slo = spec_.spec.slo;
  SloSearch search(slo.target, slo.precision, slo.step, slo.settle);
  while (std::optional<double> rate = search.NextRate()) {
    const internal::SloStepMeasure m = MeasureSloStep(*rate);
    if (!m.complete) break;  // stopped, aborted or failed meanwhile
    SloStep step;
    step.asked_iops = *rate;
    step.elapsed = m.elapsed;
    step.ios = m.totals.ios;
    step.iops = m.totals.Iops(m.elapsed);
    step.late_ios = m.totals.late_ios;
    // Open-loop steps by intended time; the closed-loop step's intended
    // time is its submission, so its service latency is the same thing.
    const LatencyHistogram& h =
        *rate > 0 ? m.totals.intended_latency : m.totals.latency;
    step.p50_ns = h.Percentile(50);
    step.p99_ns = h.Percentile(99);
    step.p99_9_ns = h.Percentile(99.9);
    step.value_ns = h.Percentile(slo.target.percentile);
    const PercentileInterval ci =
        PercentileIntervalOf(h, slo.target.percentile, kSloConfidence);
    step.interval_known = true;
    step.tail_ios = ci.tail_samples;
    step.value_low_ns = ci.low_ns;
    step.value_high_ns = ci.high_ns;
    step.value_bounded_above = ci.bounded_above;
    search.Record(step);
    PiMutexLock lock(&mu_);
    slo_ = search.summary();
  }
  PiMutexLock lock(&mu_);
  slo_ = search.summary();
  // The search is the workload: it ends finished (not stopped) once done.
  if (slo_.done) control_.stop.store(true);
}

absl::Status Workload::LaunchThreads() {
  const uint32_t threads = spec_.spec.threads;
  for (uint32_t i = 0; i < threads; ++i) {
    submitters_.push_back(std::make_unique<SubmitterThread>(
        spec_, static_cast<int>(i), fds_, &control_));
  }
  running_threads_.store(static_cast<int>(threads));
  for (uint32_t i = 0; i < threads; ++i) {
    SubmitterThread* submitter = submitters_[i].get();
    threads_.emplace_back([this, submitter] {
      submitter->ThreadMain([this] {
        if (running_threads_.fetch_sub(1) != 1) return;
        // The last thread out: the devices' counters at the end, before
        // any reader can see the workload finished.
        RecordFinalDevices();
        // No thread touches the verify tables any more: the next run may
        // take them.
        for (const auto& state : verify_states_) state->Unlock();
        finished_.Notify();
      });
    });
  }
  absl::Status failure;
  for (auto& submitter : submitters_) {
    submitter->ready().WaitForNotification();
    if (failure.ok() && !submitter->setup_status().ok()) {
      failure = submitter->setup_status();
    }
  }
  for (auto& submitter : submitters_) {
    for (const std::string& note : submitter->notes()) {
      if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) {
        notes_.push_back(note);
      }
    }
  }
  if (!failure.ok()) {
    control_.abort.store(true);
    control_.go.Open();
    Wait();
    return failure;
  }
  return absl::OkStatus();
}

bool Workload::Release(const DeviceCounters& device_baseline,
                       int64_t start_at_ns) {
  PiMutexLock switch_lock(&switch_mu_);
  PiMutexLock lock(&mu_);
  if (stopped_by_user_.load() || aborted_) return false;
  const int64_t now = MonotonicNowNs();
  const int64_t start = std::max(now, start_at_ns);
  control_.start_at_ns = start > now ? start : 0;
  // A gate that opens after a scheduled instant: no thread waited for it.
  if (start_at_ns != 0 && now > start_at_ns) {
    gate_late_ns_.store(now - start_at_ns);
  }
  start_time_ = absl::Now() + absl::Nanoseconds(start - now);
  control_.measure_start_ns =
      start + absl::ToInt64Nanoseconds(spec_.spec.ramp_time);
  control_.end_ns =
      spec_.spec.runtime > absl::ZeroDuration()
          ? control_.measure_start_ns + absl::ToInt64Nanoseconds(spec_.spec.runtime)
          : 0;
  if (spec_.spec.slo.enabled) {
    // The search ends the workload; this only bounds a search that would
    // not (its most steps, and a second per step to spare).
    const SloSpec& slo = spec_.spec.slo;
    control_.end_ns =
        control_.measure_start_ns +
        SloSteps(slo.precision) *
            absl::ToInt64Nanoseconds(slo.settle + slo.step + absl::Seconds(1));
  }
  if (spec_.spec.ramp_time <= absl::ZeroDuration()) {
    // Measuring starts with the first I/O: the device's counters and the
    // threads' CPU from before any, so device requests per SQE and CPU per
    // I/O cover the same I/O (not the setup; a start at an instant adds
    // the threads' last poll for it, kStartSpinWindowNs at most).
    MarkCpuBaselines();
    start_cpu_ticks_ = CpuTicksNow();
    if (!Gated()) {
      OpenFirstPhaseLocked(FirstPhaseBoundary(control_.measure_start_ns),
                           device_baseline);
    }
  }
  started_.store(true, std::memory_order_release);
  control_.go.Open();
  return true;
}

void Workload::RequestStop() {
  PiMutexLock lock(&mu_);
  if (!finished_.HasBeenNotified()) stopped_by_user_.store(true);
  StopLocked();
}

void Workload::RequestStopFromSignal() {
  static_assert(std::atomic<bool>::is_always_lock_free);
  if (!started_.load(std::memory_order_acquire)) {
    // Preconditioning: its driver sees cancel_ and ends the workload.
    if (preconditioning_.load()) {
      stopped_by_user_.store(true);
      cancel_.store(true);
    }
    return;  // see the header
  }
  if (!finished_.HasBeenNotified()) stopped_by_user_.store(true);
  StopRunning();
}

void Workload::StopRunning() {
  cancel_.store(true);
  control_.stop.store(true);
}

void Workload::StopLocked() {
  StopRunning();
  if (!started_.load()) {
    // Armed (or released but still sleeping until its instant): the
    // submitters leave the gate and exit without issuing I/O.
    control_.abort.store(true);
    control_.go.Open();
  }
}

void Workload::Wait() {
  if (threads_.empty()) return;  // never launched
  finished_.WaitForNotification();
  // join_mu_, not mu_: Snapshot() takes mu_ and must never wait for a join.
  absl::MutexLock lock(&join_mu_);
  for (size_t i = 0; i < threads_.size(); ++i) {
    if (threads_[i].joinable() && !submitters_[i]->abandoned()) {
      threads_[i].join();
    }
  }
}

bool Workload::WaitFor(absl::Duration timeout) {
  return finished_.WaitForNotificationWithTimeout(timeout);
}

bool Workload::Finished() const { return finished_.HasBeenNotified(); }

namespace {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

void Workload::FillPhases(const PhaseBoundaries& phases,
                          const DeviceCounters& device_now,
                          int64_t measure_start, int64_t end_ns,
                          WorkloadSnapshot* snapshot) const {
  ReportPhases(phases, measure_start, end_ns, device_now, snapshot);
  // Every phase's counts, also of phases reported merged.
  const std::vector<PhaseRate> rates =
      PhaseRates(phases, measure_start, end_ns, snapshot->total);
  // A/B: median of each strategy's full slices, ratio to the first.
  const std::vector<SplitStrategy>& ab = spec_.spec.ab_strategies;
  const absl::Duration half_slice = spec_.spec.ab_slice / 2;
  for (const SplitStrategy& strategy : ab) {
    AbStrategyResult result;
    result.strategy = SplitStrategyName(strategy);
    std::vector<double> iops, bandwidth;
    for (const PhaseRate& phase : rates) {
      // A slice cut short by the end of the run would skew its median.
      if (phase.strategy != result.strategy || phase.elapsed < half_slice) {
        continue;
      }
      iops.push_back(phase.Iops());
      bandwidth.push_back(phase.BytesPerSecond());
    }
    result.slices = static_cast<int>(iops.size());
    if (result.slices < kMinAbSlices) {
      result.note = absl::StrCat(
          "the median rests on ", result.slices, " full slice",
          result.slices == 1 ? "" : "s", " (fewer than ", kMinAbSlices,
          "): lengthen runtime or shorten ab_slice");
    }
    result.median_iops = Median(iops);
    result.median_bytes_per_second = Median(bandwidth);
    snapshot->ab.push_back(std::move(result));
  }
  for (AbStrategyResult& result : snapshot->ab) {
    const double first = snapshot->ab[0].median_iops;
    result.ratio_to_first = first > 0 ? result.median_iops / first : 0;
  }
  PairAbSlices(rates, snapshot);
}

void Workload::PairAbSlices(const std::vector<PhaseRate>& rates,
                            WorkloadSnapshot* snapshot) const {
  // Each strategy's full slices' IOPS, in the order they ran.
  const absl::Duration half_slice = spec_.spec.ab_slice / 2;
  std::vector<std::vector<double>> slices(snapshot->ab.size());
  for (const PhaseRate& phase : rates) {
    for (size_t i = 0; i < snapshot->ab.size(); ++i) {
      const double iops = phase.Iops();
      if (phase.strategy == snapshot->ab[i].strategy &&
          phase.elapsed >= half_slice && iops > 0) {
        slices[i].push_back(iops);
      }
    }
  }
  for (size_t i = 1; i < snapshot->ab.size(); ++i) {
    const size_t pairs = std::min(slices[0].size(), slices[i].size());
    if (pairs == 0) continue;
    const std::vector<double> first(slices[0].begin(), slices[0].begin() + pairs);
    const std::vector<double> other(slices[i].begin(), slices[i].begin() + pairs);
    const RatioEstimate r = PairedRatio(first, other, kAbConfidence);
    AbStrategyResult& result = snapshot->ab[i];
    result.paired_ratio = r.ratio;
    result.paired_ratio_ci_low = r.ci_lo;
    result.paired_ratio_ci_high = r.ci_hi;
    result.pairs = r.samples;
    result.verdict = std::string(
        VerdictName(Decide(r.ci_lo, r.ci_hi, kAbMargin, Better::kHigher)));
  }
}

void Workload::FillGroups(WorkloadSnapshot* snapshot) const {
  if (spec_.spec.groups.empty()) return;
  for (const GroupShape& g : spec_.groups) {
    GroupSnapshot group;
    group.name = g.name;
    for (uint32_t t = g.first_thread;
         t < g.first_thread + g.threads && t < snapshot->threads.size(); ++t) {
      group.threads.push_back(static_cast<int>(t));
      group.total.Merge(snapshot->threads[t]);
    }
    snapshot->groups.push_back(std::move(group));
  }
}

void Workload::FillErrorSites(WorkloadSnapshot* snapshot) const {
  const uint32_t claimed = std::min<uint32_t>(
      control_.error_sites_claimed.load(), kMaxErrorSites);
  for (uint32_t i = 0; i < claimed; ++i) {
    const internal::ErrorSiteSlot& slot = control_.error_sites[i];
    if (!slot.ready.load(std::memory_order_acquire)) continue;  // being set
    snapshot->error_sites.push_back(
        {slot.errno_value, spec_.spec.targets[slot.target].path, slot.offset});
  }
}

void Workload::FillBufferPlacement(BufferPlacement* placement) const {
  if (spec_.spec.nop) return;  // NOPs carry no buffers
  internal::PagePlacement all;
  for (const auto& submitter : submitters_) {
    const absl::StatusOr<internal::PagePlacement>& mine =
        submitter->buffer_placement();
    if (!mine.ok()) {
      placement->unreadable = std::string(mine.status().message());
      return;
    }
    all.Merge(*mine);
  }
  placement->read = true;
  placement->pages_present = all.pages_present;
  placement->adjacent_share = all.AdjacentShare();
}

StartTimes Workload::StartTimesNow() const {
  StartTimes start;
  start.scheduled_monotonic_ns = scheduled_ns_.load();
  // Pairs with Release(): measure_start_ns is written before started_.
  if (started_.load(std::memory_order_acquire)) {
    start.measure_start_monotonic_ns = control_.measure_start_ns;
  }
  for (const auto& submitter : submitters_) {
    const int64_t monotonic = submitter->first_submit_monotonic_ns();
    if (monotonic == 0) continue;
    if (start.threads_started == 0 || monotonic < start.first_monotonic_ns) {
      start.first_monotonic_ns = monotonic;
      start.first_realtime_ns = submitter->first_submit_realtime_ns();
    }
    start.last_monotonic_ns = std::max(start.last_monotonic_ns, monotonic);
    ++start.threads_started;
    // Written before the stamp the acquire load above read.
    if (submitter->start_wait_realtime()) {
      ++start.realtime_wait_threads;
    } else if (start.realtime_wait_error.empty()) {
      start.realtime_wait_error = submitter->start_wait_error();
    }
  }
  if (const int64_t late = gate_late_ns_.load();
      late != 0 && start.realtime_wait_error.empty()) {
    start.realtime_wait_error = absl::StrCat(
        "the start gate opened ",
        absl::FormatDuration(absl::Nanoseconds(late)),
        " after the instant, so no thread waited for it");
  }
  return start;
}

Workload::LockedState Workload::ReadLockedState(
    WorkloadSnapshot* snapshot) const {
  LockedState locked;
  PiMutexLock lock(&mu_);
  locked.stopped_by_user = stopped_by_user_.load();
  locked.aborted = aborted_;
  locked.precondition_failed = precondition_failed_;
  if (precondition_failed_) {
    snapshot->has_error = true;
    snapshot->error = precondition_error_;
  }
  snapshot->precondition = precondition_;
  locked.phases = phases_;
  locked.ab_wait_note = ab_wait_note_;
  snapshot->slo = slo_;
  locked.device_now = have_final_device_ ? final_device_ : ReadDevices();
  locked.start_ticks = start_cpu_ticks_;
  locked.end_ticks = final_cpu_ticks_;
  snapshot->split_strategy = SplitStrategyName(
      control_.split_strategies[control_.split_generation.load()]);
  return locked;
}

int64_t Workload::FillThreads(WorkloadSnapshot* snapshot) const {
  int64_t last_reap = 0;
  SampleIoWorkers();
  for (const auto& submitter : submitters_) {
    ThreadSnapshot thread;
    submitter->Snapshot(&thread);
    snapshot->total.Merge(thread);
    snapshot->threads.push_back(std::move(thread));
    last_reap = std::max(last_reap, submitter->last_reap_ns());
  }
  if (!submitters_.empty()) snapshot->ring = submitters_[0]->ring_setup();
  return last_reap;
}

bool Workload::FillError(WorkloadSnapshot* snapshot) const {
  const bool fatal = control_.fatal_published.load(std::memory_order_acquire);
  if (snapshot->has_error) {
    // Preconditioning's failure (ReadLockedState): the threads issued no I/O.
  } else if (fatal) {
    snapshot->has_error = true;
    snapshot->error = control_.fatal_error;
  } else if (control_.first_error_published.load(std::memory_order_acquire)) {
    snapshot->has_error = true;
    snapshot->error = control_.first_error;
  }
  return fatal;
}

void Workload::FillVerify(WorkloadSnapshot* snapshot) const {
  if (!spec_.spec.verify) return;
  for (const auto& submitter : submitters_) {
    submitter->AddVerify(&snapshot->verify);
  }
  for (const auto& state : verify_states_) {
    snapshot->verify.state_files.push_back(state->path());
  }
}

WorkloadState Workload::StateOf(const WorkloadSnapshot& snapshot,
                                const LockedState& locked, bool finished,
                                bool started, bool fatal, int64_t now) const {
  if (finished) {
    if (locked.aborted) return WorkloadState::kAborted;
    if (locked.precondition_failed || fatal || (snapshot.has_error && !spec_.spec.continue_on_error)) {
      return WorkloadState::kFailed;
    }
    if (locked.stopped_by_user) return WorkloadState::kStopped;
    if (snapshot.total.ErrorTotal() != 0) {
      return WorkloadState::kFinishedWithErrors;
    }
    return WorkloadState::kFinished;
  }
  if (!started && preconditioning_.load()) {
    return locked.stopped_by_user || locked.aborted ? WorkloadState::kStopping
                                                    : WorkloadState::kCreating;
  }
  if (!started || now < control_.start_at_ns) {
    return locked.stopped_by_user || locked.aborted ? WorkloadState::kStopping
                                                    : WorkloadState::kArmed;
  }
  if (control_.stop.load() ||
      (control_.end_ns != 0 && now >= control_.end_ns)) {
    return WorkloadState::kStopping;
  }
  if (now < control_.measure_start_ns) return WorkloadState::kRamping;
  return WorkloadState::kRunning;
}

std::vector<CpuTicks> Workload::CpuTicksNow() {
  absl::StatusOr<std::vector<CpuTicks>> ticks = ReadCpuTicks();
  return ticks.ok() ? *std::move(ticks) : std::vector<CpuTicks>();
}

bool Workload::FillSeriesAndGate(bool started, int64_t end,
                                 int64_t* measure_start,
                                 WorkloadSnapshot* snapshot) const {
  absl::MutexLock lock(&series_mu_);
  if (!started) {
    snapshot->series.interval = spec_.spec.series_interval;
    return true;
  }
  // The series of every interval: before a gate rebases the totals.
  snapshot->elapsed = absl::Nanoseconds(
      std::max<int64_t>(0, end - control_.measure_start_ns));
  snapshot->series = series_.Get(snapshot->elapsed, snapshot->total);
  if (steady_ != nullptr) snapshot->steady_state = steady_->result();
  if (!Gated()) return true;
  ApplySteadyGate(gate_, end, snapshot);
  if (gate_.attained) *measure_start = gate_.at_ns;
  return gate_.attained;
}

WorkloadSnapshot Workload::Snapshot() const {
  WorkloadSnapshot snapshot;
  snapshot.taken = absl::Now();
  const bool finished = finished_.HasBeenNotified();
  // Pairs with Release(): the measured window is readable once started.
  const bool started = started_.load(std::memory_order_acquire);
  // The phases before the threads' counters (and now): every boundary
  // copied was marked before those counters are read, so the last phase
  // never ends before it starts and the phases add up to the totals while
  // running too. A switch after the copy shows in the next snapshot.
  const LockedState locked = ReadLockedState(&snapshot);
  const int64_t now = MonotonicNowNs();
  const int64_t last_reap = FillThreads(&snapshot);
  if (finished) FillBufferPlacement(&snapshot.buffer_placement);
  const int64_t end = finished ? last_reap : now;
  snapshot.start = StartTimesNow();
  int64_t measure_start = control_.measure_start_ns;
  const bool gate_open =
      FillSeriesAndGate(started, end, &measure_start, &snapshot);
  FillGroups(&snapshot);
  snapshot.notes = notes_;
  const std::string late_take_up_note = LateTakeUpNote(locked.phases);
  if (!late_take_up_note.empty()) snapshot.notes.push_back(late_take_up_note);
  if (!locked.ab_wait_note.empty()) {
    snapshot.notes.push_back(locked.ab_wait_note);
  }
  const bool fatal = FillError(&snapshot);
  FillErrorSites(&snapshot);
  // Gate mode opens phases at attainment (another thread may have
  // attained since the gate was read: its phase shows next time).
  if (started && gate_open && !locked.phases.empty()) {
    FillPhases(locked.phases, locked.device_now, measure_start, end,
               &snapshot);
  }
  // Gate mode measures from attainment, when no /proc/stat was read: the
  // share stays unknown rather than cover the unsteady time.
  if (started && !Gated() && !locked.start_ticks.empty()) {
    std::vector<CpuTicks> end_ticks = locked.end_ticks;
    if (end_ticks.empty()) end_ticks = CpuTicksNow();  // still running
    // The workload's own threads: submitters and io-wq workers, from
    // their baselines at the measured window's start.
    const ThreadSnapshot& own = snapshot.total;
    snapshot.other_cpu_share = SubmitterCpusOtherShare(
        snapshot, locked.start_ticks, end_ticks,
        own.user_cpu_seconds + own.system_cpu_seconds +
            own.io_worker_cpu_seconds);
  }
  snapshot.environment = environment_;
  snapshot.environment.io_uring_features = IoUringFeatures(snapshot.ring);
  FillVerify(&snapshot);
  snapshot.state = StateOf(snapshot, locked, finished, started, fatal, now);
  // Gate mode: ramping until steady state is attained.
  if (snapshot.state == WorkloadState::kRunning && !gate_open) {
    snapshot.state = WorkloadState::kRamping;
  }
  if (snapshot.state == WorkloadState::kCreating) {
    snapshot.notes.push_back(PreconditionProgressText(snapshot.precondition));
  }
  return snapshot;
}

}  // namespace blkperf
