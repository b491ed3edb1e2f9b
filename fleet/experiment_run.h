// Experiments over a fleet (`blkperf fleet run --vary=...`) and the
// comparison of a run's cohorts (`--cohort_by=...`), with hosts as the unit
// (experiment/fleet_analysis.h holds the statistics).
//
//   BLKPERF_ASSIGN_OR_RETURN(ExperimentPlan plan, PlanExperimentFromFlags());
//   FleetExperimentOutcome out = RunFleetExperiment(plan, options, addresses,
//                                                   &interrupted, progress);
//   std::cout << FormatFleetExperimentText(out.result);
//
// The fleet experiment runs the plan's rounds in its randomized block
// order, the same order on every host: each arm of each round is one fleet
// run (orchestrator.h), armed on every host and released at one common
// instant, so the arms switch on every host at the same instants; each
// host's finished workload is that host's sample of the arm in that round
// (RoundSampleOf, as `blkperfd run --vary`). Its run id is the options'
// run id + "-r<round>-<arm letter>". A run that does not complete on every
// host (a host lost, not armed, aborted) ends the experiment without a
// verdict: a verdict over hosts that missed rounds would not be paired.
#ifndef BLKPERF_FLEET_EXPERIMENT_RUN_H_
#define BLKPERF_FLEET_EXPERIMENT_RUN_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiment/fleet_analysis.h"
#include "experiment/runner.h"
#include "fleet/orchestrator.h"
#include "fleet/report.h"

namespace blkperf::fleet {

struct FleetExperimentOutcome {
  int exit_code = 0;  // 0, or kExitRound* (experiment/runner.h) with message
  std::string message;
  FleetExperimentResult result;
};

FleetExperimentOutcome RunFleetExperiment(
    const ExperimentPlan& plan, const FleetOptions& options,
    const std::vector<std::string>& addresses,
    const std::atomic<bool>* interrupted, bool progress);

// kExitSlower with --fail_on=slower and any arm's fleet verdict slower.
int FleetExitCode(const ExperimentPlan& plan, const FleetExperimentResult& r);

// The report's cohorts compared (hosts as the unit; each host's sample is
// RoundSampleOf its final workload): the baseline is the cohort whose value
// is `baseline` or, when empty, the one with the most hosts (the first by
// value on a tie). FailedPrecondition with fewer than two cohorts;
// InvalidArgument naming --cohort_baseline for a value no cohort has.
absl::StatusOr<CohortComparison> CompareReportCohorts(
    const FleetReport& report, const std::string& baseline, double margin,
    double confidence, Metric headline);

// The fleet report's JSON (FormatReportJson) with "cohort_comparison":
// FormatCohortJson(c) added as its last member.
std::string WithCohortComparison(const std::string& report_json,
                                 const CohortComparison& c);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_EXPERIMENT_RUN_H_
