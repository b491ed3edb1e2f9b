// An experiment from the command line, wherever its arms run: the plan
// (each arm's spec from the shared spec flags with FIELD=value applied, the
// round's runtime set, the randomized block order) and the rounds, with a
// caller-supplied function that runs one arm's workload and returns its
// snapshot (`blkperfd run` in process, `blkperf run` over gRPC).
//
//   BLKPERF_ASSIGN_OR_RETURN(ExperimentPlan plan, PlanExperimentFromFlags());
//   ExperimentOutcome out = RunExperimentPlan(plan, governor,
//       [&](int arm) { return RunLocally(plan.arms[arm]); }, /*progress=*/true);
//   std::cout << FormatExperimentText(out.result);
#ifndef BLKPERF_EXPERIMENT_RUNNER_H_
#define BLKPERF_EXPERIMENT_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiment/analysis.h"
#include "experiment/design.h"
#include "experiment/flags.h"
#include "model/snapshot.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

// Exit codes of an experiment command: 1 a round failed, 2 bad flags, 3 a
// round counted I/O errors, 4 --fail_on=slower and a slower verdict.
inline constexpr int kExitRoundFailed = 1;
inline constexpr int kExitBadFlags = 2;
inline constexpr int kExitRoundErrors = 3;
inline constexpr int kExitSlower = 4;

struct ExperimentPlan {
  ExperimentFlags flags;
  Vary vary;
  std::vector<v1::WorkloadSpec> arms;  // one per value, runtime = --round
  std::vector<std::vector<int>> order;
};

// InvalidArgument naming the flags for --runtime, --io_count or --ab next
// to --vary, A/B strategies in a spec file, bad experiment flags, a field
// that is not a spec flag or a value it cannot parse. REQUIRES: VaryGiven().
absl::StatusOr<ExperimentPlan> PlanExperimentFromFlags();

// One arm's values from its finished workload's snapshot.
RoundSample RoundSampleOf(const WorkloadSnapshot& snapshot);

struct ExperimentOutcome {
  int exit_code = 0;    // 0, or kExitRound* with `message` (no result)
  std::string message;
  ExperimentResult result;
};

// Runs every round in the plan's order through `run_arm` (an error status
// or a snapshot not in state finished ends the experiment: no verdict on
// part of it), then analyzes. `ramp` is the arms' ramp (the report's total
// time); `governor` as ExperimentInput's. `progress`: a line per round on
// stderr.
using RunArm = std::function<absl::StatusOr<WorkloadSnapshot>(int arm)>;
ExperimentOutcome RunExperimentPlan(const ExperimentPlan& plan,
                                    absl::Duration ramp,
                                    const std::string& governor,
                                    const RunArm& run_arm, bool progress);

// The exit code for a finished experiment: kExitSlower with
// --fail_on=slower and any arm's headline verdict slower, else 0.
int ExitCodeOf(const ExperimentPlan& plan, const ExperimentResult& result);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_RUNNER_H_
