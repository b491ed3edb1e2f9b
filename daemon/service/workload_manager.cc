#include "daemon/service/workload_manager.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "daemon/common/default_target.h"
#include "daemon/engine/host/cpu_isolation.h"
#include "daemon/engine/host/host_cpus.h"
#include "daemon/service/kept_result.h"

namespace blkperf {

struct WorkloadManager::Entry {
  std::string id;
  std::string owner;
  // The manager's end listener (may be empty); outlives the entry.
  const EndListener* on_end = nullptr;
  absl::Time start_time;
  // Past this the daemon stops the workload (a watchdog: every spec's
  // runtime is within --max_runtime; armed ones count from their lease end).
  // Guarded by `mu` once the entry is listed.
  absl::Time deadline;
  // An io_count-only spec given runtime = --max_runtime by the daemon.
  bool runtime_capped = false;
  WorkloadSpec spec;  // resolved
  std::vector<TargetInfo> targets;  // as probed at the start
  Reservation claims;
  std::atomic<bool> ended{false};
  WorkloadSpec requested;  // as asked for: a retry must ask for the same
  // Fleet runs. An armed workload's lease ends at lease_end (absl clock) and
  // lease_end_ns (CLOCK_MONOTONIC).
  absl::Time lease_end = absl::InfiniteFuture();
  int64_t lease_end_ns = 0;
  // Armed and not yet released by Go (nor ended): counts to --max_armed.
  std::atomic<bool> waiting_for_go{false};

  absl::Mutex mu;
  // Shared so Shutdown can wait on it without holding `mu`.
  std::shared_ptr<RunningWorkload> workload ABSL_GUARDED_BY(mu);
  WorkloadSnapshot final_snapshot ABSL_GUARDED_BY(mu);
  absl::Time end_time ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  SplitStrategy split ABSL_GUARDED_BY(mu);
  bool stop_requested ABSL_GUARDED_BY(mu) = false;
  std::vector<std::string> notes ABSL_GUARDED_BY(mu);
  bool aborted ABSL_GUARDED_BY(mu) = false;
  std::string end_reason ABSL_GUARDED_BY(mu);
};

namespace {

// Grace past --max_runtime for setup and draining before the watchdog acts.
constexpr absl::Duration kDeadlineGrace = absl::Seconds(5);
constexpr absl::Duration kReapInterval = absl::Milliseconds(100);
// Longest end_reason taken from a failed workload's error message.
constexpr size_t kMaxEndReason = 512;

// What the allow lists need before the engine probes anything: the resolved
// path and whether it is a block device.
TargetInfo PreliminaryInfo(const std::string& path) {
  TargetInfo info;
  info.path = path;
  info.resolved_path = AccessPolicy::ResolvePath(path);
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
    info.kind = TargetKind::kBlockDevice;
  }
  return info;
}

bool Overlaps(const std::string& a_disk, const std::string& a_part,
              const std::string& b_disk, const std::string& b_part) {
  if (a_disk.empty() || a_disk != b_disk) return false;
  return a_part.empty() || b_part.empty() || a_part == b_part;
}

// At most `max_bytes` of `text`, never ending inside a UTF-8 sequence.
std::string CutUtf8(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return std::string(text.substr(0, end));
}

EngineLimits RelaxedEngineLimits(const ManagerLimits& limits) {
  // The manager checks queue depth and run time itself (with
  // RESOURCE_EXHAUSTED naming its flags; a run time past the limit may be
  // capped instead). Buffer memory is the engine's one rule over the
  // resolved groups (GroupBufferBytes), at the daemon's limit, named as
  // its flag. The engine keeps its own bounds on block size and threads.
  EngineLimits engine;
  engine.max_queue_depth =
      std::max(engine.max_queue_depth, limits.max_queue_depth);
  engine.max_buffer_bytes = limits.max_buffer_bytes;
  engine.max_runtime = absl::InfiniteDuration();
  engine.daemon_flags = true;
  return engine;
}

}  // namespace

absl::Status ValidateRunId(absl::string_view run_id, absl::string_view field) {
  const bool charset_ok =
      std::all_of(run_id.begin(), run_id.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
               c == '.' || c == '_' || c == '-';
      });
  if (!run_id.empty() && run_id.size() <= 64 && charset_ok) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      field, " \"", absl::CEscape(run_id.substr(0, 64)),
      run_id.size() > 64 ? "...\"" : "\"", " (", run_id.size(),
      " bytes) is not 1-64 characters of [A-Za-z0-9._-]"));
}

WorkloadManager::WorkloadManager(std::unique_ptr<WorkloadBackend> backend,
                                 ManagerLimits limits, AccessPolicy policy,
                                 std::string data_dir, DataDir* ids)
    : backend_(std::move(backend)),
      limits_(limits),
      policy_(std::move(policy)),
      engine_limits_(RelaxedEngineLimits(limits)),
      data_dir_(std::move(data_dir)),
      ids_(ids) {
  reaper_ = std::thread([this] { ReaperLoop(); });
}

WorkloadManager::~WorkloadManager() { Shutdown(absl::Seconds(10)); }

