// The Prometheus collector of blkperf's workload metrics. On each scrape it
// asks a WorkloadLister for the current workloads and turns their snapshots
// (counters the engine keeps anyway) into metric families; nothing is
// counted per I/O for Prometheus.
//
//   auto collector = std::make_shared<WorkloadCollector>(
//       lister, WorkloadCollector::Options{.finished_ttl = absl::Minutes(5)});
//   exposer.RegisterCollectable(collector);
//
// Families (all prefixed blkperf_; per-CPU series carry workload, target,
// cpu; `target` is the workload's target paths joined with ",", a
// backslash or comma inside a path preceded by a backslash; every
// workload series also carries run_id when the workload has one):
//   ios_total, bytes_total            counters, + op="read"|"write"|"trim"
//   late_ios_total                    counter, open-loop workloads: I/Os
//                                     due while every queue slot was taken
//                                     (issued after their intended time)
//   sync_ios_total                    counter, from the start at 0 where
//                                     the spec syncs (or once syncs
//                                     completed)
//   io_errors_total                   counter, + errno: "EIO" and
//                                     "short_transfer" from the start at 0
//                                     (and "verify_mismatch" where the
//                                     workload verifies), any other errno
//                                     ("ENOSPC", "errno_200") from its first
//                                     occurrence
//   ios_in_flight                     gauge: in flight right after the
//                                     last reap (not the peak depth)
//   inflight_ios_mean                 gauge: mean I/Os submitted and not
//                                     yet completed over the measured time
//                                     (Little's law: iops x mean latency)
//   io_uring_enter_calls_total        counter: submit and reap syscalls
//   ios_per_syscall                   gauge: ios / enter calls, whole run
//   sqes_total                        counter: SQEs (split pieces)
//   request_cache_hits_total, request_cache_misses_total   counters
//   submitter_cpu_seconds_total       counter, + mode="user"|"system"|
//                                     "io_worker"
// Per workload (workload, target):
//   io_latency_seconds                histogram (see latency_buckets.h)
//   io_intended_latency_seconds       histogram, open-loop workloads: from
//                                     each I/O's intended issue time
//   io_issue_lag_seconds              histogram, open-loop workloads: from
//                                     each I/O's intended issue time to
//                                     its submission
// Per SLO-search workload (workload, + objective="p99<1ms"):
//   slo_done, slo_best_iops, slo_knee_iops, slo_max_iops     gauges
// and per step (workload, step="0".."31"): slo_step_asked_iops,
//   slo_step_iops, slo_step_met, slo_step_latency_seconds (+ percentile
//   "50"|"99"|"99.9") gauges
// Per workload (workload):
//   workload_info                     1, + spec, split_strategy, rw
//   workload_state                    1 for the current state, 0 for the
//                                     others, + state
//   workload_finished_timestamp_seconds  gauge, ended workloads only: when
//                                     it ended (Unix time); its series are
//                                     final
//   workload_elapsed_seconds          gauge: measured time so far
//   split_strategy_switches_total     counter
// Per workload and split strategy (workload, strategy), over the phases run
// under that strategy (an A/B workload's arms from its start, at 0):
//   split_ios_total, split_pieces_total            counters
//   split_pieces_per_io                            gauge
//   device_requests_total, device_requests_per_sqe (only for direct I/O
//                                     where the engine could read the
//                                     targets' block devices)
//   split_io_latency_seconds          histogram (same buckets), only once
//                                     the workload has two strategies to
//                                     compare (an A/B, or a switch): with
//                                     one it would repeat io_latency_seconds
// Per job group (workload, group="hot"), workloads with spec.groups only:
//   group_ios_total                   counter
//   group_io_latency_seconds          histogram (same buckets)
// Series budget: 144 per histogram (latency_buckets.h): one for the
// workload, one per split strategy used once it used two or more (at most
// kMaxStrategiesPerWorkload), one per group, two more for open loop
// (intended latency, issue lag). A closed-loop read workload on one CPU
// with one strategy: 14 per CPU + 144 + 12 per workload + 3 for its
// strategy = 173 series (+1 once ended, +2 device counters).
//
// At any instant label values come from bounded sets: workload ids
// (running ones plus terminal ones younger than `finished_ttl`) and their
// run ids (one per workload, at most 64 characters), CPUs, the op and error
// kinds, the nine states, at most kMaxStrategiesPerWorkload strategies per workload (the
// most recently used) and at most kMaxSloSteps SLO steps. Over time every
// new workload brings new series (ids, run ids and paths are not reused),
// which go `finished_ttl` after it ends.
//
// Every workload's io_latency_seconds has the same `le` set (the fixed
// LatencyBucketBoundsNs(), whatever its data), on every daemon: so
// histogram_quantile over sum by (le) across workloads and hosts is valid.
#ifndef BLKPERF_DAEMON_METRICS_WORKLOAD_COLLECTOR_H_
#define BLKPERF_DAEMON_METRICS_WORKLOAD_COLLECTOR_H_

#include <vector>

#include "absl/time/time.h"
#include "daemon/metrics/workload_metrics_view.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace blkperf {

class WorkloadCollector final : public prometheus::Collectable {
 public:
  static constexpr int kMaxStrategiesPerWorkload = 16;

  struct Options {
    // How long a terminal workload's series stay after its finished_at.
    absl::Duration finished_ttl = absl::Minutes(5);
  };

  // REQUIRES: `lister` is callable and thread-safe.
  WorkloadCollector(WorkloadLister lister, Options options);

  // Thread-safe (the lister must be). Calls the lister and builds the
  // families on a fresh thread with a default-sized stack, so callers with
  // small stacks (the HTTP server's workers) are safe.
  std::vector<prometheus::MetricFamily> Collect() const override;

  // Collect() as of `now` (tests pin the clock with it).
  std::vector<prometheus::MetricFamily> CollectAt(absl::Time now) const;

 private:
  const WorkloadLister lister_;
  const Options options_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_WORKLOAD_COLLECTOR_H_
