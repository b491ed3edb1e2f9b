#include "daemon/run/experiment_command.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "cli/spec_flags.h"
#include "daemon/engine/host/cpu_isolation.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/target/target.h"
#include "daemon/engine/workload.h"
#include "daemon/run/run_command.h"
#include "daemon/run/stop_signal.h"
#include "experiment/analysis.h"
#include "experiment/design.h"
#include "experiment/flags.h"
#include "experiment/format.h"

namespace blkperf {
namespace {

constexpr int kExitFailed = 1;
constexpr int kExitBadFlags = 2;
constexpr int kExitFinishedWithErrors = 3;

bool FlagGiven(absl::string_view name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && flag->CurrentValue() != flag->DefaultValue();
}

struct Plan {
  Vary vary;
  std::vector<WorkloadSpec> arms;  // one spec per value
  std::vector<std::vector<int>> order;
  ExperimentInput input;           // everything but the samples
  bool fail_on_slower = false;
};

// The run flags an experiment cannot take.
absl::Status CheckRunFlags() {
  if (FlagGiven("runtime")) {
    return absl::InvalidArgumentError(
        "--runtime with --vary: an experiment's time is --rounds x arms x "
        "(--ramp + --round); give --round instead of --runtime");
  }
  if (FlagGiven("io_count")) {
    return absl::InvalidArgumentError(
        "--io_count with --vary: experiment rounds are timed (--round)");
  }
  if (FlagGiven("ab")) {
    return absl::InvalidArgumentError(
        "--ab with --vary: give one of them (--vary=split=A,B runs the "
        "strategies as arms)");
  }
  return absl::OkStatus();
}

absl::StatusOr<Plan> PlanFromFlags() {
  BLKPERF_RETURN_IF_ERROR(CheckRunFlags());
  BLKPERF_ASSIGN_OR_RETURN(ExperimentFlags flags, ExperimentFlagsFromFlags());
  Plan plan;
  plan.vary = *flags.vary;
  const absl::Duration round = flags.round;
  for (const std::string& value : plan.vary.values) {
    BLKPERF_ASSIGN_OR_RETURN(v1::WorkloadSpec proto,
                             SpecFromFlagsWith(plan.vary.field, value));
    if (proto.ab_strategies_size() > 0) {
      return absl::InvalidArgumentError(
          "--vary with A/B strategies (--spec_file's ab_strategies): give "
          "one of them");
    }
    const int64_t ns = absl::ToInt64Nanoseconds(round);
    proto.mutable_runtime()->set_seconds(ns / 1000000000);
    proto.mutable_runtime()->set_nanos(static_cast<int32_t>(ns % 1000000000));
    proto.clear_io_count();
    // Every arm is checked before the first round runs.
    absl::StatusOr<WorkloadSpec> spec = RunSpecFromProto(proto);
    absl::Status valid = spec.ok() ? ValidateSpecFields(*spec, EngineLimits{})
                                   : spec.status();
    if (!valid.ok()) {
      return absl::Status(valid.code(),
                          absl::StrCat("arm ", plan.vary.field, "=", value,
                                       ": ", valid.message()));
    }
    plan.arms.push_back(*std::move(spec));
  }
  const int arms = static_cast<int>(plan.arms.size());
  plan.order = BlockOrder(arms, flags.rounds, flags.seed);
  ExperimentInput& in = plan.input;
  in.field = plan.vary.field;
  for (int arm = 0; arm < arms; ++arm) {
    in.arm_names.push_back(plan.vary.ArmName(arm));
    in.arm_values.push_back(plan.vary.values[static_cast<size_t>(arm)]);
  }
  in.order = plan.order;
  in.samples.resize(static_cast<size_t>(arms));
  in.margin = flags.margin;
  in.confidence = flags.confidence;
  in.seed = flags.seed;
  in.headline = flags.headline;
  in.round = round;
  in.ramp = plan.arms[0].ramp_time;
  in.governor = CpuFrequencyGovernor();
  plan.fail_on_slower = flags.fail_on_slower;
  return plan;
}

RoundSample SampleOf(const WorkloadSnapshot& s) {
  const ThreadSnapshot& t = s.total;
  const double cpu = t.user_cpu_seconds + t.system_cpu_seconds +
                     t.io_worker_cpu_seconds;
  RoundSample sample{};
  sample[static_cast<size_t>(Metric::kIops)] = t.Iops(s.elapsed);
  sample[static_cast<size_t>(Metric::kBytesPerSecond)] =
      t.BytesPerSecond(s.elapsed);
  sample[static_cast<size_t>(Metric::kCpuPerIo)] =
      t.ios != 0 ? 1e6 * cpu / static_cast<double>(t.ios) : 0;
  sample[static_cast<size_t>(Metric::kP50)] =
      static_cast<double>(t.latency.Percentile(50));
  sample[static_cast<size_t>(Metric::kP99)] =
      static_cast<double>(t.latency.Percentile(99));
  sample[static_cast<size_t>(Metric::kP999)] =
      static_cast<double>(t.latency.Percentile(99.9));
  return sample;
}

// One arm's workload for one round: started, waited for (Ctrl-C stops it),
// its snapshot. A non-zero exit code when the round did not finish cleanly.
int RunOneArm(const WorkloadSpec& spec, const std::string& name,
              WorkloadSnapshot* result) {
  absl::StatusOr<std::unique_ptr<Workload>> workload =
      Workload::Start(spec, EngineLimits{});
  if (!workload.ok()) {
    std::fprintf(stderr, "blkperfd run: arm %s: %s\n", name.c_str(),
                 workload.status().ToString().c_str());
    return workload.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitBadFlags
               : kExitFailed;
  }
  StopSignalHandler stop_on_signal(
      [](void* w) { static_cast<Workload*>(w)->RequestStopFromSignal(); },
      workload->get());
  (*workload)->Wait();
  *result = (*workload)->Snapshot();
  if (result->state == WorkloadState::kFinished) return 0;
  std::fprintf(stderr, "blkperfd run: arm %s ended %s%s%s; no verdict\n",
               name.c_str(),
               std::string(WorkloadStateName(result->state)).c_str(),
               result->has_error ? ": " : "",
               result->has_error ? result->error.message.c_str() : "");
  return result->state == WorkloadState::kFinishedWithErrors
             ? kExitFinishedWithErrors
             : kExitFailed;
}

}  // namespace

bool ExperimentRequested() { return VaryGiven(); }

int RunExperiment(bool json) {
  absl::StatusOr<Plan> plan = PlanFromFlags();
  if (!plan.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n", plan.status().ToString().c_str());
    return kExitBadFlags;
  }
  KeepControlThreadsOff(plan->arms[0].cpus);
  const bool progress = isatty(STDERR_FILENO);
  for (size_t round = 0; round < plan->order.size(); ++round) {
    std::string line = absl::StrCat("round ", round + 1, "/", plan->order.size(), ":");
    for (int arm : plan->order[round]) {
      const size_t a = static_cast<size_t>(arm);
      WorkloadSnapshot snapshot;
      if (int code = RunOneArm(plan->arms[a], plan->input.arm_names[a], &snapshot);
          code != 0) {
        return code;
      }
      plan->input.samples[a].push_back(SampleOf(snapshot));
      absl::StrAppend(&line, " ", std::string(1, static_cast<char>('A' + arm)),
                      " IOPS=", FormatCount(plan->input.samples[a].back()[0]));
    }
    if (progress) std::fprintf(stderr, "\r%s   ", line.c_str());
  }
  if (progress) std::fprintf(stderr, "\n");
  const ExperimentResult result = Analyze(plan->input);
  const std::string text =
      json ? FormatExperimentJson(result) : FormatExperimentText(result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (plan->fail_on_slower) {
    for (const ArmResult& arm : result.arms) {
      if (!arm.baseline && arm.verdict == Verdict::kSlower) return kExitSlower;
    }
  }
  return 0;
}

}  // namespace blkperf
