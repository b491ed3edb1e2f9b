// fio's log options on `blkperfd run` (docs/fio.md): --write_iops_log,
// --write_bw_log, --write_lat_log with --log_avg_msec, --write_hist_log
// with --log_hist_msec. The run's own thread snapshots the workload every
// period and writes the windows (report/fio_log.h).
//
//   absl::StatusOr<std::optional<FioLogPlan>> plan = FioLogPlanFromFlags(spec);
//   absl::StatusOr<FioLogWriter> logs = FioLogWriter::Open((*plan)->settings);
//   ... start the workload ...
//   RecordFioLogs(*workload, **plan, &*logs);   // returns when it ends
#ifndef BLKPERF_DAEMON_RUN_FIO_LOGS_H_
#define BLKPERF_DAEMON_RUN_FIO_LOGS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/engine/workload.h"
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

// nullopt when no log is asked for. InvalidArgument naming the flag: an
// averaged log without --log_avg_msec (blkperf keeps no per-I/O samples),
// --write_hist_log without --log_hist_msec, a period under
// kMinFioLogPeriod, or a latency log of a spec whose I/O goes more than
// one way (randrw, job groups: blkperf's latencies are not per direction).
absl::StatusOr<std::optional<FioLogPlan>> FioLogPlanFromFlags(
    const WorkloadSpec& spec);

// Writes the logs until `workload` ends, then its last partial windows, and
// closes `writer` (the error names a write that failed).
absl::Status RecordFioLogs(Workload& workload, const FioLogPlan& plan,
                           FioLogWriter* writer);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_RUN_FIO_LOGS_H_