absl::Status WorkloadManager::CheckLimits(const WorkloadSpec& spec) const {
  if (spec.queue_depth > limits_.max_queue_depth) {
    return absl::ResourceExhaustedError(
        absl::StrCat("spec.queue_depth ", spec.queue_depth,
                     " exceeds the daemon limit --max_queue_depth=",
                     limits_.max_queue_depth));
  }
  for (size_t i = 0; i < spec.groups.size(); ++i) {
    const std::optional<uint32_t>& qd = spec.groups[i].queue_depth;
    if (qd.has_value() && *qd > limits_.max_queue_depth) {
      return absl::ResourceExhaustedError(
          absl::StrCat("spec.groups[", i, "].queue_depth ", *qd,
                       " exceeds the daemon limit --max_queue_depth=",
                       limits_.max_queue_depth));
    }
  }
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    if (spec.targets[i].create_size > limits_.max_create_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "spec.targets[", i, "].create_size ", spec.targets[i].create_size,
          " exceeds the daemon limit --max_create_bytes=",
          limits_.max_create_bytes));
    }
  }
  const absl::Duration total = SpecMaxDuration(spec);
  if (total > limits_.max_runtime) {
    return absl::ResourceExhaustedError(absl::StrCat(
        spec.slo.enabled ? "spec.ramp_time + the SLO search's steps x "
                           "(spec.slo.settle + spec.slo.step) = "
                         : "spec.ramp_time + spec.runtime = ",
        absl::FormatDuration(total),
        " exceeds the daemon limit --max_runtime=",
        absl::FormatDuration(limits_.max_runtime)));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> WorkloadManager::CapRuntime(WorkloadSpec& spec) const {
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    if (spec.targets[i].path.size() > kMaxPathBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.targets[", i, "].path is ", spec.targets[i].path.size(),
          " bytes, longer than the ", kMaxPathBytes, " a path may have"));
    }
  }
  if (spec.runtime != absl::ZeroDuration() || spec.io_count == 0) return false;
  const absl::Duration left = limits_.max_runtime - spec.ramp_time;
  if (left <= absl::ZeroDuration()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "spec.ramp_time ", absl::FormatDuration(spec.ramp_time),
        " leaves no time for an io_count-only run under the daemon limit "
        "--max_runtime=",
        absl::FormatDuration(limits_.max_runtime)));
  }
  spec.runtime = left;
  return true;
}

absl::StatusOr<TargetSpec> WorkloadManager::DefaultTarget() const {
  if (data_dir_.empty()) {
    return absl::InvalidArgumentError(
        "spec.targets is empty: at least one target is required (this daemon "
        "has no data directory for a default target)");
  }
  absl::StatusOr<TargetSpec> target = blkperf::DefaultTarget(data_dir_);
  if (!target.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("spec.targets is empty and the ", target.status().message()));
  }
  return target;
}

absl::StatusOr<std::vector<TargetInfo>> WorkloadManager::ProbeTargets(
    const WorkloadSpec& spec) {
  std::vector<TargetInfo> infos;
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    const TargetSpec& t = spec.targets[i];
    absl::StatusOr<TargetInfo> info = backend_->Probe(t.path);
    if (info.ok()) {
      infos.push_back(*std::move(info));
    } else if (absl::IsNotFound(info.status()) && t.create_size != 0) {
      // Workload::Start creates it; until then it is a regular file to be.
      infos.push_back(PreliminaryInfo(t.path));
      infos.back().kind = TargetKind::kRegularFile;
    } else if (absl::IsNotFound(info.status())) {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.targets[", i, "].path ", t.path,
                       " does not exist (set create_size to create a file)"));
    } else {
      return absl::Status(info.status().code(),
                          absl::StrCat("spec.targets[", i,
                                       "].path: ", info.status().message()));
    }
  }
  return infos;
}

absl::Status WorkloadManager::CheckConflicts(const Reservation& wanted) const {
  struct Holder {
    std::string name;
    const Reservation* claims;
  };
  std::vector<Holder> holders;
  for (const std::shared_ptr<Entry>& e : running_) {
    if (!e->ended.load())
      holders.push_back({"running workload " + e->id, &e->claims});
  }
  for (const Reservation& r : starting_) {
    holders.push_back({"a workload being started", &r});
  }
  for (const Holder& h : holders) {
    for (int cpu : wanted.cpus) {
      if (std::find(h.claims->cpus.begin(), h.claims->cpus.end(), cpu) !=
          h.claims->cpus.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "spec.cpus: CPU ", cpu, " is in use by ", h.name,
            " (its CPUs: ", absl::StrJoin(h.claims->cpus, ","),
            "; this workload's: ", absl::StrJoin(wanted.cpus, ","), ")"));
      }
    }
    for (size_t i = 0; i < wanted.targets.size(); ++i) {
      const TargetKey& a = wanted.targets[i];
      for (const TargetKey& b : h.claims->targets) {
        const bool same_file =
            a.path == b.path || (!a.block && !b.block && a.st_ino != 0 &&
                                 a.st_dev == b.st_dev && a.st_ino == b.st_ino);
        const bool same_device =
            a.block && b.block &&
            Overlaps(a.disk, a.partition, b.disk, b.partition);
        if (same_file || same_device) {
          return absl::FailedPreconditionError(absl::StrCat(
              "spec.targets[", i, "] ", a.display, " is in use by ", h.name,
              a.path == b.path ? ""
              : same_file
                  ? absl::StrCat(" (its target ", b.display,
                                 " is the same file: a hard link)")
                  : absl::StrCat(" (its target ", b.display,
                                 " is on the same device)")));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<WorkloadView> WorkloadManager::Start(
    const WorkloadSpec& requested) {
  BLKPERF_ASSIGN_OR_RETURN(ArmResult result, Launch(requested, LaunchMode{}));
  return std::move(result.view);
}

absl::StatusOr<ArmResult> WorkloadManager::Start(const WorkloadSpec& requested,
                                                 absl::string_view run_id,
                                                 std::string owner) {
  if (!run_id.empty()) BLKPERF_RETURN_IF_ERROR(ValidateRunId(run_id, "run_id"));
  return Launch(requested, LaunchMode{.run_id = std::string(run_id),
                                      .owner = std::move(owner)});
}

absl::StatusOr<ArmResult> WorkloadManager::Arm(const WorkloadSpec& requested,
                                               absl::string_view run_id,
                                               absl::Duration lease,
                                               std::string owner) {
  BLKPERF_RETURN_IF_ERROR(ValidateRunId(run_id, "run_id"));
  if (lease == absl::ZeroDuration()) lease = kDefaultArmLease;
  if (lease < kMinArmLease || lease > kMaxArmLease) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lease ", absl::FormatDuration(lease), " is outside ",
        absl::FormatDuration(kMinArmLease), "..",
        absl::FormatDuration(kMaxArmLease)));
  }
  return Launch(requested, LaunchMode{.run_id = std::string(run_id),
                                      .arm = true,
                                      .lease = lease,
                                      .owner = std::move(owner)});
}

