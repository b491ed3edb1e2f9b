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
  ExperimentFlags flags;               // flags.arms: the arms' designs
  std::vector<v1::WorkloadSpec> arms;  // one per arm, runtime = --round
  std::vector<std::vector<int>> order;
  // Arms the engine switches live (every arm sets only `split`): one
  // workload alternates them in slices of --round (its ab_strategies, the
  // arms' order A B C A B C ...), --rounds x arms slices; `arms` then holds
  // that one spec, and a round is each arm's k-th full slice.
  bool live = false;
};

// InvalidArgument naming the flags for --runtime or --io_count next to
// --vary or --ab (--ab=A,B is --vary=split=A,B), A/B strategies in a spec file, bad experiment flags, a field
// that is not a spec flag or a value it cannot parse (an arm from a spec
// file: named "experiment.arms[i] (NAME)"). REQUIRES: ExperimentGiven().
// `live_arms` false: split arms run in rounds too (a fleet experiment,
// whose every arm-round is a fleet run of its own).
absl::StatusOr<ExperimentPlan> PlanExperimentFromFlags(bool live_arms = true);

// One arm's values from its finished workload's snapshot, or from one
// phase's (a live slice) counters over its length.
RoundSample RoundSampleOf(const WorkloadSnapshot& snapshot);
RoundSample RoundSampleOf(const ThreadSnapshot& total, absl::Duration elapsed);

struct ExperimentOutcome {
  int exit_code = 0;    // 0, or kExitRound* with `message` (no result)
  std::string message;
  ExperimentResult result;
};

// Runs every round in the plan's order through `run_arm` (an error status
// or a snapshot not in state finished ends the experiment: no verdict on
// part of it), then analyzes. A live plan runs `run_arm(0)` once and takes
// its rounds from the workload's phases. `ramp` is the arms' ramp (the report's total
// time); `governor` as ExperimentInput's. `progress`: a line per round on
// stderr.
using RunArm = std::function<absl::StatusOr<WorkloadSnapshot>(int arm)>;
// Optional, called after each run_arm: the share (0 to 1) of the submitter
// CPUs' time that other processes took during that run, NaN when unknown
// (blkperfd run measures it around each round). Without it the round's
// snapshot's other_cpu_share (the daemon's, over the measured window) is
// the round's.
using OtherCpuShareOfLastRun = std::function<double()>;
ExperimentOutcome RunExperimentPlan(
    const ExperimentPlan& plan, absl::Duration ramp,
    const std::string& governor, const RunArm& run_arm, bool progress,
    const OtherCpuShareOfLastRun& other_cpu_share = nullptr);

// The exit code for a finished experiment: kExitSlower with
// --fail_on=slower and any arm's headline verdict slower, else 0.
int ExitCodeOf(const ExperimentPlan& plan, const ExperimentResult& result);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_RUNNER_H_
