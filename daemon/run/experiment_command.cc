#include "daemon/run/experiment_command.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/engine/host/cpu_isolation.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/target/target.h"
#include "daemon/engine/workload.h"
#include "daemon/run/run_command.h"
#include "daemon/run/stop_signal.h"
#include "experiment/flags.h"
#include "experiment/format.h"
#include "experiment/runner.h"

namespace blkperf {
namespace {

// Each arm's spec as this host runs it, every one checked before the first
// round.
absl::StatusOr<std::vector<WorkloadSpec>> LocalSpecs(
    const ExperimentPlan& plan) {
  std::vector<WorkloadSpec> specs;
  for (size_t arm = 0; arm < plan.arms.size(); ++arm) {
    absl::StatusOr<WorkloadSpec> spec = RunSpecFromProto(plan.arms[arm]);
    absl::Status valid = spec.ok() ? ValidateSpecFields(*spec, EngineLimits{})
                                   : spec.status();
    if (!valid.ok()) {
      return absl::Status(
          valid.code(), absl::StrCat("arm ", plan.vary.ArmName(static_cast<int>(arm)),
                                     ": ", valid.message()));
    }
    specs.push_back(*std::move(spec));
  }
  return specs;
}

// One arm's workload for one round, in process: started, waited for
// (Ctrl-C stops it, and the experiment with it), its snapshot.
absl::StatusOr<WorkloadSnapshot> RunLocally(const WorkloadSpec& spec) {
  absl::StatusOr<std::unique_ptr<Workload>> workload =
      Workload::Start(spec, EngineLimits{});
  if (!workload.ok()) return workload.status();
  StopSignalHandler stop_on_signal(
      [](void* w) { static_cast<Workload*>(w)->RequestStopFromSignal(); },
      workload->get());
  (*workload)->Wait();
  return (*workload)->Snapshot();
}

}  // namespace

bool ExperimentRequested() { return VaryGiven(); }

int RunExperiment(bool json) {
  absl::StatusOr<ExperimentPlan> plan = PlanExperimentFromFlags();
  absl::StatusOr<std::vector<WorkloadSpec>> specs =
      plan.ok() ? LocalSpecs(*plan)
                : absl::StatusOr<std::vector<WorkloadSpec>>(plan.status());
  if (!specs.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n", specs.status().ToString().c_str());
    return kExitBadFlags;
  }
  KeepControlThreadsOff((*specs)[0].cpus);
  const ExperimentOutcome outcome = RunExperimentPlan(
      *plan, (*specs)[0].ramp_time, CpuFrequencyGovernor(),
      [&](int arm) { return RunLocally((*specs)[static_cast<size_t>(arm)]); },
      isatty(STDERR_FILENO));
  if (outcome.exit_code != 0) {
    std::fprintf(stderr, "blkperfd run: %s\n", outcome.message.c_str());
    return outcome.exit_code;
  }
  const std::string text = json ? FormatExperimentJson(outcome.result)
                                : FormatExperimentText(outcome.result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return ExitCodeOf(*plan, outcome.result);
}

}  // namespace blkperf
