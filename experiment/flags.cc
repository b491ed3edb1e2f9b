#include "experiment/flags.h"

#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "cli/spec_flags.h"

ABSL_FLAG(std::string, vary, "",
          "experiment: FIELD=V1,V2[,...], one spec flag varied over values, "
          "one arm per value (the first the baseline; identical values: an "
          "A/A calibration)");
ABSL_FLAG(std::vector<std::string>, ab, {},
          "experiment: A,B[,C...], shorthand for --vary=split=A,B[,C...]: "
          "split strategies as arms, switched live in slices of --round "
          "(a spec file's ab_strategies is the API's A/B schedule)");
ABSL_FLAG(std::optional<absl::Duration>, ab_slice, std::nullopt,
          "experiment: --round's old name (one arm's slice); not with "
          "--round");
ABSL_FLAG(int32_t, rounds, 10,
          "experiment: rounds; each runs every arm once (fewer than 9 "
          "makes every verdict suspect)");
ABSL_FLAG(std::optional<absl::Duration>, round, std::nullopt,
          "experiment: one arm's measured time in a round (each arm's ramp, "
          "--ramp, comes before it and is discarded; default 1s)");
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

bool VaryGiven() {
  return !absl::GetFlag(FLAGS_vary).empty() || !absl::GetFlag(FLAGS_ab).empty();
}

std::string ArmsFlagName() {
  return absl::GetFlag(FLAGS_ab).empty() ? "--vary" : "--ab";
}

bool ExperimentGiven() {
  if (VaryGiven() || absl::GetFlag(FLAGS_ab_slice).has_value()) return true;
  // A file that cannot be read is an error SpecFromFlags reports.
  absl::StatusOr<std::string> experiment = SpecFileExperimentJson();
  return experiment.ok() && !experiment->empty();
}

namespace {

// --vary's text, or --ab's as --vary=split=... (errors then name --ab).
absl::StatusOr<Vary> VaryFromFlags() {
  const std::vector<std::string> ab = absl::GetFlag(FLAGS_ab);
  if (ab.empty()) return ParseVary(absl::GetFlag(FLAGS_vary));
  if (!absl::GetFlag(FLAGS_vary).empty()) {
    return absl::InvalidArgumentError(
        "--ab with --vary: give one of them (--ab=A,B is "
        "--vary=split=A,B)");
  }
  const std::string values = absl::StrJoin(ab, ",");
  absl::StatusOr<Vary> vary = ParseVary(absl::StrCat("split=", values));
  const std::string as_vary = absl::StrCat("--vary=split=", values);
  if (!vary.ok() && absl::StartsWith(vary.status().message(), as_vary)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ab=", values,
                     vary.status().message().substr(as_vary.size())));
  }
  return vary;
}

absl::Status ArmsFromFlags(ExperimentFlags* flags) {
  absl::StatusOr<std::string> experiment = SpecFileExperimentJson();
  if (!experiment.ok()) return experiment.status();
  if (VaryGiven() && !experiment->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ArmsFlagName(), " with a --spec_file holding experiment.arms[]: give "
        "one of them"));
  }
  if (absl::GetFlag(FLAGS_ab_slice).has_value() && !VaryGiven() &&
      experiment->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ab_slice=",
        absl::FormatDuration(absl::GetFlag(FLAGS_ab_slice).value_or(
            absl::ZeroDuration())),
        " without --ab or --vary: it is --round's old name (a spec file's "
        "A/B schedule takes its slice from its ab_slice field)"));
  }
  if (VaryGiven()) {
    absl::StatusOr<Vary> vary = VaryFromFlags();
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

// --round, or --ab_slice (its old name); both given is refused.
absl::Status RoundFromFlags(ExperimentFlags* flags) {
  const std::optional<absl::Duration> slice = absl::GetFlag(FLAGS_ab_slice);
  const std::optional<absl::Duration> round = absl::GetFlag(FLAGS_round);
  if (slice && round) {
    return absl::InvalidArgumentError(
        "--ab_slice with --round: --ab_slice is --round's old name; give "
        "--round");
  }
  flags->round = slice ? *slice : round.value_or(flags->round);
  const char* name = slice ? "--ab_slice=" : "--round=";
  if (flags->round <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, absl::FormatDuration(flags->round), ": must be positive"));
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
  if (absl::Status round = RoundFromFlags(&flags); !round.ok()) return round;
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
