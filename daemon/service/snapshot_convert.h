// Converts the engine's figures (WorkloadSnapshot, ThreadSnapshot,
// LatencyHistogram, TargetInfo) to their blkperf.v1 messages, and computes
// interval figures for watch streams. Reads plain values only: never touches a
// running workload.
//
//   WorkloadSnapshot now = workload.Snapshot();
//   SnapshotToProto(now, {.thread_histograms = false},
//   reply.mutable_snapshot());
//
//   ThreadSnapshot delta = IntervalDelta(now.total, previous.total);
//   ThreadToProto(delta, now.elapsed - previous.elapsed, true, &interval);
#ifndef BLKPERF_DAEMON_SERVICE_SNAPSHOT_CONVERT_H_
#define BLKPERF_DAEMON_SERVICE_SNAPSHOT_CONVERT_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/engine/histogram.h"
#include "daemon/engine/snapshot.h"
#include "daemon/engine/target.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

struct SnapshotProtoOptions {
  // Also send each thread's histogram (the total always carries one).
  bool thread_histograms = false;
};

v1::WorkloadState StateToProto(WorkloadState state);

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

// What happened between two snapshots of the same workload: counters and
// histogram differences (see LatencyHistogram::Subtract), CPU time
// differences, error count differences; `inflight` is now's.
// REQUIRES: `before` was taken earlier than `now` from the same workload.
ThreadSnapshot IntervalDelta(const ThreadSnapshot& now,
                             const ThreadSnapshot& before);

// Facts of a probed target. `can_poll` and `in_use` are derived; the
// allow-list fields are left to the caller.
void TargetInfoToProto(const TargetInfo& info, v1::TargetInfo* proto);

void TimeToProto(absl::Time time, google::protobuf::Timestamp* proto);
void DurationToProto(absl::Duration duration,
                     google::protobuf::Duration* proto);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_SNAPSHOT_CONVERT_H_