absl::StatusOr<std::shared_ptr<WorkloadManager::Entry>>
WorkloadManager::FindRunLocked(absl::string_view owner,
                               absl::string_view run_id,
                               const WorkloadSpec& spec) const {
  for (const Reservation& r : starting_) {
    if (r.owner == owner && r.run_id == run_id) {
      return absl::UnavailableError(absl::StrCat(
          "run_id \"", run_id,
          "\" is being set up by an earlier call; retry to get its workload"));
    }
  }
  std::shared_ptr<Entry> found;
  for (const std::shared_ptr<Entry>& e : running_) {
    if (e->owner == owner && e->claims.run_id == run_id) found = e;
  }
  for (const std::shared_ptr<Entry>& e : finished_) {
    if (e->owner == owner && e->claims.run_id == run_id) found = e;
  }
  if (found != nullptr && !(found->requested == spec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "run_id \"", run_id, "\" already names workload ", found->id,
        " with another spec; a retry must send the same spec"));
  }
  return found;
}

absl::Status WorkloadManager::CheckCountsLocked(bool arm) const {
  size_t active = starting_.size(), armed = 0;
  std::vector<std::string> ids;
  for (const Reservation& r : starting_) armed += r.armed;
  for (const std::shared_ptr<Entry>& e : running_) {
    if (e->ended.load()) continue;
    ++active;
    ids.push_back(e->id);
    armed += e->waiting_for_go.load();
  }
  if (active >= limits_.max_workloads) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the daemon limit --max_workloads=", limits_.max_workloads,
        " is reached (running: ",
        ids.empty() ? "starting ones" : absl::StrJoin(ids, ", "), ")"));
  }
  if (arm && armed >= limits_.max_armed) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the daemon limit --max_armed=", limits_.max_armed,
        " is reached: that many workloads are armed and waiting for Go"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ArmResult> WorkloadManager::Launch(const WorkloadSpec& requested,
                                                  const LaunchMode& mode) {
  BLKPERF_ASSIGN_OR_RETURN(std::shared_ptr<Entry> existing,
                           KeptRun(requested, mode.owner, mode.run_id));
  if (existing != nullptr) {
    return ArmResult{View(*existing, /*with_snapshot=*/true), true};
  }
  BLKPERF_ASSIGN_OR_RETURN(LaunchPlan plan, PlanLaunch(requested));
  std::list<Reservation>::iterator reservation;
  BLKPERF_ASSIGN_OR_RETURN(existing,
                           Reserve(requested, mode, plan.wanted, &reservation));
  if (existing != nullptr) {
    return ArmResult{View(*existing, /*with_snapshot=*/true), true};
  }
  auto release = [&] {
    absl::MutexLock lock(&mu_);
    starting_.erase(reservation);
  };
  if (absl::Status claimed = ClaimExclusive(plan); !claimed.ok()) {
    release();
    return claimed;
  }
  // Numbered before it starts: a number is never handed out twice, even
  // across restarts (a failed start just skips one).
  absl::StatusOr<uint64_t> number = NextNumber();
  if (!number.ok()) {
    release();
    return number.status();
  }
  auto fill = std::make_shared<FillProgress>();
  absl::StatusOr<std::unique_ptr<RunningWorkload>> started =
      StartNumbered(plan, mode, *number, reservation, fill);
  if (!started.ok()) {
    release();
    return started.status();
  }
  RunningWorkload* const handle = started->get();
  std::shared_ptr<Entry> entry =
      NewEntry(requested, mode, plan, *number, *std::move(started));
  absl::Status kept;
  {
    absl::MutexLock lock(&mu_);
    // The point of no return: after a shutdown began or a stop of the
    // creating workload, nothing is named and nothing runs on.
    kept =
        shutting_down_ ? absl::UnavailableError(
                             "the daemon is shutting down and starts no new "
                             "workloads; created files were discarded")
        : fill->cancel.load()
            ? absl::CancelledError(absl::StrCat(
                  "workload ", entry->id,
                  " was stopped while it was being set up; created files "
                  "were discarded"))
            : handle->Publish();
    starting_.erase(reservation);
    if (kept.ok()) running_.push_back(entry);
  }
  if (!kept.ok()) {
    // Stops; the entry's end joins it, and unnamed files vanish with their
    // descriptors.
    handle->RequestStop();
    return kept;
  }
  KeepControlOffWorkloadCpus();
  LogLaunch(*entry, mode);
  return ArmResult{View(*entry, /*with_snapshot=*/true), false};
}

absl::StatusOr<std::shared_ptr<WorkloadManager::Entry>>
WorkloadManager::KeptRun(const WorkloadSpec& requested,
                         const std::string& owner,
                         const std::string& run_id) {
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) {
      return absl::UnavailableError(
          "the daemon is shutting down and starts no new workloads");
    }
  }
  Reap();
  if (run_id.empty()) return std::shared_ptr<Entry>();
  absl::MutexLock lock(&mu_);
  return FindRunLocked(owner, run_id, requested);
}

absl::StatusOr<WorkloadManager::LaunchPlan> WorkloadManager::PlanLaunch(
    const WorkloadSpec& requested) {
  LaunchPlan plan;
  WorkloadSpec& spec = plan.spec;
  spec = requested;
  // Verify state lives in the daemon's data directory, never a client's path.
  spec.verify_state_dir =
      data_dir_.empty() ? "" : blkperf::VerifyStateDirectory(data_dir_);
  plan.default_target = spec.targets.empty() && !spec.nop;
  if (plan.default_target) {
    BLKPERF_ASSIGN_OR_RETURN(TargetSpec target, DefaultTarget());
    spec.targets.push_back(std::move(target));
  }
  BLKPERF_RETURN_IF_ERROR(CheckLimits(spec));
  BLKPERF_ASSIGN_OR_RETURN(plan.runtime_capped, CapRuntime(spec));
  plan.writes = SpecWrites(spec);
  BLKPERF_RETURN_IF_ERROR(CheckAllowLists(plan));
  // The engine's field checks, buffer memory at the daemon's limit included.
  BLKPERF_ASSIGN_OR_RETURN(plan.validated,
                           backend_->Validate(spec, engine_limits_));
  BLKPERF_ASSIGN_OR_RETURN(plan.infos, ProbeTargets(spec));
  BLKPERF_RETURN_IF_ERROR(CheckAccess(plan));
  plan.wanted = WantedClaims(spec, plan.infos);
  return plan;
}

