// Owns the daemon's workloads: starts them after checking the operator's
// limits, allow lists and the other running workloads, gives them ids, keeps
// the last finished ones for later fetching, and stops them all on shutdown.
// The gRPC service is a thin layer over this class; it knows no gRPC.
//
//   WorkloadManager manager(NewEngineBackend(), ManagerLimits{},
//                           AccessPolicy::Create({}, {"/srv/scratch/"}, dir));
//   absl::StatusOr<WorkloadView> w = manager.Start(spec);
//   ... manager.Get(w->id) ... manager.Stop(w->id) ...
//   manager.Shutdown(absl::Seconds(5));
//
// Errors of Start, most specific code first:
//   InvalidArgument    a bad field (from the engine's checks), named;
//   ResourceExhausted  over a daemon limit, naming the flag and its value;
//   PermissionDenied   a target outside --allow_read_paths/--allow_write_paths,
//   or unsafe
//                      to write (mounted, held, swap, loop backing, symlink,
//                      exclusive claim refused), naming target and rule;
//   FailedPrecondition a CPU or target used by a running workload, naming the
//                      CPU or target and that workload;
//   Unavailable        the daemon is shutting down.
//
// Fleet runs: Arm(spec, run_id, lease) sets a workload up without I/O
// (armed); Go(run_id, instant) releases it; Abort(run_id, reason) ends it.
// A run id makes Arm and Start idempotent: a retry with the same run id and
// spec returns the first call's workload (`existing`), with another spec it
// is FailedPrecondition. Run ids are per owner (the caller's identity):
// Arm, Start, Go, Abort and GetRun find only the caller's own runs, so
// another owner's run id neither answers nor blocks them. An armed
// workload not released within its lease is aborted by the reaper (checked
// every 100 ms) with end_reason saying so.
// Run ids are remembered as long as their workload is kept (running, or
// among the last --keep_finished).
//
// Thread-safe. Snapshots are taken with RunningWorkload::Snapshot(), which
// reads the submitters' counters and never slows them.
#ifndef BLKPERF_DAEMON_SERVICE_WORKLOAD_MANAGER_H_
#define BLKPERF_DAEMON_SERVICE_WORKLOAD_MANAGER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/common/default_target.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/target/target.h"
#include "daemon/service/access_policy.h"
#include "daemon/service/data_dir.h"
#include "daemon/service/workload_backend.h"
#include "model/snapshot.h"
#include "model/workload_spec.h"

namespace blkperf {

// The operator's limits (daemon flags of the same names).
struct ManagerLimits {
  uint32_t max_workloads = 4;
  uint32_t max_queue_depth = 4096;
  uint64_t max_buffer_bytes = 4ull << 30;
  // Largest create_size of one target. Besides it, a create must leave 5 %
  // of its file system free (NewFile::Create).
  uint64_t max_create_bytes = 64ull << 30;
  // Longest ramp_time + runtime; also the longest an io_count-only workload
  // may run before the daemon stops it.
  absl::Duration max_runtime = absl::Hours(24);
  uint32_t keep_finished = 16;
  // Armed workloads (fleet runs) at once; they hold CPUs, targets and
  // buffers while waiting. They count towards max_workloads too.
  uint32_t max_armed = 2;
};

// Arm leases: default and bounds (ArmWorkloadRequest.lease).
inline constexpr absl::Duration kDefaultArmLease = absl::Seconds(60);
inline constexpr absl::Duration kMinArmLease = absl::Seconds(1);
inline constexpr absl::Duration kMaxArmLease = absl::Hours(1);
// AbortRun's reason is kept up to this many bytes.
inline constexpr size_t kMaxAbortReasonBytes = 256;

// InvalidArgument naming `field` unless `run_id` is 1-64 characters of
// [A-Za-z0-9._-]. The message quotes at most 64 characters of it, escaped.
absl::Status ValidateRunId(absl::string_view run_id, absl::string_view field);

// One workload at one moment: what Get/List/Watch report.
struct WorkloadView {
  std::string id;
  // Who started it (the caller's identity); "" when not stated.
  std::string owner;
  absl::Time start_time;
  // absl::InfinitePast() while running.
  absl::Time end_time = absl::InfinitePast();
  // The resolved spec (defaults filled in).
  WorkloadSpec spec;
  // The targets as probed at the start, one per spec.targets entry.
  std::vector<TargetInfo> targets;
  SplitStrategy split;
  // Live, or final once snapshot.state is terminal. Its notes include the
  // daemon's own (e.g. why the daemon stopped it).
  WorkloadSnapshot snapshot;
  // Fleet runs: the run id it was armed or started with ("" if none), and
  // why it was aborted ("" otherwise).
  std::string run_id;
  std::string end_reason;
  // The armed workload's lease ends here; InfiniteFuture() otherwise.
  absl::Time lease_end = absl::InfiniteFuture();
};

// What Arm (and a Start with a run id) returns.
struct ArmResult {
  WorkloadView view;
  // An earlier call with this run id made the workload.
  bool existing = false;
};

// Longest target path accepted (Linux's PATH_MAX).
inline constexpr size_t kMaxPathBytes = 4096;

class WorkloadManager {
 public:
  // `data_dir` holds the default target (see Start); "" disables it.
  // `ids`, when given (it must outlive the manager), numbers workloads
  // across restarts; otherwise ids start at w1.
  WorkloadManager(std::unique_ptr<WorkloadBackend> backend,
                  ManagerLimits limits, AccessPolicy policy,
                  std::string data_dir = "", DataDir* ids = nullptr);
  // Shuts down (stopping every workload) if Shutdown was not called.
  ~WorkloadManager();
  WorkloadManager(const WorkloadManager&) = delete;
  WorkloadManager& operator=(const WorkloadManager&) = delete;

