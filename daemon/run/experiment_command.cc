#include "daemon/run/experiment_command.h"

#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/engine/host/cpu_isolation.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/target/target.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/host/other_cpu.h"
#include "daemon/run/run_command.h"
#include "daemon/run/stop_signal.h"
#include "experiment/flags.h"
#include "experiment/format.h"
#include "experiment/runner.h"
#include "store/save_result.h"

namespace blkperf {
namespace {

// Each arm's spec as this host runs it, every one checked before the first
// round.
absl::StatusOr<std::vector<ValidatedSpec>> LocalSpecs(
    const ExperimentPlan& plan) {
  std::vector<ValidatedSpec> specs;
  for (size_t arm = 0; arm < plan.arms.size(); ++arm) {
    absl::StatusOr<WorkloadSpec> spec = RunSpecFromProto(plan.arms[arm]);
    absl::StatusOr<ValidatedSpec> valid =
        spec.ok() ? ValidateSpec(*spec, EngineLimits{})
                  : absl::StatusOr<ValidatedSpec>(spec.status());
    if (!valid.ok()) {
      return absl::Status(
          valid.status().code(),
          absl::StrCat(plan.live ? "live split arms"
                                 : "arm " + plan.flags.arms[arm].name,
                       ": ", valid.status().message()));
    }
    specs.push_back(*std::move(valid));
  }
  return specs;
}

// One arm's workload for one round, in process: started, waited for
// (Ctrl-C stops it, and the experiment with it), its snapshot.
// `targets`, when given, gets the resolved targets.
absl::StatusOr<WorkloadSnapshot> RunLocally(
    const ValidatedSpec& spec, std::vector<TargetInfo>* targets = nullptr) {
  absl::StatusOr<std::unique_ptr<Workload>> workload = Workload::Start(spec);
  if (!workload.ok()) return workload.status();
  StopSignalHandler stop_on_signal(
      [](void* w) { static_cast<Workload*>(w)->RequestStopFromSignal(); },
      workload->get());
  (*workload)->Wait();
  if (targets != nullptr) *targets = (*workload)->spec().targets;
  return (*workload)->Snapshot();
}

// The experiment's record (docs/results.md): the baseline's last round
// (spec, environment, series, histograms: the list's iops and p99 are
// that round's) with the experiment's JSON, verdicts included, as its
// report.
ResultRecord ExperimentRecord(const WorkloadSpec& baseline,
                              const std::vector<TargetInfo>& targets,
                              const WorkloadSnapshot& last_round,
                              const ExperimentResult& result,
                              const Tags& tags) {
  ResultRecord r = MakeResultRecord(baseline, targets, last_round,
                                    /*run_id=*/"", "blkperfd run --vary", tags);
  r.report_json = FormatExperimentJson(result);
  while (!r.report_json.empty() && r.report_json.back() == '\n') {
    r.report_json.pop_back();
  }
  return r;
}

// This process's CPU time so far (every thread's, its io-wq workers'
// included), in seconds.
double ProcessCpuSeconds() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Other processes' share of the submitter CPUs' time over a round. The
// readings span the round's set-up, ramp and teardown, and so does the
// process's own CPU time subtracted (all of it, wherever it ran: a little
// under where blkperfd's threads ran on other CPUs).
double OtherCpuShareOf(const WorkloadSnapshot& snapshot,
                       const std::vector<CpuTicks>& before,
                       const std::vector<CpuTicks>& after,
                       double own_cpu_seconds) {
  if (!std::isfinite(own_cpu_seconds)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return SubmitterCpusOtherShare(snapshot, before, after, own_cpu_seconds);
}

}  // namespace

bool ExperimentRequested() { return ExperimentGiven(); }

int RunExperiment(bool json) {
  absl::StatusOr<ExperimentPlan> plan = PlanExperimentFromFlags();
  absl::StatusOr<std::vector<ValidatedSpec>> specs =
      plan.ok() ? LocalSpecs(*plan)
                : absl::StatusOr<std::vector<ValidatedSpec>>(plan.status());
  if (!specs.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n", specs.status().ToString().c_str());
    return kExitBadFlags;
  }
  const absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();
  if (!save.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n", save.status().ToString().c_str());
    return kExitBadFlags;
  }
  KeepControlThreadsOff((*specs)[0].spec.cpus);
  std::vector<TargetInfo> baseline_targets;
  WorkloadSnapshot baseline_round;
  double last_other_cpu = std::numeric_limits<double>::quiet_NaN();
  const ExperimentOutcome outcome = RunExperimentPlan(
      *plan, (*specs)[0].spec.ramp_time, CpuFrequencyGovernor(),
      [&](int arm) -> absl::StatusOr<WorkloadSnapshot> {
        const absl::StatusOr<std::vector<CpuTicks>> before = ReadCpuTicks();
        const double own_before = ProcessCpuSeconds();
        absl::StatusOr<WorkloadSnapshot> snapshot =
            arm != 0 ? RunLocally((*specs)[static_cast<size_t>(arm)])
                     : RunLocally((*specs)[0], &baseline_targets);
        const double own_after = ProcessCpuSeconds();
        const absl::StatusOr<std::vector<CpuTicks>> after = ReadCpuTicks();
        last_other_cpu = std::numeric_limits<double>::quiet_NaN();
        if (snapshot.ok() && before.ok() && after.ok()) {
          last_other_cpu = OtherCpuShareOf(*snapshot, *before, *after,
                                           own_after - own_before);
        }
        if (arm == 0 && snapshot.ok()) baseline_round = *snapshot;
        return snapshot;
      },
      isatty(STDERR_FILENO), [&] { return last_other_cpu; });
  if (outcome.exit_code != 0) {
    std::fprintf(stderr, "blkperfd run: %s\n", outcome.message.c_str());
    return outcome.exit_code;
  }
  const std::string text = json ? FormatExperimentJson(outcome.result)
                                : FormatExperimentText(outcome.result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  SaveResult(*save, ExperimentRecord((*specs)[0].spec, baseline_targets,
                                     baseline_round, outcome.result,
                                     save->tags));
  return ExitCodeOf(*plan, outcome.result);
}

}  // namespace blkperf