absl::Status WorkloadManager::CheckAllowLists(const LaunchPlan& plan) const {
  // Allow lists first, so a path outside them is not even probed. The
  // default target is the daemon's own file.
  if (plan.default_target) return absl::OkStatus();
  const WorkloadSpec& spec = plan.spec;
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    const TargetInfo pre = PreliminaryInfo(spec.targets[i].path);
    const std::string field = absl::StrCat("spec.targets[", i, "]");
    BLKPERF_RETURN_IF_ERROR(policy_.CheckRead(field, pre));
    if ((plan.writes || spec.targets[i].create_size != 0) &&
        policy_.WriteRule(pre).empty()) {
      return policy_.CheckWrite(field, pre);
    }
  }
  return absl::OkStatus();
}

absl::Status WorkloadManager::CheckAccess(const LaunchPlan& plan) const {
  if (plan.default_target) return absl::OkStatus();
  for (size_t i = 0; i < plan.infos.size(); ++i) {
    const std::string field = absl::StrCat("spec.targets[", i, "]");
    BLKPERF_RETURN_IF_ERROR(policy_.CheckRead(field, plan.infos[i]));
    if (plan.writes || plan.spec.targets[i].create_size != 0) {
      BLKPERF_RETURN_IF_ERROR(policy_.CheckWrite(field, plan.infos[i]));
    }
  }
  return absl::OkStatus();
}

WorkloadManager::Reservation WorkloadManager::WantedClaims(
    const WorkloadSpec& spec, const std::vector<TargetInfo>& infos) {
  // Threads and CPUs as the engine resolves them (see workload_spec.h; a
  // spec with groups lists every CPU in its groups).
  const uint32_t threads = std::max<uint32_t>(1, SpecThreads(spec));
  Reservation wanted;
  wanted.cpus = SpecCpus(spec);
  if (wanted.cpus.empty()) {
    FillDefaultCpus(backend_->DefaultCpus(), threads, &wanted.cpus);
  }
  if (spec.sqpoll && spec.sqpoll_cpu >= 0) {
    wanted.cpus.push_back(spec.sqpoll_cpu);
  }
  std::sort(wanted.cpus.begin(), wanted.cpus.end());
  wanted.cpus.erase(std::unique(wanted.cpus.begin(), wanted.cpus.end()),
                    wanted.cpus.end());
  for (const TargetInfo& info : infos) {
    wanted.targets.push_back({.path = info.resolved_path.empty()
                                          ? AccessPolicy::ResolvePath(info.path)
                                          : info.resolved_path,
                              .display = info.path,
                              .block = info.kind == TargetKind::kBlockDevice,
                              .disk = info.device_name,
                              .partition = info.partition_name,
                              .st_dev = info.st_dev,
                              .st_ino = info.st_ino});
  }
  return wanted;
}

absl::StatusOr<std::shared_ptr<WorkloadManager::Entry>>
WorkloadManager::Reserve(const WorkloadSpec& requested, const LaunchMode& mode,
                         Reservation wanted,
                         std::list<Reservation>::iterator* reservation) {
  absl::MutexLock lock(&mu_);
  if (shutting_down_) {
    return absl::UnavailableError(
        "the daemon is shutting down and starts no new workloads");
  }
  // Again, with the reservation in the same critical section: a
  // concurrent call with the same run id finds one or the other.
  if (!mode.run_id.empty()) {
    BLKPERF_ASSIGN_OR_RETURN(std::shared_ptr<Entry> existing,
                             FindRunLocked(mode.owner, mode.run_id, requested));
    if (existing != nullptr) return existing;
  }
  BLKPERF_RETURN_IF_ERROR(CheckCountsLocked(mode.arm));
  BLKPERF_RETURN_IF_ERROR(CheckConflicts(wanted));
  wanted.run_id = mode.run_id;
  wanted.owner = mode.owner;  // run ids are per owner (FindRunLocked)
  wanted.armed = mode.arm;
  *reservation = starting_.insert(starting_.end(), std::move(wanted));
  return std::shared_ptr<Entry>();
}