  // Checks and starts `spec`; returns the new workload's first view.
  // A spec without targets runs on the daemon's default target,
  // <data_dir>/default-target.dat (kDefaultTargetBytes, created and filled
  // on first use): the daemon's own file, outside the allow lists.
  absl::StatusOr<WorkloadView> Start(const WorkloadSpec& spec);
  // With a run id (validated; "" = none): idempotent as described above.
  // `owner` is recorded as the workload's owner (the caller's identity).
  absl::StatusOr<ArmResult> Start(const WorkloadSpec& spec,
                                  absl::string_view run_id,
                                  std::string owner = "");

  // Checks and sets `spec` up without issuing I/O (state armed), as Start
  // does otherwise. `run_id` is required; `lease` is 1 s..1 h
  // (InvalidArgument naming "lease"; zero means kDefaultArmLease).
  // ResourceExhausted naming --max_armed when that many are armed already.
  absl::StatusOr<ArmResult> Arm(const WorkloadSpec& spec,
                                absl::string_view run_id,
                                absl::Duration lease, std::string owner = "");

  // Releases the run's armed workload at `start_monotonic_ns` (this host's
  // CLOCK_MONOTONIC). Idempotent: a workload already released is returned
  // unchanged. NotFound for an unknown run id; InvalidArgument naming
  // "start_monotonic_ns" when it is not positive or lies after the lease
  // ends; FailedPrecondition when the workload ended (aborted, stopped).
  absl::StatusOr<WorkloadView> Go(absl::string_view run_id,
                                  int64_t start_monotonic_ns,
                                  absl::string_view owner = "");

  // Aborts the run's workload, armed or running (state aborted, end_reason
  // "aborted by AbortRun: <reason>", the reason cut to kMaxAbortReasonBytes
  // on a character boundary). Idempotent; an ended workload is returned
  // unchanged. NotFound for an unknown run id.
  absl::StatusOr<WorkloadView> Abort(absl::string_view run_id,
                                     absl::string_view reason,
                                     absl::string_view owner = "");

  // Called once per workload when it reaches its terminal state (with the
  // workload's lock held: do not call back into the manager). Set before
  // the first Start; the ended workload is also logged.
  using EndListener = std::function<void(
      absl::string_view id, absl::string_view owner, WorkloadState state)>;
  void SetEndListener(EndListener listener) {
    end_listener_ = std::move(listener);
  }

  // Asks the workload to stop and returns at once (state stopping, or
  // terminal if it had ended already). NotFound for an unknown id.
  absl::StatusOr<WorkloadView> Stop(absl::string_view id);

  // Live or final view. NotFound for an unknown (or evicted) id.
  absl::StatusOr<WorkloadView> Get(absl::string_view id);

  // The view of `owner`'s run's workload. NotFound for an unknown (or
  // evicted) run id of that owner; InvalidArgument naming "run_id" for a
  // malformed one.
  absl::StatusOr<WorkloadView> GetRun(absl::string_view run_id,
                                      absl::string_view owner = "");

  // Cheap: whether the workload's threads have all exited. NotFound for an
  // unknown id. For watchers deciding when to send the last message.
  absl::StatusOr<bool> HasEnded(absl::string_view id);

