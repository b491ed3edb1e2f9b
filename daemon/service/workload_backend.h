// The seam between the WorkloadManager and the engine, so the manager's
// bookkeeping (ids, conflicts, limits, permissions, retention) runs against a
// fake in unit tests. Production code uses NewEngineBackend().
//
//   std::unique_ptr<WorkloadBackend> backend = NewEngineBackend();
//   BLKPERF_ASSIGN_OR_RETURN(ValidatedSpec valid, backend->Validate(spec, limits));
//   ... probe each target by path (Probe), check it, reserve its claims ...
//   absl::StatusOr<std::unique_ptr<RunningWorkload>> w =
//       backend->Start(valid, checked, policy, /*default_target=*/false, fill);
#ifndef BLKPERF_DAEMON_SERVICE_WORKLOAD_BACKEND_H_
#define BLKPERF_DAEMON_SERVICE_WORKLOAD_BACKEND_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/target/target.h"
#include "daemon/service/access_policy.h"
#include "model/snapshot.h"
#include "model/split_strategy.h"
#include "model/workload_spec.h"

namespace blkperf {

// A started workload, as the manager sees it. Thread-safe like Workload.
class RunningWorkload {
 public:
  virtual ~RunningWorkload() = default;
  // The spec with defaults filled in and each target probed.
  virtual const ResolvedSpec& resolved() const = 0;
  virtual void RequestStop() = 0;
  virtual bool Finished() const = 0;
  // True when finished within `timeout`.
  virtual bool WaitFor(absl::Duration timeout) = 0;
  virtual WorkloadSnapshot Snapshot() const = 0;
  virtual absl::Status SetSplitStrategy(const SplitStrategy& strategy) = 0;
  // Fleet runs (see Workload): switch at an instant of CLOCK_MONOTONIC.
  virtual absl::Status ScheduleSplitStrategy(const SplitStrategy& strategy,
                                             int64_t at_monotonic_ns) = 0;
  // Fleet runs: release an armed workload at an instant; end it aborted.
  virtual absl::Status Go(int64_t at_monotonic_ns) = 0;
  virtual void Abort() = 0;
  // Names the files Start created (create_size), which stay unnamed until
  // then: the manager calls it once it has decided to keep the workload
  // (never after shutdown began). AlreadyExists when a name was taken
  // meanwhile; the caller then stops the workload.
  virtual absl::Status Publish() = 0;
};

class WorkloadBackend {
 public:
  virtual ~WorkloadBackend() = default;
  // ValidateSpec: the checks that need no target (InvalidArgument naming
  // the field), done once: Start and Arm take its result on unchecked.
  virtual absl::StatusOr<ValidatedSpec> Validate(
      const WorkloadSpec& spec, const EngineLimits& limits) = 0;
  // Where threads without a WorkloadSpec::cpus entry go, round-robin
  // (CurrentHostCpus().placement: the online CPUs in the daemon's
  // affinity mask).
  virtual std::vector<int> DefaultCpus() = 0;
  // ProbeTarget (NotFound when the path does not exist).
  virtual absl::StatusOr<TargetInfo> Probe(absl::string_view path) = 0;
  // The Probe RPC: opens `path` once through `policy` (read rules) and
  // describes what was opened, so a link swapped after the check cannot
  // make it describe a target outside the read list.
  virtual absl::StatusOr<TargetInfo> ProbeAllowed(const AccessPolicy& policy,
                                                  absl::string_view path) = 0;
  // Whether the kernel would grant an exclusive claim (O_EXCL) on block
  // device `path` now; the claim is released again at once (the engine takes
  // its own for the run). An errno-derived error when refused.
  virtual absl::Status ProbeExclusive(absl::string_view path) = 0;
  // Opens every target once through `policy` (AccessPolicy::Open: the
  // binding allow-list check, on the opened inode; files with create_size
  // created unnamed) and probes each once through its descriptor; refuses a
  // target that is not the one `checked` (the manager's probe by path,
  // one per target, before the open) describes (FailedPrecondition: it was
  // replaced in between), and unsafe writes on what was opened; then
  // Workload::Start on those descriptors and probes. Created files stay unnamed until
  // RunningWorkload::Publish; a refused or failed start leaves no file
  // behind. `default_target`: the spec's single target is the daemon's own.
  // `fill` (may be null) follows the create_size fills: Cancelled when its
  // cancel flag is set before the workload starts.
  virtual absl::StatusOr<std::unique_ptr<RunningWorkload>> Start(
      const ValidatedSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target, FillProgress* fill) = 0;
  // Workload::Arm: as Start, but the workload waits (armed, no I/O) for Go.
  virtual absl::StatusOr<std::unique_ptr<RunningWorkload>> Arm(
      const ValidatedSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target, FillProgress* fill) = 0;
};

// The real engine.
std::unique_ptr<WorkloadBackend> NewEngineBackend();

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_WORKLOAD_BACKEND_H_
