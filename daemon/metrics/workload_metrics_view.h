// What the metrics exporter needs to know about one workload at scrape time,
// and the callback that lists them. The exporter asks for the list on every
// scrape and never keeps a workload alive or touches the engine itself: the
// owner (the service's WorkloadManager, or a test) builds the views from its
// engine snapshots.
//
//   WorkloadLister lister = [&manager] {
//     std::vector<WorkloadMetricsView> views;
//     for (const WorkloadView& w : manager.List(/*with_snapshots=*/true)) {
//       views.push_back(MakeWorkloadMetricsView(w.id, w.spec, w.snapshot,
//                                               w.end_time));
//     }
//     return views;
//   };
#ifndef BLKPERF_DAEMON_METRICS_WORKLOAD_METRICS_VIEW_H_
#define BLKPERF_DAEMON_METRICS_WORKLOAD_METRICS_VIEW_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "model/snapshot.h"
#include "model/workload_spec.h"

namespace blkperf {

struct WorkloadMetricsView {
  // The daemon-assigned id ("w1"); the `workload` label. Unique per lister
  // call (a repeated id is exported once, the first).
  std::string id;
  // One line describing the spec, e.g. "randread bs=4096 qd=32 threads=2
  // targets=/dev/nvme0n1"; the `spec` label of blkperf_workload_info.
  std::string spec_summary;
  // The split strategy in force now ("none", "limits", "fixed:131072").
  std::string split_strategy;
  // The client-chosen fleet run id the workload was armed or started with
  // (proto Workload.run_id: 1-64 characters of [A-Za-z0-9._-]); empty if
  // none. When set it is the `run_id` label of every series of the workload
  // (one run id per workload, so it adds no series; an id not of that form
  // is exported as "invalid", never echoed).
  std::string run_id;
  // The experiment arm it runs (spec.experiment_arm: 1-64 characters of
  // [A-Za-z0-9_.:=,/+-], e.g. "qd=32"); empty outside experiments. When set
  // it is the `arm` label of every series of the workload, as run_id (one
  // arm per workload: it adds no series; the distinct values are bounded by
  // the workloads the daemon keeps; a name not of that form is exported as
  // "invalid").
  std::string experiment_arm;
  // Target paths as given; joined with "," (a backslash or comma inside a
  // path preceded by a backslash) they form the `target` label.
  std::vector<std::string> targets;
  // The spec's op ("randread", "randrw", ...); the `rw` label of
  // blkperf_workload_info. It also decides which `op` series (read, write)
  // the I/O counters carry.
  std::string op;
  // Whether it runs open loop (a rate, or an SLO search): it then exports
  // intended-time latency and late I/Os from the start.
  bool open_loop = false;
  // Whether it verifies reads (spec.verify): verify_mismatch errors are then
  // exported from the start, at 0.
  bool verify = false;
  // Whether it issues fsync/fdatasync: sync_ios_total is then exported from
  // the start, at 0.
  bool syncs = false;
  // The strategies of the spec's A/B schedule (SplitStrategyName, in
  // schedule order); empty without one. Their per-strategy series, latency
  // histogram included, are exported from the start, at 0.
  std::vector<std::string> ab_strategies;
  // Whether it does direct I/O (spec.direct). Device request counters are
  // exported only then: buffered I/O reaches the device through the page
  // cache, not as the SQEs' requests.
  bool direct = true;
  // Live figures, or the final ones once snapshot.state is terminal.
  WorkloadSnapshot snapshot;
  // When the workload reached its terminal state; absl::InfinitePast() while
  // running. Terminal workloads' series are dropped once this is older than
  // MetricsOptions::finished_ttl.
  absl::Time finished_at = absl::InfinitePast();
};

// Called once per scrape, from the exporter's HTTP thread. Must be
// thread-safe and cheap (it runs while Prometheus waits).
using WorkloadLister = std::function<std::vector<WorkloadMetricsView>()>;

// "randread bs=4096 qd=32 threads=2 targets=/dev/a,/dev/b": the fields that
// tell two workloads apart on a dashboard, short enough for a label value
// (report.h's SpecSummary is the full line for people).
std::string MetricsSpecSummary(const WorkloadSpec& spec);

// A view from the spec (defaults resolved) and a snapshot. The split
// strategy is the snapshot's when the engine reports one, the spec's
// otherwise.
WorkloadMetricsView MakeWorkloadMetricsView(std::string id,
                                            const WorkloadSpec& spec,
                                            WorkloadSnapshot snapshot,
                                            absl::Time finished_at);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_WORKLOAD_METRICS_VIEW_H_
