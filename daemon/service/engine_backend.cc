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
#include "daemon/engine/workload.h"
#include "daemon/service/workload_backend.h"

namespace blkperf {
namespace {

class EngineWorkload final : public RunningWorkload {
 public:
  explicit EngineWorkload(std::unique_ptr<Workload> workload)
      : workload_(std::move(workload)) {}

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

 private:
  std::unique_ptr<Workload> workload_;
};

class EngineBackend final : public WorkloadBackend {
 public:
  absl::Status ValidateFields(const WorkloadSpec& spec,
                              const EngineLimits& limits) override {
    return ValidateSpecFields(spec, limits);
  }

  std::vector<int> OnlineCpus() override { return blkperf::OnlineCpus(); }

  absl::StatusOr<TargetInfo> Probe(absl::string_view path) override {
    return ProbeTarget(path);
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
      const WorkloadSpec& spec, const EngineLimits& limits) override {
    return Wrap(Workload::Start(spec, limits));
  }

  absl::StatusOr<std::unique_ptr<RunningWorkload>> Arm(
      const WorkloadSpec& spec, const EngineLimits& limits) override {
    return Wrap(Workload::Arm(spec, limits));
  }

 private:
  static absl::StatusOr<std::unique_ptr<RunningWorkload>> Wrap(
      absl::StatusOr<std::unique_ptr<Workload>> workload) {
    if (!workload.ok()) return workload.status();
    return std::make_unique<EngineWorkload>(*std::move(workload));
  }
};

}  // namespace

std::unique_ptr<WorkloadBackend> NewEngineBackend() {
  return std::make_unique<EngineBackend>();
}

}  // namespace blkperf
