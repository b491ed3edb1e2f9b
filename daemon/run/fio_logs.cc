#include "daemon/run/fio_logs.h"

namespace blkperf {

absl::Status RecordFioLogs(Workload& workload, const FioLogPlan& plan,
                           FioLogWriter* writer) {
  auto wait_for_end = [&](absl::Duration d) {
    if (!workload.WaitFor(d)) return false;
    workload.Wait();  // the last snapshot is the final one
    return true;
  };
  return RecordFioLogs(
      plan, wait_for_end,
      [&]() -> absl::StatusOr<WorkloadSnapshot> { return workload.Snapshot(); },
      writer);
}

}  // namespace blkperf
