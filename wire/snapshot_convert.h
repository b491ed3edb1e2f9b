// Converts the engine's figures (WorkloadSnapshot, ThreadSnapshot,
// LatencyHistogram, phases, device counters, A/B results, TargetInfo) to
// their blkperf.v1 messages and back, and computes interval figures for watch
// streams. Reads plain values only: never touches a running workload.
//
//   WorkloadSnapshot now = workload.Snapshot();
//   SnapshotToProto(now, {.thread_histograms = false},
//   reply.mutable_snapshot());
//
//   ThreadSnapshot delta = IntervalDelta(now.total, previous.total);
//   ThreadToProto(delta, now.elapsed - previous.elapsed, true, &interval);
//
// The FromProto direction lets a client print a remote result with the same
// report code as `blkperfd run` (report/report.h):
//
//   absl::StatusOr<WorkloadSnapshot> s = SnapshotFromProto(w.snapshot());
//   s->state = StateFromProto(w.state());
//
// Counters, errors, CPU times, histograms, phases, device counters and A/B
// results round-trip exactly; a histogram the message does not carry (per
// thread or per phase unless asked for) comes back empty. Derived rates
// (iops, bytes_per_second ...) are recomputed from the counters.
#ifndef BLKPERF_WIRE_SNAPSHOT_CONVERT_H_
#define BLKPERF_WIRE_SNAPSHOT_CONVERT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "model/histogram.h"
#include "model/snapshot.h"
#include "model/target_info.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

struct SnapshotProtoOptions {
  // Also send each thread's histogram (the total always carries one).
  bool thread_histograms = false;
  // Also send each phase's histogram.
  bool phase_histograms = false;
  // Also send each series point's own histogram (SeriesPoint.histogram).
  bool series_histograms = false;
};

v1::WorkloadState StateToProto(WorkloadState state);
// WORKLOAD_STATE_UNSPECIFIED and unknown numbers read as kRunning.
WorkloadState StateFromProto(v1::WorkloadState state);

// When I/O began (Workload.start). threads_started does not travel: the
// proto has the earliest and latest stamps only.
void StartTimesToProto(const StartTimes& start, v1::StartReport* proto);
StartTimes StartTimesFromProto(const v1::StartReport& proto);

// The layout every LatencyHistogram uses (log-linear-64).
v1::HistogramLayout HistogramLayoutProto();

// Sparse form: layout, non-empty buckets with bounds, count, sum, min, max.
void HistogramToProto(const LatencyHistogram& histogram,
                      v1::LatencyHistogram* proto);

// Rebuilds a histogram exactly. InvalidArgument naming the field when the
// layout is another one, an index is out of range or counts do not add up.
absl::StatusOr<LatencyHistogram> HistogramFromProto(
    const v1::LatencyHistogram& proto);

// p50, p90, p99, p99.9, p99.99, max, min, mean and count.
void PercentilesToProto(const LatencyHistogram& histogram,
                        v1::LatencyPercentiles* proto);

// Counters, derived rates over `elapsed`, errors and percentiles; the
// histogram too when `with_histogram`.
void ThreadToProto(const ThreadSnapshot& thread, absl::Duration elapsed,
                   bool with_histogram, v1::ThreadStats* proto);

void SnapshotToProto(const WorkloadSnapshot& snapshot,
                     const SnapshotProtoOptions& options, v1::Snapshot* proto);

// Snapshot.precondition, both ways (SnapshotToProto/FromProto use them).
void PreconditionToProto(const PreconditionSummary& precondition,
                         v1::PreconditionResult* proto);
PreconditionSummary PreconditionFromProto(const v1::PreconditionResult& proto);

void DeviceCountersToProto(const DeviceCounters& device,
                           v1::DeviceCounters* proto);
DeviceCounters DeviceCountersFromProto(const v1::DeviceCounters& proto);

// Counters, CPU times, errors and the histogram when the message has one
// (else an empty histogram). InvalidArgument naming "<field>.histogram..."
// when the histogram cannot be rebuilt (see HistogramFromProto).
absl::StatusOr<ThreadSnapshot> ThreadFromProto(const v1::ThreadStats& proto,
                                               absl::string_view field);

// Everything but the state, which the Workload message carries (set it with
// StateFromProto). Errors as ThreadFromProto's, naming the field under
// "snapshot" ("snapshot.phases[1].total.histogram.count ...").
absl::StatusOr<WorkloadSnapshot> SnapshotFromProto(const v1::Snapshot& proto);

// What happened between two snapshots of the same workload: counters and
// histogram differences (see LatencyHistogram::Subtract), CPU time
// differences, error count differences; `inflight` is now's.
// REQUIRES: `before` was taken earlier than `now` from the same workload.
ThreadSnapshot IntervalDelta(const ThreadSnapshot& now,
                             const ThreadSnapshot& before);

// Facts of a probed target. `can_poll` and `in_use` are derived; the
// allow-list fields are left to the caller.
void TargetInfoToProto(const TargetInfo& info, v1::TargetInfo* proto);
// The engine's facts back (stat_path derived from device_name).
TargetInfo TargetInfoFromProto(const v1::TargetInfo& proto);

void TimeToProto(absl::Time time, google::protobuf::Timestamp* proto);
absl::Time TimeFromProto(const google::protobuf::Timestamp& proto);
void DurationToProto(absl::Duration duration,
                     google::protobuf::Duration* proto);
absl::Duration DurationFromProto(const google::protobuf::Duration& proto);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_SNAPSHOT_CONVERT_H_