absl::Status WorkloadManager::ClaimExclusive(const LaunchPlan& plan) {
  // A write workload's exclusive claim: ask the kernel now for a clear
  // refusal; the engine holds its own claim (O_EXCL) for the whole run.
  if (!plan.writes) return absl::OkStatus();
  for (size_t i = 0; i < plan.infos.size(); ++i) {
    const TargetInfo& info = plan.infos[i];
    if (info.kind != TargetKind::kBlockDevice) continue;
    absl::Status claim = backend_->ProbeExclusive(
        info.resolved_path.empty() ? info.path : info.resolved_path);
    if (!claim.ok()) {
      return absl::PermissionDeniedError(absl::StrCat(
          "spec.targets[", i, "] ", info.path,
          ": refusing to write: the kernel refused an exclusive claim (",
          claim.message(),
          "); the device is in use (rule: a write workload holds O_EXCL "
          "on each block device)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RunningWorkload>>
WorkloadManager::StartNumbered(const LaunchPlan& plan, const LaunchMode& mode,
                               uint64_t number,
                               std::list<Reservation>::iterator reservation,
                               const std::shared_ptr<FillProgress>& fill) {
  {
    absl::MutexLock lock(&mu_);
    reservation->id = absl::StrCat("w", number);
    reservation->owner = mode.owner;
    reservation->spec = plan.spec;
    reservation->start_time = absl::Now();
    reservation->fill = fill;
    // A shutdown that began meanwhile cancels this fill too.
    if (shutting_down_) fill->cancel.store(true);
  }
  absl::StatusOr<std::unique_ptr<RunningWorkload>> started =
      mode.arm ? backend_->Arm(plan.validated, plan.infos, policy_,
                               plan.default_target, fill.get())
               : backend_->Start(plan.validated, plan.infos, policy_,
                                 plan.default_target, fill.get());
  if (started.ok() || !absl::IsCancelled(started.status())) return started;
  absl::MutexLock lock(&mu_);
  return absl::Status(
      shutting_down_ ? absl::StatusCode::kUnavailable
                     : absl::StatusCode::kCancelled,
      absl::StrCat("workload w", number,
                   shutting_down_ ? " (the daemon is shutting down): "
                                  : " (stopped while creating): ",
                   started.status().message()));
}

std::shared_ptr<WorkloadManager::Entry> WorkloadManager::NewEntry(
    const WorkloadSpec& requested, const LaunchMode& mode, LaunchPlan& plan,
    uint64_t number, std::unique_ptr<RunningWorkload> started) {
  auto entry = std::make_shared<Entry>();
  entry->owner = mode.owner;
  entry->on_end = &end_listener_;
  entry->start_time = absl::Now();
  entry->deadline = entry->start_time + limits_.max_runtime + kDeadlineGrace;
  entry->spec = started->resolved().spec;
  entry->targets = started->resolved().targets;
  entry->claims = std::move(plan.wanted);
  entry->claims.run_id = mode.run_id;
  entry->claims.armed = mode.arm;
  entry->requested = requested;
  if (mode.arm) {
    entry->lease_end = entry->start_time + mode.lease;
    entry->lease_end_ns = MonotonicNowNs() + absl::ToInt64Nanoseconds(mode.lease);
    entry->waiting_for_go.store(true);
    entry->deadline = entry->lease_end + limits_.max_runtime + kDeadlineGrace;
  }
  entry->runtime_capped = plan.runtime_capped;
  {
    absl::MutexLock entry_lock(&entry->mu);
    entry->split = entry->spec.split;
    if (plan.runtime_capped) {
      entry->notes.push_back(absl::StrCat(
          "runtime: an io_count-only workload runs at most --max_runtime=",
          absl::FormatDuration(limits_.max_runtime),
          " (daemon limit): it ends at io_count or then, whichever is first"));
    }
    entry->workload = std::move(started);
  }
  entry->id = absl::StrCat("w", number);
  return entry;
}

void WorkloadManager::LogLaunch(const Entry& entry, const LaunchMode& mode) {
  const WorkloadSpec& r = entry.spec;
  BLKPERF_LOG(INFO) << "workload " << entry.id
                    << (mode.arm ? " armed" : " started")
                    << (mode.run_id.empty() ? "" : " for run ")
                    << mode.run_id << ": " << OpName(r.op)
                    << " bs " << r.block_size << " qd " << r.queue_depth
                    << " threads " << r.threads << " cpus "
                    << absl::StrJoin(r.cpus, ",") << " on "
                    << absl::StrJoin(r.targets, ",",
                                     [](std::string* out, const TargetSpec& t) {
                                       out->append(t.path);
                                     });
}

absl::StatusOr<uint64_t> WorkloadManager::NextNumber() {
  if (ids_ != nullptr) return ids_->NextWorkloadNumber();
  absl::MutexLock lock(&mu_);
  return next_id_++;
}

void WorkloadManager::FinalizeLocked(Entry& entry) {
  if (entry.workload == nullptr) return;
  WorkloadSnapshot final_snapshot = entry.workload->Snapshot();
  if (!IsTerminal(final_snapshot.state)) {
    final_snapshot.state = entry.stop_requested ? WorkloadState::kStopped
                                                : WorkloadState::kFinished;
  }
  // A failed workload says why in end_reason too: its fatal error (an I/O
  // error, a device that stopped completing, a daemon that was paused).
  if (final_snapshot.state == WorkloadState::kFailed &&
      entry.end_reason.empty() && final_snapshot.has_error) {
    entry.end_reason = final_snapshot.error.message.substr(0, kMaxEndReason);
  }
  // Steady state's stop mode ends a run early, finished: say so.
  const SteadyStateResult& steady = final_snapshot.steady_state;
  if (final_snapshot.state == WorkloadState::kFinished &&
      entry.end_reason.empty() && steady.enabled && steady.attained &&
      steady.mode == "stop") {
    entry.end_reason = absl::StrCat(
        "steady state ", steady.criterion, " attained at ",
        absl::FormatDuration(steady.attained_at));
  }
  if (entry.runtime_capped && !entry.stop_requested &&
      final_snapshot.state == WorkloadState::kFinished &&
      final_snapshot.total.ios < entry.spec.io_count) {
    entry.notes.push_back(absl::StrCat(
        "stopped by the daemon at --max_runtime after ",
        final_snapshot.total.ios, " of io_count ", entry.spec.io_count,
        " I/Os"));
  }
  BoundForKeeping(final_snapshot);
  entry.final_snapshot = std::move(final_snapshot);
  entry.end_time = absl::Now();
  entry.workload.reset();  // joins the (exited) threads, frees buffers
  entry.waiting_for_go.store(false);
  entry.ended.store(true);
  BLKPERF_LOG(INFO) << "workload " << entry.id << " ended: "
                    << WorkloadStateName(entry.final_snapshot.state);
  const StartTimes& start = entry.final_snapshot.start;
  if (start.scheduled_monotonic_ns != 0 &&
      start.realtime_wait_threads < start.threads_started) {
    BLKPERF_LOG(WARNING) << "workload " << entry.id << ": "
                         << start.threads_started - start.realtime_wait_threads
                         << " of " << start.threads_started
                         << " threads were refused real-time priority for "
                            "the start wait: "
                         << start.realtime_wait_error;
  }
  if (entry.on_end != nullptr && *entry.on_end) {
    (*entry.on_end)(entry.id, entry.owner, entry.final_snapshot.state);
  }
}

WorkloadView WorkloadManager::View(Entry& entry, bool with_snapshot) {
  WorkloadView view;
  view.id = entry.id;
  view.owner = entry.owner;
  view.start_time = entry.start_time;
  view.spec = entry.spec;
  view.targets = entry.targets;
  absl::MutexLock lock(&entry.mu);
  if (entry.workload != nullptr && entry.workload->Finished()) {
    FinalizeLocked(entry);
  }
  view.split = entry.split;
  view.end_time = entry.end_time;
  view.run_id = entry.claims.run_id;
  view.end_reason = entry.end_reason;
  if (entry.waiting_for_go.load()) view.lease_end = entry.lease_end;
  if (entry.workload == nullptr) {
    view.snapshot = entry.final_snapshot;
  } else if (with_snapshot) {
    view.snapshot = entry.workload->Snapshot();
  } else {
    view.snapshot.state = entry.workload->Snapshot().state;
  }
  if (!with_snapshot) {
    WorkloadSnapshot state_only;
    state_only.state = view.snapshot.state;
    state_only.taken = view.snapshot.taken;
    view.snapshot = std::move(state_only);
  }
  for (const std::string& note : entry.notes)
    view.snapshot.notes.push_back(note);
  return view;
}

std::shared_ptr<WorkloadManager::Entry> WorkloadManager::Find(
    absl::string_view id) {
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<Entry>& e : running_) {
    if (e->id == id) return e;
  }
  for (const std::shared_ptr<Entry>& e : finished_) {
    if (e->id == id) return e;
  }
  return nullptr;
}

std::shared_ptr<WorkloadManager::Entry> WorkloadManager::FindRun(
    absl::string_view owner, absl::string_view run_id) {
  absl::MutexLock lock(&mu_);
  if (run_id.empty()) return std::shared_ptr<Entry>();
  for (const std::shared_ptr<Entry>& e : running_) {
    if (e->owner == owner && e->claims.run_id == run_id) return e;
  }
  for (const std::shared_ptr<Entry>& e : finished_) {
    if (e->owner == owner && e->claims.run_id == run_id) return e;
  }
  return nullptr;
}

namespace {
absl::Status UnknownRun(absl::string_view owner, absl::string_view run_id) {
  return absl::NotFoundError(absl::StrCat(
      "run_id \"", run_id, "\" names no workload this daemon armed or started",
      owner.empty() ? "" : " for ", owner.empty() ? "" : BoundedText(owner),
      " (or still keeps); run ids are per owner"));
}
}  // namespace

absl::StatusOr<bool> WorkloadManager::CheckGoLocked(
    const Entry& entry, int64_t start_monotonic_ns) {
  const std::string run = absl::StrCat("run ", entry.claims.run_id,
                                       " (workload ", entry.id, ")");
  if (!entry.waiting_for_go.load()) {
    if (entry.claims.armed && !entry.aborted && !entry.stop_requested &&
        entry.workload != nullptr) {
      return false;  // released by an earlier Go: a retry changes nothing
    }
    return absl::FailedPreconditionError(absl::StrCat(
        run, " is not armed: ",
        entry.workload == nullptr ? "it has ended"
        : entry.claims.armed      ? "it was stopped or aborted"
                                  : "it was started, not armed",
        entry.end_reason.empty() ? "" : " (", entry.end_reason,
        entry.end_reason.empty() ? "" : ")"));
  }
  if (MonotonicNowNs() > entry.lease_end_ns) {
    // Ran out, and the reaper (every 100 ms) has not aborted it yet.
    return absl::FailedPreconditionError(
        absl::StrCat(run, ": the arm lease has run out; arm it again"));
  }
  if (start_monotonic_ns <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("start_monotonic_ns ", start_monotonic_ns,
                     " must be a positive CLOCK_MONOTONIC instant"));
  }
  if (start_monotonic_ns > entry.lease_end_ns) {
    return absl::InvalidArgumentError(absl::StrCat(
        "start_monotonic_ns ", start_monotonic_ns, " lies ",
        (start_monotonic_ns - entry.lease_end_ns) / 1e9,
        " s after the arm lease ends (at ", entry.lease_end_ns, ")"));
  }
  return true;
}

absl::StatusOr<WorkloadView> WorkloadManager::Go(absl::string_view run_id,
                                                 int64_t start_monotonic_ns,
                                                 absl::string_view owner) {
  BLKPERF_RETURN_IF_ERROR(ValidateRunId(run_id, "run_id"));
  std::shared_ptr<Entry> entry = FindRun(owner, run_id);
  if (entry == nullptr) return UnknownRun(owner, run_id);
  {
    absl::MutexLock lock(&entry->mu);
    if (entry->workload != nullptr && entry->workload->Finished()) {
      FinalizeLocked(*entry);
    }
    BLKPERF_ASSIGN_OR_RETURN(const bool release,
                             CheckGoLocked(*entry, start_monotonic_ns));
    if (release) {
      BLKPERF_RETURN_IF_ERROR(entry->workload->Go(start_monotonic_ns));
      entry->waiting_for_go.store(false);
      const int64_t in_ns = start_monotonic_ns - MonotonicNowNs();
      // The run-time watchdog counts from the release, not from Arm.
      entry->deadline = absl::Now() +
                        absl::Nanoseconds(std::max<int64_t>(0, in_ns)) +
                        limits_.max_runtime + kDeadlineGrace;
      BLKPERF_LOG(INFO) << "workload " << entry->id << " (run " << run_id
                        << "): go at monotonic " << start_monotonic_ns
                        << " ns (" << in_ns / 1e6 << " ms from now)";
    }
  }
  return View(*entry, /*with_snapshot=*/true);
}

absl::StatusOr<WorkloadView> WorkloadManager::Abort(absl::string_view run_id,
                                                    absl::string_view reason,
                                                    absl::string_view owner) {
  BLKPERF_RETURN_IF_ERROR(ValidateRunId(run_id, "run_id"));
  std::shared_ptr<Entry> entry = FindRun(owner, run_id);
  if (entry == nullptr) return UnknownRun(owner, run_id);
  {
    absl::MutexLock lock(&entry->mu);
    if (entry->workload != nullptr && !entry->workload->Finished() &&
        !entry->aborted) {
      entry->aborted = true;
      entry->end_reason = absl::StrCat(
          "aborted by AbortRun: ",
          reason.empty() ? "no reason given"
                         : CutUtf8(reason, kMaxAbortReasonBytes));
      entry->waiting_for_go.store(false);
      entry->workload->Abort();
      BLKPERF_LOG(INFO) << "workload " << entry->id << " (run " << run_id
                        << ") " << absl::CEscape(entry->end_reason);
    }
  }
  return View(*entry, /*with_snapshot=*/true);
}

namespace {
absl::Status UnknownWorkload(absl::string_view id) {
  return absl::NotFoundError(absl::StrCat(
      "workload_id ", BoundedText(id),
      " is not a running workload nor one of the finished ones the daemon "
      "still keeps"));
}
}  // namespace

WorkloadView WorkloadManager::StartingView(const Reservation& r) {
  WorkloadView view;
  view.id = r.id;
  view.owner = r.owner;
  view.start_time = r.start_time;
  view.spec = r.spec;
  view.run_id = r.run_id;
  view.snapshot.state = WorkloadState::kCreating;
  view.snapshot.taken = absl::Now();
  const uint64_t total = r.fill->total_bytes.load();
  view.snapshot.notes.push_back(
      total == 0 ? std::string("setting up (opening targets)")
                 : absl::StrCat("creating its target file: ",
                                r.fill->filled_bytes.load(), " of ", total,
                                " bytes filled (unnamed until it starts)"));
  if (r.fill->cancel.load()) {
    view.snapshot.notes.push_back(
        "stop requested: the fill is cancelled and nothing will start");
  }
  return view;
}

std::optional<WorkloadView> WorkloadManager::FindStarting(
    absl::string_view id, bool cancel_fill) {
  absl::MutexLock lock(&mu_);
  for (const Reservation& r : starting_) {
    if (r.id.empty() || r.id != id) continue;
    if (cancel_fill && !r.fill->cancel.exchange(true)) {
      BLKPERF_LOG(INFO) << "workload " << r.id
                        << ": stop requested while creating its files";
    }
    return StartingView(r);
  }
  return std::nullopt;
}

absl::StatusOr<WorkloadView> WorkloadManager::Stop(absl::string_view id) {
  std::shared_ptr<Entry> entry = Find(id);
  if (entry == nullptr) {
    std::optional<WorkloadView> starting = FindStarting(id, true);
    if (starting.has_value()) return *std::move(starting);
    return UnknownWorkload(id);
  }
  {
    absl::MutexLock lock(&entry->mu);
    if (entry->workload != nullptr && !entry->stop_requested) {
      entry->stop_requested = true;
      entry->workload->RequestStop();
      BLKPERF_LOG(INFO) << "workload " << entry->id << ": stop requested";
    }
  }
  return View(*entry, /*with_snapshot=*/true);
}

absl::StatusOr<WorkloadView> WorkloadManager::Get(absl::string_view id) {
  std::shared_ptr<Entry> entry = Find(id);
  if (entry == nullptr) {
    std::optional<WorkloadView> starting = FindStarting(id, false);
    if (starting.has_value()) return *std::move(starting);
    return UnknownWorkload(id);
  }
  return View(*entry, /*with_snapshot=*/true);
}

absl::StatusOr<WorkloadView> WorkloadManager::GetRun(absl::string_view run_id,
                                                     absl::string_view owner) {
  BLKPERF_RETURN_IF_ERROR(ValidateRunId(run_id, "run_id"));
  std::shared_ptr<Entry> entry = FindRun(owner, run_id);
  if (entry == nullptr) return UnknownRun(owner, run_id);
  return View(*entry, /*with_snapshot=*/false);
}

absl::StatusOr<bool> WorkloadManager::HasEnded(absl::string_view id) {
  std::shared_ptr<Entry> entry = Find(id);
  if (entry == nullptr) return UnknownWorkload(id);
  if (entry->ended.load()) return true;
  absl::MutexLock lock(&entry->mu);
  return entry->workload == nullptr || entry->workload->Finished();
}

std::vector<WorkloadView> WorkloadManager::List(bool with_snapshots) {
  Reap();
  std::vector<std::shared_ptr<Entry>> entries;
  std::vector<WorkloadView> views;
  {
    absl::MutexLock lock(&mu_);
    entries.assign(running_.begin(), running_.end());
    entries.insert(entries.end(), finished_.begin(), finished_.end());
    for (const Reservation& r : starting_) {
      if (!r.id.empty()) views.push_back(StartingView(r));
    }
  }
  for (const std::shared_ptr<Entry>& e : entries) {
    views.push_back(View(*e, with_snapshots));
  }
  return views;
}

absl::StatusOr<std::string> WorkloadManager::SetSplitStrategy(
    absl::string_view id, absl::string_view split, int64_t at_monotonic_ns) {
  BLKPERF_ASSIGN_OR_RETURN(SplitStrategy strategy,
                           ParseSplitStrategy(split, "split"));
  const int64_t latest =
      MonotonicNowNs() + absl::ToInt64Nanoseconds(limits_.max_runtime);
  if (at_monotonic_ns < 0 || at_monotonic_ns > latest) {
    return absl::InvalidArgumentError(absl::StrCat(
        "at_monotonic_ns ", at_monotonic_ns,
        " is not a CLOCK_MONOTONIC instant between 0 and --max_runtime=",
        absl::FormatDuration(limits_.max_runtime), " from now"));
  }
  std::shared_ptr<Entry> entry = Find(id);
  if (entry == nullptr) return UnknownWorkload(id);
  absl::MutexLock lock(&entry->mu);
  if (entry->workload == nullptr || entry->workload->Finished()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "workload ", id,
        " has ended; its split strategy can only change while it runs"));
  }
  if (at_monotonic_ns != 0) {
    BLKPERF_RETURN_IF_ERROR(
        entry->workload->ScheduleSplitStrategy(strategy, at_monotonic_ns));
    BLKPERF_LOG(INFO) << "workload " << entry->id << ": split strategy "
                      << SplitStrategyName(strategy) << " at monotonic "
                      << at_monotonic_ns << " ns";
    return SplitStrategyName(strategy);
  }
  BLKPERF_RETURN_IF_ERROR(entry->workload->SetSplitStrategy(strategy));
  entry->split = strategy;
  BLKPERF_LOG(INFO) << "workload " << entry->id << ": split strategy now "
                    << SplitStrategyName(strategy);
  return SplitStrategyName(strategy);
}

absl::StatusOr<TargetInfo> WorkloadManager::Probe(absl::string_view path) {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("path ", BoundedText(path), " is not an absolute path"));
  }
  if (path.size() > kMaxPathBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "path is ", path.size(), " bytes, longer than the ", kMaxPathBytes,
        " a path may have"));
  }
  const TargetInfo pre = PreliminaryInfo(std::string(path));
  BLKPERF_RETURN_IF_ERROR(policy_.CheckRead("path", pre));
  return backend_->ProbeAllowed(policy_, path);
}

