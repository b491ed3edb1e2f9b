// The experiment flags every command with --vary shares (`blkperfd run`,
// and `blkperf compare` for --margin and --confidence), read and checked in
// one place.
//
//   BLKPERF_ASSIGN_OR_RETURN(ExperimentFlags flags, ExperimentFlagsFromFlags());
//   if (flags.vary) { ... BlockOrder(arms, flags.rounds, flags.seed) ... }
#ifndef BLKPERF_EXPERIMENT_FLAGS_H_
#define BLKPERF_EXPERIMENT_FLAGS_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "experiment/analysis.h"
#include "experiment/design.h"

namespace blkperf {

struct ExperimentFlags {
  std::optional<Vary> vary;  // --vary; none: not an experiment
  int rounds = 10;
  absl::Duration round = absl::Seconds(1);
  double margin = 0.02;
  double confidence = 0.95;
  uint64_t seed = 0;  // --experiment_seed, or a random one when not given
  Metric headline = Metric::kIops;
  bool fail_on_slower = false;
};

// True when --vary is given.
bool VaryGiven();

// The flags, checked: InvalidArgument naming the flag (--rounds outside 1 to
// kMaxRounds, --round not positive, --margin outside [0, 1), --confidence
// outside (0, 1), --metric or --fail_on unknown, --vary malformed).
absl::StatusOr<ExperimentFlags> ExperimentFlagsFromFlags();

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_FLAGS_H_
