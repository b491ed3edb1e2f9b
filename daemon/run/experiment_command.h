// `blkperfd run --vary=FIELD=V1,V2[,...]`: an experiment on this host. Each
// round runs every arm as its own workload (its own set-up, its ramp
// discarded, --round measured) in a randomized block order (ABBA, BAAB ...),
// then prints each arm's ratios to the baseline (the first value) with
// their intervals and verdicts against --margin (experiment/).
//
//   blkperfd run --target=/tmp/f --nodirect --vary=rate_iops=20000,25000 \
//       --rounds=10 --round=500ms --json
//   blkperfd run --target=/dev/zram0 --vary=fixed_buffers=true,false \
//       --rounds=20 --round=1s --ramp=200ms --fail_on=slower
#ifndef BLKPERF_DAEMON_RUN_EXPERIMENT_COMMAND_H_
#define BLKPERF_DAEMON_RUN_EXPERIMENT_COMMAND_H_

namespace blkperf {

// Exit status (experiment/runner.h): 4 when --fail_on=slower and an arm's
// headline verdict is slower; 1 a round failed; 2 bad flags; 3 a round
// counted I/O errors.

// True when --vary is given or the --spec_file holds experiment.arms[]
// (RunCommand hands over to RunExperiment).
bool ExperimentRequested();

// Runs the experiment the flags describe; `json` prints the report as JSON.
// Returns the process exit code.
int RunExperiment(bool json);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_RUN_EXPERIMENT_COMMAND_H_
