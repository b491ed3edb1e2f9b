#include "experiment/flags.h"

#include <random>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/spec_flags.h"

ABSL_FLAG(std::string, vary, "",
          "experiment: FIELD=V1,V2[,...], one spec flag varied over values, "
          "one arm per value (the first the baseline; identical values: an "
          "A/A calibration)");
ABSL_FLAG(int32_t, rounds, 10,
          "experiment: rounds; each runs every arm once (fewer than 9 "
          "makes every verdict suspect)");
ABSL_FLAG(absl::Duration, round, absl::Seconds(1),
          "experiment: one arm's measured time in a round (each arm's ramp, "
          "--ramp, comes before it and is discarded)");
ABSL_FLAG(double, margin, 0.02,
          "experiment: the smallest relative difference that matters");
ABSL_FLAG(double, confidence, 0.95, "experiment: the intervals' confidence");
ABSL_FLAG(std::optional<uint64_t>, experiment_seed, std::nullopt,
          "experiment: seed of the arms' order (default random, reported); "
          "--seed stays the offsets' generator");
ABSL_FLAG(std::string, metric, "iops",
          "experiment: the headline verdict's metric: iops, "
          "bytes_per_second, cpu_us_per_io, p50_ns, p99_ns, p99_9_ns");
// One flag for two commands: the client's `results list/export` reads it
// as a time (client/results_command.cc).
ABSL_FLAG(std::string, until, "",
          "experiment: 'decided' adds rounds (looks at --rounds, then about "
          "1.5x more each time, up to --max_rounds) until every arm's "
          "headline verdict is decided; each look's confidence is lowered so "
          "the false-verdict rate stays at 1 - --confidence. results "
          "list/export: created before (RFC 3339)");
ABSL_FLAG(int32_t, max_rounds, 0,
          "experiment: with --until=decided, the most rounds to run");
ABSL_FLAG(std::string, fail_on, "",
          "experiment: 'slower' exits 4 when an arm's headline verdict is "
          "slower");

namespace blkperf {

bool VaryGiven() { return !absl::GetFlag(FLAGS_vary).empty(); }

bool ExperimentGiven() {
  if (VaryGiven()) return true;
  // A file that cannot be read is an error SpecFromFlags reports.
  absl::StatusOr<std::string> experiment = SpecFileExperimentJson();
  return experiment.ok() && !experiment->empty();
}

namespace {

absl::Status ArmsFromFlags(ExperimentFlags* flags) {
  absl::StatusOr<std::string> experiment = SpecFileExperimentJson();
  if (!experiment.ok()) return experiment.status();
  if (VaryGiven() && !experiment->empty()) {
    return absl::InvalidArgumentError(
        "--vary with a --spec_file holding experiment.arms[]: give one of "
        "them");
  }
  if (VaryGiven()) {
    absl::StatusOr<Vary> vary = ParseVary(absl::GetFlag(FLAGS_vary));
    if (!vary.ok()) return vary.status();
    flags->field = vary->field;
    flags->arms = ArmsOf(*vary);
  } else if (!experiment->empty()) {
    absl::StatusOr<std::vector<ArmDesign>> arms =
        ParseExperimentArms(*experiment);
    if (!arms.ok()) return arms.status();
    flags->arms = *std::move(arms);
  }
  return absl::OkStatus();
}

absl::Status StoppingFromFlags(ExperimentFlags* flags) {
  const std::string until = absl::GetFlag(FLAGS_until);
  const int max_rounds = absl::GetFlag(FLAGS_max_rounds);
  if (until.empty()) {
    if (max_rounds != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--max_rounds=", max_rounds, " without --until=decided: give both "
          "(or --rounds alone for a fixed number)"));
    }
    return absl::OkStatus();
  }
  if (until != "decided") {
    return absl::InvalidArgumentError(
        absl::StrCat("--until=", until, ": the one choice is decided"));
  }
  if (max_rounds < flags->rounds || max_rounds > kMaxRounds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_rounds=", max_rounds, " with --until=decided: give --rounds (",
        flags->rounds, ") to ", kMaxRounds));
  }
  flags->until_decided = true;
  flags->max_rounds = max_rounds;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ExperimentFlags> ExperimentFlagsFromFlags() {
  ExperimentFlags flags;
  if (absl::Status arms = ArmsFromFlags(&flags); !arms.ok()) return arms;
  flags.rounds = absl::GetFlag(FLAGS_rounds);
  if (flags.rounds < 1 || flags.rounds > kMaxRounds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--rounds=", flags.rounds, ": must be 1 to ", kMaxRounds));
  }
  flags.round = absl::GetFlag(FLAGS_round);
  if (flags.round <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--round=", absl::FormatDuration(flags.round), ": must be positive"));
  }
  flags.margin = absl::GetFlag(FLAGS_margin);
  if (!(flags.margin >= 0 && flags.margin < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--margin=", flags.margin, ": must be at least 0 and below 1"));
  }
  flags.confidence = absl::GetFlag(FLAGS_confidence);
  if (!(flags.confidence > 0 && flags.confidence < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--confidence=", flags.confidence,
                     ": must be between 0 and 1 (e.g. 0.95)"));
  }
  absl::StatusOr<Metric> metric = ParseMetric(absl::GetFlag(FLAGS_metric));
  if (!metric.ok()) return metric.status();
  flags.headline = *metric;
  const std::string fail_on = absl::GetFlag(FLAGS_fail_on);
  if (!fail_on.empty() && fail_on != "slower") {
    return absl::InvalidArgumentError(
        absl::StrCat("--fail_on=", fail_on, ": the one choice is slower"));
  }
  flags.fail_on_slower = fail_on == "slower";
  if (absl::Status until = StoppingFromFlags(&flags); !until.ok()) return until;
  const std::optional<uint64_t> seed = absl::GetFlag(FLAGS_experiment_seed);
  flags.seed = seed ? *seed : std::random_device{}();
  return flags;
}

}  // namespace blkperf
