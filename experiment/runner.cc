#include "experiment/runner.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "base/units.h"
#include "cli/spec_flags.h"
#include "experiment/stopping.h"
#include "model/workload_spec.h"

namespace blkperf {
namespace {

bool FlagGiven(absl::string_view name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && flag->CurrentValue() != flag->DefaultValue();
}

// The spec flags an experiment cannot take beside --vary (or --ab).
absl::Status CheckRunFlags() {
  const std::string arms = ArmsFlagName();
  if (FlagGiven("runtime")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--runtime with ", arms, ": an experiment's time is --rounds x arms "
        "x (--ramp + --round); give --round instead of --runtime"));
  }
  if (FlagGiven("io_count")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--io_count with ", arms, ": experiment rounds are timed (--round)"));
  }
  return absl::OkStatus();
}

// Arm `i`'s spec: the shared spec flags with its overrides.
absl::StatusOr<v1::WorkloadSpec> ArmSpec(const ExperimentFlags& flags,
                                         size_t i) {
  const ArmDesign& arm = flags.arms[i];
  if (!flags.field.empty()) {  // --vary: errors name --vary=FIELD=VALUE
    return SpecFromFlagsWith(arm.overrides[0].first, arm.overrides[0].second);
  }
  absl::StatusOr<v1::WorkloadSpec> spec =
      SpecFromFlagsWithOverrides(arm.overrides);
  if (!spec.ok()) {
    return absl::Status(spec.status().code(),
                        absl::StrCat("--spec_file experiment.arms[", i, "] (",
                                     arm.name, "): ", spec.status().message()));
  }
  return spec;
}

// The arm's metrics label (WorkloadSpec.experiment_arm): its name, or where
// the name is not a label value (a --vary value with a space, a long one)
// its letter, said on stderr.
std::string ArmLabel(const std::string& name, size_t arm) {
  if (IsExperimentArmName(name)) return name;
  const std::string letter(1, static_cast<char>('A' + arm));
  std::fprintf(stderr,
               "experiment: arm %s's name is not 1 to %zu characters of "
               "[A-Za-z0-9_.:=,/+-]; its metrics carry arm=\"%s\"\n",
               letter.c_str(), kMaxExperimentArmBytes, letter.c_str());
  return letter;
}

// Every arm sets only the split strategy: the engine can switch them live.
bool LiveArms(const std::vector<ArmDesign>& arms) {
  for (const ArmDesign& arm : arms) {
    if (arm.overrides.size() != 1 || arm.overrides[0].first != "split") {
      return false;
    }
  }
  return true;
}

// One workload alternating the arms' strategies in slices of --round, each
// arm --rounds slices; the order the engine runs them in.
void MakeLive(ExperimentPlan* plan) {
  v1::WorkloadSpec live = plan->arms[0];
  live.clear_split();
  // One workload runs every arm: its series carry the strategy instead.
  live.clear_experiment_arm();
  for (const ArmDesign& arm : plan->flags.arms) {
    live.add_ab_strategies(arm.overrides[0].second);
  }
  const int64_t slice = absl::ToInt64Nanoseconds(plan->flags.round);
  const int64_t total = slice * plan->flags.rounds *
                        static_cast<int64_t>(plan->flags.arms.size());
  live.mutable_ab_slice()->set_seconds(slice / 1000000000);
  live.mutable_ab_slice()->set_nanos(static_cast<int32_t>(slice % 1000000000));
  live.mutable_runtime()->set_seconds(total / 1000000000);
  live.mutable_runtime()->set_nanos(static_cast<int32_t>(total % 1000000000));
  plan->arms = {std::move(live)};
  std::vector<int> arms(plan->flags.arms.size());
  for (size_t i = 0; i < arms.size(); ++i) arms[i] = static_cast<int>(i);
  plan->order.assign(static_cast<size_t>(plan->flags.rounds), arms);
  plan->live = true;
}

}  // namespace

