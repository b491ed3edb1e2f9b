// fio's log options on `blkperfd run` (docs/fio.md; the flags and the
// window arithmetic are cli/fio_log_flags.h's): the run's own thread
// snapshots the workload every period and writes the windows.
//
//   absl::StatusOr<std::optional<FioLogPlan>> plan = FioLogPlanFromFlags(spec);
//   absl::StatusOr<FioLogWriter> logs = FioLogWriter::Open((*plan)->settings);
//   ... start the workload ...
//   RecordFioLogs(*workload, **plan, &*logs);   // returns when it ends
#ifndef BLKPERF_DAEMON_RUN_FIO_LOGS_H_
#define BLKPERF_DAEMON_RUN_FIO_LOGS_H_

#include "absl/status/status.h"
#include "cli/fio_log_flags.h"
#include "daemon/engine/workload.h"
#include "report/fio_log.h"

namespace blkperf {

// Writes the logs until `workload` ends, then its last partial windows, and
// closes `writer` (the error names a write that failed).
absl::Status RecordFioLogs(Workload& workload, const FioLogPlan& plan,
                           FioLogWriter* writer);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_RUN_FIO_LOGS_H_
