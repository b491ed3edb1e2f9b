#include "experiment/flags.h"

#include <random>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

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
ABSL_FLAG(std::string, fail_on, "",
          "experiment: 'slower' exits 4 when an arm's headline verdict is "
          "slower");

namespace blkperf {

bool VaryGiven() { return !absl::GetFlag(FLAGS_vary).empty(); }

absl::StatusOr<ExperimentFlags> ExperimentFlagsFromFlags() {
  ExperimentFlags flags;
  if (VaryGiven()) {
    absl::StatusOr<Vary> vary = ParseVary(absl::GetFlag(FLAGS_vary));
    if (!vary.ok()) return vary.status();
    flags.vary = *std::move(vary);
  }
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
  const std::optional<uint64_t> seed = absl::GetFlag(FLAGS_experiment_seed);
  flags.seed = seed ? *seed : std::random_device{}();
  return flags;
}

}  // namespace blkperf