absl::StatusOr<ExperimentPlan> PlanExperimentFromFlags(bool live_arms) {
  if (absl::Status run = CheckRunFlags(); !run.ok()) return run;
  ExperimentPlan plan;
  absl::StatusOr<ExperimentFlags> flags = ExperimentFlagsFromFlags();
  if (!flags.ok()) return flags.status();
  plan.flags = *std::move(flags);
  const int64_t ns = absl::ToInt64Nanoseconds(plan.flags.round);
  const std::vector<ArmDesign>& designs = plan.flags.arms;
  for (size_t i = 0; i < designs.size(); ++i) {
    absl::StatusOr<v1::WorkloadSpec> spec = ArmSpec(plan.flags, i);
    if (!spec.ok()) return spec.status();
    if (spec->ab_strategies_size() > 0) {
      return absl::InvalidArgumentError(
          "an experiment with A/B strategies (--spec_file's ab_strategies): "
          "give one of them");
    }
    if (spec->precondition().sequential_passes() != 0) {
      return absl::InvalidArgumentError(
          "--precondition with an experiment: every round would precondition "
          "its targets again; precondition them with a run of its own first");
    }
    spec->mutable_runtime()->set_seconds(ns / 1000000000);
    spec->mutable_runtime()->set_nanos(static_cast<int32_t>(ns % 1000000000));
    spec->clear_io_count();
    spec->set_experiment_arm(ArmLabel(designs[i].name, i));
    plan.arms.push_back(*std::move(spec));
  }
  plan.order = BlockOrder(
      static_cast<int>(plan.arms.size()),
      plan.flags.until_decided ? plan.flags.max_rounds : plan.flags.rounds,
      plan.flags.seed);
  if (live_arms && LiveArms(plan.flags.arms)) {
    if (plan.flags.until_decided) {
      return absl::InvalidArgumentError(
          "--until=decided with live split arms (--vary=split=...): they run "
          "as one workload of --rounds x arms slices; give --rounds");
    }
    MakeLive(&plan);
  }
  return plan;
}

RoundSample RoundSampleOf(const WorkloadSnapshot& s) {
  return RoundSampleOf(s.total, s.elapsed);
}

