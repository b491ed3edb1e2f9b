// fio's log options (docs/fio.md): --write_iops_log, --write_bw_log,
// --write_lat_log with --log_avg_msec, --write_hist_log with
// --log_hist_msec; on `blkperfd run` (the workload in this process) and
// `blkperf run` (the client polls the daemon's snapshots and writes the
// files itself: the daemon never writes a log path for a client). Each
// window is the difference of two snapshots (report/fio_log.h).
//
//   absl::StatusOr<std::optional<FioLogPlan>> plan = FioLogPlanFromFlags(spec);
//   absl::StatusOr<FioLogWriter> logs = FioLogWriter::Open((*plan)->settings);
//   ... start the workload ...
//   RecordFioLogs(**plan, wait_for_end, snapshot, &*logs);  // until it ends
#ifndef BLKPERF_CLI_FIO_LOG_FLAGS_H_
#define BLKPERF_CLI_FIO_LOG_FLAGS_H_

#include <optional>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "model/snapshot.h"
#include "model/workload_spec.h"
#include "report/fio_log.h"

namespace blkperf {

// Shortest period accepted: each window costs a snapshot of every thread's
// histograms.
inline constexpr absl::Duration kMinFioLogPeriod = absl::Milliseconds(10);

struct FioLogPlan {
  FioLogSettings settings;
  absl::Duration average_period;    // zero: no averaged logs
  absl::Duration histogram_period;  // zero: no histogram log
};

// Whether any of the log flags above is given.
bool FioLogFlagsGiven();

// The logs the flags ask for over those of `job_file` (a --fio_job's log
// options; each flag given wins over the file's), nullopt when none is
// asked for. InvalidArgument naming the flag: an averaged log without
// --log_avg_msec (blkperf keeps no per-I/O samples), --write_hist_log
// without --log_hist_msec, a period under kMinFioLogPeriod, or a latency
// log of a spec whose I/O goes more than one way (randrw, job groups:
// blkperf's latencies are not per direction).
absl::StatusOr<std::optional<FioLogPlan>> FioLogPlanFromFlags(
    const WorkloadSpec& spec, const FioLogOptions& job_file = {});

// Writes the logs of one workload until it ends, then its last partial
// windows, and closes `writer`. `wait_for_end(d)` waits at most d and says
// whether the workload has ended; `snapshot()` is its snapshot now (its
// measured counters and elapsed time start from zero when ramp-up ends).
// The first error of `snapshot` or of a write ends the logs and is
// returned (the files keep the windows before it).
absl::Status RecordFioLogs(
    const FioLogPlan& plan,
    absl::FunctionRef<bool(absl::Duration)> wait_for_end,
    absl::FunctionRef<absl::StatusOr<WorkloadSnapshot>()> snapshot,
    FioLogWriter* writer);

}  // namespace blkperf

#endif  // BLKPERF_CLI_FIO_LOG_FLAGS_H_
