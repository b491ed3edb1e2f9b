#include "client/result.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/units.h"
#include "report/report.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

namespace blkperf {

std::string FormatResultText(const RemoteResult& result) {
  std::string text = absl::StrCat("workload ", result.id);
  if (!result.run_id.empty()) absl::StrAppend(&text, " run ", result.run_id);
  absl::StrAppend(&text, "\n");
  if (!result.end_reason.empty()) {
    absl::StrAppend(&text, "ended: ", result.end_reason, "\n");
  }
  return absl::StrCat(
      text, FormatTextReport(result.spec, result.targets, result.snapshot));
}

std::string FormatWorkloadLine(const v1::Workload& workload) {
  const WorkloadState state = StateFromProto(workload.state());
  std::vector<std::string> paths;
  for (const v1::TargetSpec& t : workload.spec().targets()) {
    paths.push_back(OneLine(t.path()));
  }
  absl::StatusOr<WorkloadSpec> spec =
      SpecFromProto(workload.spec(), SpecOrigin::kDaemonResult);
  std::string line = absl::StrFormat(
      "%-5s %-9s %s on %s", OneLine(workload.workload_id(), kMaxEchoBytes),
      WorkloadStateName(state),
      spec.ok() ? SpecSummary(*spec) : "(spec unreadable)",
      absl::StrJoin(paths, ","));
  if (workload.has_snapshot()) {
    absl::StrAppend(&line,
                    "  IOPS=", FormatCount(workload.snapshot().total().iops()));
  }
  return line;
}

std::string StatusLines::Next(const v1::WatchWorkloadResponse& response) {
  const v1::Workload& workload = response.workload();
  absl::StatusOr<WorkloadSnapshot> current =
      SnapshotFromProto(workload.snapshot());
  if (!current.ok()) {
    return absl::StrCat(workload.workload_id(), " [",
                        WorkloadStateName(StateFromProto(workload.state())),
                        "] ", current.status().message());
  }
  current->state = StateFromProto(workload.state());
  if (current->split_strategy.empty())
    current->split_strategy = workload.split();
  std::string line = absl::StrCat(workload.workload_id(), " ",
                                  FormatStatusLine(previous_, *current));
  previous_ = *std::move(current);
  return line;
}

}  // namespace blkperf