RoundSample RoundSampleOf(const ThreadSnapshot& t, absl::Duration elapsed) {
  const double cpu =
      t.user_cpu_seconds + t.system_cpu_seconds + t.io_worker_cpu_seconds;
  RoundSample sample{};
  sample[static_cast<size_t>(Metric::kIops)] = t.Iops(elapsed);
  sample[static_cast<size_t>(Metric::kBytesPerSecond)] =
      t.BytesPerSecond(elapsed);
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
  in.field = plan.flags.field;
  for (const ArmDesign& arm : plan.flags.arms) {
    in.arm_names.push_back(arm.name);
    // --vary: the value; a spec file's arm: its overrides as flags.
    in.arm_values.push_back(plan.flags.field.empty() ? arm.OverridesText()
                                                     : arm.overrides[0].second);
  }
  in.order = plan.order;
  in.samples.resize(plan.flags.arms.size());
  in.latency.resize(plan.flags.arms.size());
  in.device_requests_per_sqe.resize(plan.flags.arms.size());
  in.other_cpu_share.resize(plan.flags.arms.size());
  in.live = plan.live;
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

namespace {

double RequestsPerSqe(const DeviceCounters& device) {
  return device.available ? device.requests_per_sqe
                          : std::numeric_limits<double>::quiet_NaN();
}

// The outcome of a run that did not give a finished snapshot (no verdict on
// part of an experiment); exit_code 0 when it did.
ExperimentOutcome Unfinished(const std::string& name,
                             const absl::StatusOr<WorkloadSnapshot>& snapshot) {
  ExperimentOutcome outcome;
  if (!snapshot.ok()) {
    outcome.exit_code =
        snapshot.status().code() == absl::StatusCode::kInvalidArgument
            ? kExitBadFlags
            : kExitRoundFailed;
    outcome.message =
        absl::StrCat("arm ", name, ": ", snapshot.status().ToString());
  } else if (snapshot->state != WorkloadState::kFinished) {
    outcome.exit_code = snapshot->state == WorkloadState::kFinishedWithErrors
                            ? kExitRoundErrors
                            : kExitRoundFailed;
    outcome.message = absl::StrCat(
        "arm ", name, " ended ", WorkloadStateName(snapshot->state),
        snapshot->has_error ? absl::StrCat(": ", snapshot->error.message) : "",
        "; no verdict");
  }
  return outcome;
}

// The live plan's rounds from its one workload's phases: phase p ran arm
// p % arms; a slice cut short by the end (under half a slice) is left out,
// and every arm keeps as many slices as the one with the fewest. Each
// switch's lateness (its phase's start against p x slice) goes to the
// late-switch guardrail.
void LiveRounds(const WorkloadSnapshot& snapshot, const ExperimentPlan& plan,
                ExperimentInput* in) {
  const size_t arms = plan.flags.arms.size();
  const absl::Duration slice = plan.flags.round;
  for (size_t p = 0; p < snapshot.phases.size(); ++p) {
    const PhaseSnapshot& phase = snapshot.phases[p];
    if (p > 0) {
      in->switch_lateness.push_back(phase.start -
                                    static_cast<int64_t>(p) * slice);
    }
    if (phase.elapsed < slice / 2) continue;
    in->samples[p % arms].push_back(RoundSampleOf(phase.total, phase.elapsed));
    in->latency[p % arms].push_back(CompactHistogram::Of(phase.total.latency));
    in->device_requests_per_sqe[p % arms].push_back(
        RequestsPerSqe(phase.device));
  }
  size_t rounds = in->samples[0].size();
  for (const auto& arm : in->samples) rounds = std::min(rounds, arm.size());
  for (size_t arm = 0; arm < arms; ++arm) {
    in->samples[arm].resize(rounds);
    in->latency[arm].resize(rounds);
    in->device_requests_per_sqe[arm].resize(rounds);
  }
  in->order.resize(rounds);
}

ExperimentOutcome RunLive(const ExperimentPlan& plan, ExperimentInput in,
                          const RunArm& run_arm, bool progress) {
  if (progress) {
    std::fprintf(stderr, "live: %zu arms alternating in slices of %s\n",
                 plan.flags.arms.size(),
                 absl::FormatDuration(plan.flags.round).c_str());
  }
  const absl::StatusOr<WorkloadSnapshot> snapshot = run_arm(0);
  ExperimentOutcome outcome = Unfinished("live split arms", snapshot);
  if (outcome.exit_code != 0) return outcome;
  LiveRounds(*snapshot, plan, &in);
  if (in.samples[0].empty()) {
    outcome.exit_code = kExitRoundFailed;
    outcome.message = "live split arms: no arm ran a full slice; no verdict";
    return outcome;
  }
  outcome.result = Analyze(in);
  return outcome;
}

}  // namespace

ExperimentOutcome RunExperimentPlan(
    const ExperimentPlan& plan, absl::Duration ramp,
    const std::string& governor, const RunArm& run_arm, bool progress,
    const OtherCpuShareOfLastRun& other_cpu_share) {
  ExperimentInput in = InputOf(plan, ramp, governor);
  if (plan.live) return RunLive(plan, std::move(in), run_arm, progress);
  std::optional<StoppingRule> rule;
  if (plan.flags.until_decided) {
    rule = MakeStoppingRule(plan.flags.rounds, plan.flags.max_rounds,
                            plan.flags.confidence);
    in.looks = rule->looks;
    in.family_confidence = rule->confidence;
    in.confidence = rule->look_confidence;
    in.max_rounds = plan.flags.max_rounds;
  }
  ExperimentOutcome outcome;
  for (size_t round = 0; round < plan.order.size(); ++round) {
    std::string line =
        absl::StrCat("round ", round + 1, "/", plan.order.size(), ":");
    for (int arm : plan.order[round]) {
      const size_t a = static_cast<size_t>(arm);
      const absl::StatusOr<WorkloadSnapshot> snapshot = run_arm(arm);
      outcome = Unfinished(in.arm_names[a], snapshot);
      if (outcome.exit_code != 0) return outcome;
      in.samples[a].push_back(RoundSampleOf(*snapshot));
      in.latency[a].push_back(CompactHistogram::Of(snapshot->total.latency));
      in.device_requests_per_sqe[a].push_back(RequestsPerSqe(snapshot->device));
      // The caller's measure, else the daemon's (Snapshot.other_cpu_share).
      in.other_cpu_share[a].push_back(other_cpu_share ? other_cpu_share()
                                                      : snapshot->other_cpu_share);
      absl::StrAppend(&line, " ", std::string(1, static_cast<char>('A' + arm)),
                      " IOPS=", FormatCount(in.samples[a].back()[0]));
    }
    if (progress) std::fprintf(stderr, "\r%s   ", line.c_str());
    const int done = static_cast<int>(round) + 1;
    if (rule && rule->IsLook(done) && done < plan.flags.max_rounds) {
      in.order.resize(static_cast<size_t>(done));
      ExperimentResult look = Analyze(in);
      if (Decided(look)) {
        if (progress) std::fprintf(stderr, "\n");
        outcome.result = std::move(look);
        return outcome;
      }
      in.order = plan.order;
    }
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
