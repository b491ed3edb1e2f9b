// WorkloadBackend over the real engine (daemon/engine).
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "daemon/engine/host/host_cpus.h"
#include "daemon/engine/target/target.h"
#include "daemon/engine/workload.h"
#include "daemon/service/workload_backend.h"

namespace blkperf {
namespace {

class EngineWorkload final : public RunningWorkload {
 public:
  EngineWorkload(std::unique_ptr<Workload> workload,
                 std::vector<OpenedTarget> opened)
      : workload_(std::move(workload)), opened_(std::move(opened)) {}

  const ResolvedSpec& resolved() const override { return workload_->spec(); }
  void RequestStop() override { workload_->RequestStop(); }
  bool Finished() const override { return workload_->Finished(); }
  bool WaitFor(absl::Duration timeout) override {
    return workload_->WaitFor(timeout);
  }
  WorkloadSnapshot Snapshot() const override { return workload_->Snapshot(); }
  absl::Status SetSplitStrategy(const SplitStrategy& strategy) override {
    return workload_->SetSplitStrategy(strategy);
  }
  absl::Status ScheduleSplitStrategy(const SplitStrategy& strategy,
                                     int64_t at_monotonic_ns) override {
    return workload_->ScheduleSplitStrategy(strategy, at_monotonic_ns);
  }
  absl::Status Go(int64_t at_monotonic_ns) override {
    return workload_->Go(at_monotonic_ns);
  }
  void Abort() override { workload_->Abort(); }
  absl::Status Publish() override {
    for (OpenedTarget& t : opened_) {
      if (!t.created.has_value()) continue;
      BLKPERF_RETURN_IF_ERROR(t.created->Publish());
      t.created.reset();
    }
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<Workload> workload_;
  // Kept for Publish: created files stay unnamed (and vanish with their
  // descriptors) until then.
  std::vector<OpenedTarget> opened_;
};

// The targets as opened for a start: the descriptors the engine uses
// (kept for Publish) and each one's probe through its descriptor.
struct OpenedTargets {
  std::vector<OpenedTarget> opened;
  std::vector<TargetInfo> probed;
};

class EngineBackend final : public WorkloadBackend {
 public:
  absl::StatusOr<ValidatedSpec> Validate(const WorkloadSpec& spec,
                                         const EngineLimits& limits) override {
    return ValidateSpec(spec, limits);
  }

  std::vector<int> DefaultCpus() override {
    return CurrentHostCpus().placement;
  }

  absl::StatusOr<TargetInfo> Probe(absl::string_view path) override {
    return ProbeTarget(path);
  }

  absl::StatusOr<TargetInfo> ProbeAllowed(const AccessPolicy& policy,
                                          absl::string_view path) override {
    BLKPERF_ASSIGN_OR_RETURN(OpenedTarget opened,
                             policy.Open("request", path, OpenIntent{}));
    return ProbeTargetFd(opened.fd.get(), path);
  }

  absl::Status ProbeExclusive(absl::string_view path) override {
    const std::string name(path);
    const int fd = open(name.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd < 0) {
      const int error_number = errno;
      return absl::ErrnoToStatus(
          error_number, absl::StrCat(name, ": exclusive claim (O_EXCL)"));
    }
    close(fd);
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<RunningWorkload>> Start(
      const ValidatedSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target,
      FillProgress* fill) override {
    return Launch(spec, checked, policy, default_target, fill,
                  /*armed=*/false);
  }

  absl::StatusOr<std::unique_ptr<RunningWorkload>> Arm(
      const ValidatedSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target,
      FillProgress* fill) override {
    return Launch(spec, checked, policy, default_target, fill,
                  /*armed=*/true);
  }

 private:
  // Start or Arm: opens and probes the targets once, then starts the engine
  // on those descriptors and probes.
  static absl::StatusOr<std::unique_ptr<RunningWorkload>> Launch(
      const ValidatedSpec& validated, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target, FillProgress* fill,
      bool armed) {
    ValidatedSpec spec = validated;
    BLKPERF_ASSIGN_OR_RETURN(
        OpenedTargets targets,
        OpenTargets(spec.spec, checked, policy, default_target, fill));
    if (fill != nullptr && fill->cancel.load()) {
      return absl::CancelledError(
          "stopped while its target files were being created; nothing was "
          "started and the files were discarded");
    }
    absl::StatusOr<std::unique_ptr<Workload>> workload =
        armed ? Workload::Arm(std::move(spec), std::move(targets.probed))
              : Workload::Start(std::move(spec), std::move(targets.probed));
    if (!workload.ok()) return workload.status();
    return std::make_unique<EngineWorkload>(*std::move(workload),
                                            std::move(targets.opened));
  }

  // Target `i` as opened must be the one the manager checked by path (a
  // file Open just created had nothing to check).
  static absl::Status CheckSameTarget(const std::string& field,
                                      const OpenedTarget& opened,
                                      const TargetInfo& info,
                                      const std::vector<TargetInfo>& checked,
                                      size_t i) {
    if (opened.created.has_value() || i >= checked.size() ||
        SameIdentity(checked[i], info)) {
      return absl::OkStatus();
    }
    return absl::FailedPreconditionError(absl::StrCat(
        field, " ", info.path,
        ": the target opened is not the one checked a moment before (it was "
        "replaced in between); nothing was started"));
  }

  // Opens and probes each target once; sets TargetSpec::fd so the engine
  // uses exactly what was checked.
  static absl::StatusOr<OpenedTargets> OpenTargets(
      WorkloadSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target, FillProgress* fill) {
    const bool writes = SpecWrites(spec);
    OpenedTargets targets;
    for (size_t i = 0; i < spec.targets.size(); ++i) {
      TargetSpec& target = spec.targets[i];
      const std::string field = absl::StrCat("spec.targets[", i, "]");
      OpenIntent intent{.write = writes || target.create_size != 0,
                        .create_size = target.create_size,
                        .seed = spec.seed,
                        .fill = fill,
                        .default_target = default_target};
      BLKPERF_ASSIGN_OR_RETURN(OpenedTarget t,
                               policy.Open(field, target.path, intent));
      absl::StatusOr<TargetInfo> info = ProbeTargetFd(t.fd.get(), target.path);
      if (!info.ok()) {
        return absl::Status(info.status().code(),
                            absl::StrCat(field, ".path: ",
                                         info.status().message()));
      }
      BLKPERF_RETURN_IF_ERROR(CheckSameTarget(field, t, *info, checked, i));
      if (intent.write) {
        BLKPERF_RETURN_IF_ERROR(policy.CheckWriteSafety(field, *info));
      }
      target.fd = t.fd.get();
      targets.opened.push_back(std::move(t));
      targets.probed.push_back(*std::move(info));
    }
    return targets;
  }
};

}  // namespace

std::unique_ptr<WorkloadBackend> NewEngineBackend() {
  return std::make_unique<EngineBackend>();
}

}  // namespace blkperf