std::vector<int> WorkloadManager::BusyCpus() {
  std::set<int> cpus;
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<Entry>& e : running_) {
    if (!e->ended.load())
      cpus.insert(e->claims.cpus.begin(), e->claims.cpus.end());
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

void WorkloadManager::Reap() {
  std::vector<std::shared_ptr<Entry>> running;
  {
    absl::MutexLock lock(&mu_);
    running = running_;
  }
  const absl::Time now = absl::Now();
  for (const std::shared_ptr<Entry>& e : running) {
    absl::MutexLock lock(&e->mu);
    if (e->workload == nullptr) continue;
    if (e->workload->Finished()) {
      FinalizeLocked(*e);
    } else if (e->waiting_for_go.load() && now > e->lease_end) {
      e->aborted = true;
      e->waiting_for_go.store(false);
      e->end_reason = absl::StrCat(
          "the arm lease of ",
          absl::FormatDuration(e->lease_end - e->start_time),
          " ran out without GoWorkload; everything it held is released");
      e->workload->Abort();
      BLKPERF_LOG(WARNING) << "workload " << e->id << " (run "
                           << e->claims.run_id << "): " << e->end_reason;
    } else if (now > e->deadline && !e->stop_requested) {
      e->stop_requested = true;
      e->notes.push_back(absl::StrCat(
          "stopped by the daemon: it ran longer than --max_runtime=",
          absl::FormatDuration(limits_.max_runtime)));
      e->workload->RequestStop();
    }
  }
  bool ended = false;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = running_.begin(); it != running_.end();) {
      if ((*it)->ended.load()) {
        finished_.push_back(*it);
        it = running_.erase(it);
        ended = true;
      } else {
        ++it;
      }
    }
    while (finished_.size() > limits_.keep_finished) finished_.pop_front();
  }
  if (ended) KeepControlOffWorkloadCpus();
}