  // Running workloads (oldest first), then kept finished ones (oldest
  // first). Without snapshots, `snapshot` holds only the state.
  std::vector<WorkloadView> List(bool with_snapshots);

  // Switches a running workload's split strategy; returns its canonical
  // name. InvalidArgument naming "split" for bad text, NotFound for an
  // unknown id, FailedPrecondition once the workload has ended.
  // With `at_monotonic_ns` != 0: switches at that instant of CLOCK_MONOTONIC
  // (at once when past); InvalidArgument naming "at_monotonic_ns" when
  // negative or more than --max_runtime ahead.
  absl::StatusOr<std::string> SetSplitStrategy(absl::string_view id,
                                               absl::string_view split,
                                               int64_t at_monotonic_ns = 0);

  // Probes a target for ProbeTarget after checking --allow_read_paths.
  absl::StatusOr<TargetInfo> Probe(absl::string_view path);

  // Refuses new workloads, cancels fills in progress, stops every running
  // one and waits up to `timeout` for them to drain. A workload still not
  // drained then (io_timeout 0 on a device that holds its I/O) is abandoned:
  // logged, ended with a note saying so, and never joined, so the daemon can
  // exit. Returns how many were abandoned. Idempotent.
  size_t Shutdown(absl::Duration timeout);

  // CPUs used by running workloads, ascending.
  std::vector<int> BusyCpus();

  const ManagerLimits& limits() const { return limits_; }
  const AccessPolicy& policy() const { return policy_; }
  // The limits passed to the engine (the manager checks its own first).
  const EngineLimits& engine_limits() const { return engine_limits_; }

 private:
  struct TargetKey {
    std::string path;     // resolved
    std::string display;  // as given
    bool block = false;
    std::string disk;       // TargetInfo::device_name
    std::string partition;  // TargetInfo::partition_name
    // The file's identity (TargetInfo::st_dev, st_ino; 0 when not yet
    // created): a hard link is the same file under another path.
    uint64_t st_dev = 0;
    uint64_t st_ino = 0;
  };
  struct Entry;
  struct Reservation {
    std::vector<int> cpus;
    std::vector<TargetKey> targets;
    std::string run_id;
    bool armed = false;
    // Set once numbered: a start in progress (creating its files) is listed
    // under this id in state kCreating, and Stop cancels its fill.
    std::string id;
    std::string owner;
    WorkloadSpec spec;
    absl::Time start_time;
    std::shared_ptr<FillProgress> fill;
  };
  // How a workload is launched: at once, or armed with a lease.
  struct LaunchMode {
    std::string run_id;
    bool arm = false;
    absl::Duration lease;
    std::string owner;  // the caller's identity, recorded as the owner
  };

  // A launch's spec as the engine gets it (data directory, default target,
  // capped run time) and what the manager found checking it.
  struct LaunchPlan {
    WorkloadSpec spec;
    bool default_target = false;
    bool runtime_capped = false;
    bool writes = false;
    // `spec` as the engine validated it, once (WorkloadBackend::Validate).
    ValidatedSpec validated;
    // One per spec.targets entry, probed by path before the open (a file
    // still to be created: PreliminaryInfo).
    std::vector<TargetInfo> infos;
    Reservation wanted;             // its CPUs and targets
  };

