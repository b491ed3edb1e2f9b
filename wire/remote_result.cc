#include "wire/remote_result.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

namespace blkperf {

absl::StatusOr<RemoteResult> ResultFromProto(const v1::Workload& workload) {
  RemoteResult result;
  result.id = workload.workload_id();
  absl::StatusOr<WorkloadSpec> spec =
      SpecFromProto(workload.spec(), SpecOrigin::kDaemonResult);
  if (!spec.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload ", workload.workload_id(),
                     ": the daemon's resolved spec does not read back: ",
                     spec.status().message()));
  }
  result.spec = *std::move(spec);
  for (const v1::TargetInfo& target : workload.targets()) {
    result.targets.push_back(TargetInfoFromProto(target));
  }
  absl::StatusOr<WorkloadSnapshot> snapshot =
      SnapshotFromProto(workload.snapshot());
  if (!snapshot.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload ", workload.workload_id(), ": ",
                     snapshot.status().message()));
  }
  result.snapshot = *std::move(snapshot);
  result.snapshot.state = StateFromProto(workload.state());
  result.snapshot.start = StartTimesFromProto(workload.start());
  result.run_id = workload.run_id();
  result.end_reason = workload.end_reason();
  if (result.snapshot.split_strategy.empty()) {
    result.snapshot.split_strategy = workload.split();
  }
  return result;
}

}  // namespace blkperf