void WorkloadManager::KeepControlOffWorkloadCpus() {
  std::vector<int> busy;
  {
    absl::MutexLock lock(&mu_);
    for (const std::shared_ptr<Entry>& e : running_) {
      busy.insert(busy.end(), e->spec.cpus.begin(), e->spec.cpus.end());
      if (e->spec.sqpoll_cpu >= 0) busy.push_back(e->spec.sqpoll_cpu);
    }
  }
  KeepControlThreadsOff(busy);
}

void WorkloadManager::ReaperLoop() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&reaper_stop_), kReapInterval);
      if (reaper_stop_) return;
    }
    Reap();
  }
}

size_t WorkloadManager::Shutdown(absl::Duration timeout) {
  std::vector<std::shared_ptr<Entry>> running;
  {
    absl::MutexLock lock(&mu_);
    if (reaper_stop_) return 0;
    shutting_down_ = true;
    running = running_;
    // Fills in progress stop within a chunk; their starts then refuse.
    for (const Reservation& r : starting_) {
      if (r.fill != nullptr) r.fill->cancel.store(true);
    }
  }
  for (const std::shared_ptr<Entry>& e : running) {
    absl::MutexLock lock(&e->mu);
    if (e->workload != nullptr && !e->workload->Finished()) {
      e->stop_requested = true;
      e->notes.push_back("stopped by the daemon shutting down");
      e->workload->RequestStop();
    }
  }
  const absl::Time deadline = absl::Now() + timeout;
  size_t abandoned = 0;
  for (const std::shared_ptr<Entry>& e : running) {
    std::shared_ptr<RunningWorkload> workload;
    {
      absl::MutexLock lock(&e->mu);
      workload = e->workload;
    }
    if (workload == nullptr) continue;
    if (!workload->WaitFor(
            std::max(deadline - absl::Now(), absl::ZeroDuration()))) {
      Abandon(*e, timeout);
      ++abandoned;
    }
  }
  Reap();
  {
    absl::MutexLock lock(&mu_);
    reaper_stop_ = true;
  }
  if (reaper_.joinable()) reaper_.join();
  return abandoned;
}