  // Start or Arm: the steps below, in order.
  absl::StatusOr<ArmResult> Launch(const WorkloadSpec& spec,
                                   const LaunchMode& mode);
  // Unavailable while shutting down; the kept workload of `owner`'s
  // `run_id` (a retry), nullptr when none (FindRunLocked).
  absl::StatusOr<std::shared_ptr<Entry>> KeptRun(const WorkloadSpec& requested,
                                                 const std::string& owner,
                                                 const std::string& run_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The spec checked against the daemon's limits, the allow lists (before
  // any probe), the engine's field checks, then the probed targets.
  absl::StatusOr<LaunchPlan> PlanLaunch(const WorkloadSpec& requested);
  absl::Status CheckAllowLists(const LaunchPlan& plan) const;
  absl::Status CheckAccess(const LaunchPlan& plan) const;
  // The CPUs (sqpoll's included) and targets the workload will hold.
  Reservation WantedClaims(const WorkloadSpec& spec,
                           const std::vector<TargetInfo>& infos);
  // Under mu_: a retry's kept workload (returned), or the limits and
  // conflicts checked and `wanted` reserved in starting_ (nullptr).
  absl::StatusOr<std::shared_ptr<Entry>> Reserve(
      const WorkloadSpec& requested, const LaunchMode& mode,
      Reservation wanted, std::list<Reservation>::iterator* reservation)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A write workload's O_EXCL claim on each block device, asked of the
  // kernel now for a clear refusal (PermissionDenied).
  absl::Status ClaimExclusive(const LaunchPlan& plan);
  // Names the reservation w<number> and starts (or arms) the engine;
  // a cancelled start is Unavailable in a shutdown, else Cancelled.
  absl::StatusOr<std::unique_ptr<RunningWorkload>> StartNumbered(
      const LaunchPlan& plan, const LaunchMode& mode, uint64_t number,
      std::list<Reservation>::iterator reservation,
      const std::shared_ptr<FillProgress>& fill) ABSL_LOCKS_EXCLUDED(mu_);
  // The entry of a started workload (its claims moved out of `plan`).
  std::shared_ptr<Entry> NewEntry(const WorkloadSpec& requested,
                                  const LaunchMode& mode, LaunchPlan& plan,
                                  uint64_t number,
                                  std::unique_ptr<RunningWorkload> started);
  static void LogLaunch(const Entry& entry, const LaunchMode& mode);
  // The kept workload of `owner`'s `run_id`: nullptr when none. A retry's
  // answer (ok, existing) or its refusal when one is being launched or the
  // spec differs.
  absl::StatusOr<std::shared_ptr<Entry>> FindRunLocked(
      absl::string_view owner, absl::string_view run_id,
      const WorkloadSpec& spec) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Over --max_workloads or (arming) --max_armed: ResourceExhausted.
  absl::Status CheckCountsLocked(bool arm) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::shared_ptr<Entry> FindRun(absl::string_view owner,
                                 absl::string_view run_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Whether Go may release `entry` now (true), is a retry of a done release
  // (false), or is refused. REQUIRES: entry.mu held.
  static absl::StatusOr<bool> CheckGoLocked(const Entry& entry,
                                            int64_t start_monotonic_ns);
  absl::Status CheckLimits(const WorkloadSpec& spec) const;
  absl::StatusOr<uint64_t> NextNumber() ABSL_LOCKS_EXCLUDED(mu_);
  // Refuses over-long paths; gives an io_count-only spec runtime =
  // --max_runtime - ramp_time so the engine stops it at the limit. True
  // when it did.
  absl::StatusOr<bool> CapRuntime(WorkloadSpec& spec) const;
  // The engine's default target in the data directory (created if needed).
  absl::StatusOr<TargetSpec> DefaultTarget() const;
  // Probes the targets; a file that Start will create is described from its
  // path alone.
  absl::StatusOr<std::vector<TargetInfo>> ProbeTargets(
      const WorkloadSpec& spec);
  absl::Status CheckConflicts(const Reservation& wanted) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::shared_ptr<Entry> Find(absl::string_view id) ABSL_LOCKS_EXCLUDED(mu_);
  static WorkloadView View(Entry& entry, bool with_snapshot);
  // A numbered start in progress, state kCreating, its fill in the notes.
  static WorkloadView StartingView(const Reservation& r);
  // The numbered start in progress `id`, if any.
  std::optional<WorkloadView> FindStarting(absl::string_view id,
                                           bool cancel_fill)
      ABSL_LOCKS_EXCLUDED(mu_);
  static void FinalizeLocked(Entry& entry);
  // Shutdown: ends `entry` without joining its workload (see Shutdown).
  static void Abandon(Entry& entry, absl::Duration timeout);
  // Finalizes ended workloads, stops overdue ones, moves ended ones to the
  // finished list and evicts beyond keep_finished.
  void Reap() ABSL_LOCKS_EXCLUDED(mu_);
  // Re-pins the daemon's own threads (gRPC, metrics, this manager) off the
  // CPUs running workloads' submitters use.
  void KeepControlOffWorkloadCpus() ABSL_LOCKS_EXCLUDED(mu_);
  void ReaperLoop();

  const std::unique_ptr<WorkloadBackend> backend_;
  const ManagerLimits limits_;
  const AccessPolicy policy_;
  const EngineLimits engine_limits_;
  const std::string data_dir_;
  DataDir* const ids_;
  EndListener end_listener_;

  absl::Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool reaper_stop_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  // Running (or just ended, until reaped), in start order.
  std::vector<std::shared_ptr<Entry>> running_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Entry>> finished_ ABSL_GUARDED_BY(mu_);
  // Starts in progress hold their CPUs and targets here.
  std::list<Reservation> starting_ ABSL_GUARDED_BY(mu_);
  std::thread reaper_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_WORKLOAD_MANAGER_H_
