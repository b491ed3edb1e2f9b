#include "daemon/metrics/workload_metrics_view.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "model/split_strategy.h"

namespace blkperf {

std::string MetricsSpecSummary(const WorkloadSpec& spec) {
  std::vector<std::string> paths;
  paths.reserve(spec.targets.size());
  for (const TargetSpec& t : spec.targets) paths.push_back(t.path);
  std::string summary = absl::StrCat(OpName(spec.op));
  if (spec.op == Op::kRandRW) {
    absl::StrAppend(&summary, " read_percent=", spec.read_percent);
  }
  absl::StrAppend(&summary, " bs=", spec.block_size, " qd=", spec.queue_depth,
                  " threads=", spec.threads);
  if (spec.polled != PollMode::kOff) {
    absl::StrAppend(&summary, " polled=", PollModeName(spec.polled));
  }
  if (spec.sqpoll) absl::StrAppend(&summary, " sqpoll");
  if (!spec.direct) absl::StrAppend(&summary, " buffered");
  if (spec.rate_iops != 0) absl::StrAppend(&summary, " rate_iops=", spec.rate_iops);
  if (spec.rate_bw != 0) absl::StrAppend(&summary, " rate_bw=", spec.rate_bw);
  if (!spec.groups.empty()) {
    absl::StrAppend(&summary, " groups=", spec.groups.size());
  }
  if (spec.slo.enabled) {
    absl::StrAppend(&summary, " slo=", SloTargetName(spec.slo.target));
  }
  absl::StrAppend(&summary, " targets=", absl::StrJoin(paths, ","));
  return summary;
}

WorkloadMetricsView MakeWorkloadMetricsView(std::string id,
                                            const WorkloadSpec& spec,
                                            WorkloadSnapshot snapshot,
                                            absl::Time finished_at) {
  WorkloadMetricsView view;
  view.id = std::move(id);
  view.spec_summary = MetricsSpecSummary(spec);
  view.split_strategy = snapshot.split_strategy.empty()
                            ? SplitStrategyName(spec.split)
                            : snapshot.split_strategy;
  for (const TargetSpec& t : spec.targets) view.targets.push_back(t.path);
  view.op = std::string(OpName(spec.op));
  view.open_loop = spec.rate_iops != 0 || spec.rate_bw != 0 || spec.slo.enabled;
  for (const JobGroupSpec& g : spec.groups) {
    view.open_loop = view.open_loop || g.rate_iops.value_or(0) != 0 ||
                     g.rate_bw.value_or(0) != 0;
  }
  view.verify = spec.verify;
  view.direct = spec.direct;
  view.experiment_arm = spec.experiment_arm;
  for (const SplitStrategy& s : spec.ab_strategies) {
    view.ab_strategies.push_back(SplitStrategyName(s));
  }
  view.syncs = spec.fsync_every != 0 || spec.fdatasync_every != 0;
  for (const JobGroupSpec& g : spec.groups) {
    view.syncs = view.syncs || g.fsync_every.value_or(0) != 0 ||
                 g.fdatasync_every.value_or(0) != 0;
  }
  view.snapshot = std::move(snapshot);
  view.finished_at = finished_at;
  return view;
}

}  // namespace blkperf
