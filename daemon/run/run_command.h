// `blkperfd run`: one workload in the foreground, spec from flags, result
// printed as a table (or --output_format=json|fio-json|fio-json+).
//
//   blkperfd run                                  # default file target
//   blkperfd run --target=/dev/zram0 --qd=128 --submit_batch=32 --cpus=0
//   blkperfd run --target=/dev/zram0 --vary=qd=32,128 --rounds=10 --round=1s
//   blkperfd run --fio_job=job.fio --output_format=fio-json+
//
// With no --target, runs the embedded default: a 1 GiB file created and
// pre-filled in --data_dir, 4 KiB random reads, queue depth 32, 10 s.
#ifndef BLKPERF_DAEMON_RUN_RUN_COMMAND_H_
#define BLKPERF_DAEMON_RUN_RUN_COMMAND_H_

#include "absl/status/statusor.h"
#include "cli/output_format.h"
#include "fio/import.h"
#include "model/workload_spec.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

// The spec the run flags describe (field errors name the flag), on top of
// the imported --fio_job when there is one. The fio output formats make
// per_io the default latency_mode.
absl::StatusOr<WorkloadSpec> SpecFromRunFlags(OutputFormat format,
                                              const FioImport* fio_job);

// The spec `proto` describes as `blkperfd run` runs it: the default target
// when it names none, the verify state in the data directory.
// The fio output formats make per_io the default latency_mode.
absl::StatusOr<WorkloadSpec> RunSpecFromProto(
    v1::WorkloadSpec proto, OutputFormat format = OutputFormat::kText);

// Runs the workload the flags describe (an experiment with --vary, see
// experiment_command.h); returns the process exit code.
int RunCommand();

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_RUN_RUN_COMMAND_H_