void WorkloadManager::Abandon(Entry& entry, absl::Duration timeout) {
  // Leaked on purpose: joining would wait for the device (forever with
  // io_timeout 0), and the kernel may still write into its buffers. The
  // process is exiting; its end releases everything.
  static auto* const kAbandoned =
      new std::vector<std::shared_ptr<RunningWorkload>>;
  static absl::Mutex abandoned_mu(absl::kConstInit);
  absl::MutexLock lock(&entry.mu);
  if (entry.workload == nullptr) return;
  WorkloadSnapshot last = entry.workload->Snapshot();
  {
    absl::MutexLock leak_lock(&abandoned_mu);
    kAbandoned->push_back(std::move(entry.workload));
  }
  const std::string why = absl::StrCat(
      "abandoned at shutdown: its I/O did not drain within --shutdown_timeout=",
      absl::FormatDuration(timeout),
      " (a device holds it; io_timeout ", absl::FormatDuration(entry.spec.io_timeout),
      "); the daemon exited without waiting for it");
  BLKPERF_LOG(WARNING) << "workload " << entry.id << ": " << why;
  last.state = WorkloadState::kStopped;
  entry.notes.push_back(why);
  BoundForKeeping(last);
  entry.final_snapshot = std::move(last);
  entry.end_time = absl::Now();
  entry.waiting_for_go.store(false);
  entry.ended.store(true);
}

}  // namespace blkperf
