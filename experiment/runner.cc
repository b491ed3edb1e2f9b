#include "experiment/runner.h"

#include <cstdio>

#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "base/units.h"
#include "cli/spec_flags.h"

namespace blkperf {
namespace {

bool FlagGiven(absl::string_view name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && flag->CurrentValue() != flag->DefaultValue();
}

// The spec flags an experiment cannot take beside --vary.
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

}  // namespace

absl::StatusOr<ExperimentPlan> PlanExperimentFromFlags() {
  if (absl::Status run = CheckRunFlags(); !run.ok()) return run;
  ExperimentPlan plan;
  absl::StatusOr<ExperimentFlags> flags = ExperimentFlagsFromFlags();
  if (!flags.ok()) return flags.status();
  plan.flags = *std::move(flags);
  plan.vary = *plan.flags.vary;
  const int64_t ns = absl::ToInt64Nanoseconds(plan.flags.round);
  for (const std::string& value : plan.vary.values) {
    absl::StatusOr<v1::WorkloadSpec> spec =
        SpecFromFlagsWith(plan.vary.field, value);
    if (!spec.ok()) return spec.status();
    if (spec->ab_strategies_size() > 0) {
      return absl::InvalidArgumentError(
          "--vary with A/B strategies (--spec_file's ab_strategies): give "
          "one of them");
    }
    spec->mutable_runtime()->set_seconds(ns / 1000000000);
    spec->mutable_runtime()->set_nanos(static_cast<int32_t>(ns % 1000000000));
    spec->clear_io_count();
    plan.arms.push_back(*std::move(spec));
  }
  plan.order = BlockOrder(static_cast<int>(plan.arms.size()),
                          plan.flags.rounds, plan.flags.seed);
  return plan;
}

RoundSample RoundSampleOf(const WorkloadSnapshot& s) {
  const ThreadSnapshot& t = s.total;
  const double cpu =
      t.user_cpu_seconds + t.system_cpu_seconds + t.io_worker_cpu_seconds;
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

namespace {

ExperimentInput InputOf(const ExperimentPlan& plan, absl::Duration ramp,
                        const std::string& governor) {
  ExperimentInput in;
  in.field = plan.vary.field;
  for (size_t arm = 0; arm < plan.arms.size(); ++arm) {
    in.arm_names.push_back(plan.vary.ArmName(static_cast<int>(arm)));
    in.arm_values.push_back(plan.vary.values[arm]);
  }
  in.order = plan.order;
  in.samples.resize(plan.arms.size());
  in.margin = plan.flags.margin;
  in.confidence = plan.flags.confidence;
  in.seed = plan.flags.seed;
  in.headline = plan.flags.headline;
  in.round = plan.flags.round;
  in.ramp = ramp;
  in.governor = governor;
  return in;
}

}  // namespace

ExperimentOutcome RunExperimentPlan(const ExperimentPlan& plan,
                                    absl::Duration ramp,
                                    const std::string& governor,
                                    const RunArm& run_arm, bool progress) {
  ExperimentOutcome outcome;
  ExperimentInput in = InputOf(plan, ramp, governor);
  for (size_t round = 0; round < plan.order.size(); ++round) {
    std::string line =
        absl::StrCat("round ", round + 1, "/", plan.order.size(), ":");
    for (int arm : plan.order[round]) {
      const std::string& name = in.arm_names[static_cast<size_t>(arm)];
      absl::StatusOr<WorkloadSnapshot> snapshot = run_arm(arm);
      if (!snapshot.ok()) {
        outcome.exit_code =
            snapshot.status().code() == absl::StatusCode::kInvalidArgument
                ? kExitBadFlags
                : kExitRoundFailed;
        outcome.message = absl::StrCat("arm ", name, ": ",
                                       snapshot.status().ToString());
        return outcome;
      }
      if (snapshot->state != WorkloadState::kFinished) {
        outcome.exit_code =
            snapshot->state == WorkloadState::kFinishedWithErrors
                ? kExitRoundErrors
                : kExitRoundFailed;
        outcome.message = absl::StrCat(
            "arm ", name, " ended ", WorkloadStateName(snapshot->state),
            snapshot->has_error ? absl::StrCat(": ", snapshot->error.message)
                                : "",
            "; no verdict");
        return outcome;
      }
      in.samples[static_cast<size_t>(arm)].push_back(RoundSampleOf(*snapshot));
      absl::StrAppend(&line, " ", std::string(1, static_cast<char>('A' + arm)),
                      " IOPS=",
                      FormatCount(in.samples[static_cast<size_t>(arm)].back()[0]));
    }
    if (progress) std::fprintf(stderr, "\r%s   ", line.c_str());
  }
  if (progress) std::fprintf(stderr, "\n");
  outcome.result = Analyze(in);
  return outcome;
}

int ExitCodeOf(const ExperimentPlan& plan, const ExperimentResult& result) {
  if (!plan.flags.fail_on_slower) return 0;
  for (const ArmResult& arm : result.arms) {
    if (!arm.baseline && arm.verdict == Verdict::kSlower) return kExitSlower;
  }
  return 0;
}

}  // namespace blkperf
