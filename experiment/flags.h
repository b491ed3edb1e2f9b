// The experiment flags every command with --vary shares (`blkperfd run`,
// and `blkperf compare` for --margin and --confidence), read and checked in
// one place.
//
//   BLKPERF_ASSIGN_OR_RETURN(ExperimentFlags flags, ExperimentFlagsFromFlags());
//   if (!flags.arms.empty()) { ... BlockOrder(arms, flags.rounds, flags.seed) ... }
#ifndef BLKPERF_EXPERIMENT_FLAGS_H_
#define BLKPERF_EXPERIMENT_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "experiment/analysis.h"
#include "experiment/design.h"

namespace blkperf {

struct ExperimentFlags {
  // The arms, from --vary or the --spec_file's experiment.arms[] (the
  // first the baseline); empty: not an experiment.
  std::vector<ArmDesign> arms;
  // The varied field for --vary, "" for arms from a spec file.
  std::string field;
  int rounds = 10;
  absl::Duration round = absl::Seconds(1);
  double margin = 0.02;
  double confidence = 0.95;
  uint64_t seed = 0;  // --experiment_seed, or a random one when not given
  Metric headline = Metric::kIops;
  bool fail_on_slower = false;
  // --until=decided --max_rounds=N (stopping.h): rounds are added, from
  // `rounds` up to `max_rounds`, until every verdict is decided.
  bool until_decided = false;
  int max_rounds = 0;
};

// True when --vary or --ab (shorthand for --vary=split=...) is given.
bool VaryGiven();

// "--ab" when --ab is given, else "--vary": the flag errors name.
std::string ArmsFlagName();

// True when --vary, --ab or --ab_slice is given or the --spec_file holds an
// "experiment" object (experiment.arms[]): the command runs an experiment
// (--ab_slice alone is then refused by ExperimentFlagsFromFlags).
bool ExperimentGiven();

// The flags, checked: InvalidArgument naming the flag (--rounds outside 1 to
// kMaxRounds, --round (or --ab_slice, its old name) not positive, both of
// them, --ab_slice without --ab or --vary, --ab with --vary, --margin outside [0, 1), --confidence
// outside (0, 1), --metric or --fail_on unknown, --vary malformed, the
// spec file's experiment.arms[] malformed, or both --vary and
// experiment.arms[]; --until other than decided, --max_rounds without it or
// outside --rounds to kMaxRounds).
absl::StatusOr<ExperimentFlags> ExperimentFlagsFromFlags();

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_FLAGS_H_
