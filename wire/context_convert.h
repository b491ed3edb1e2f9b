// The result's context on the wire: Environment and Series
// (model/environment.h, model/series.h) to and from blkperf.v1.
// SnapshotToProto/SnapshotFromProto (snapshot_convert.h) call these.
//
//   EnvironmentToProto(snapshot.environment, proto.mutable_environment());
//   snapshot.series = SeriesFromProto(proto.series());
#ifndef BLKPERF_WIRE_CONTEXT_CONVERT_H_
#define BLKPERF_WIRE_CONTEXT_CONVERT_H_

#include "model/environment.h"
#include "model/series.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

void EnvironmentToProto(const Environment& env, v1::Environment* proto);
// A result read back is data, not input: facts are re-sanitized (bounded,
// printable) so a peer cannot put control bytes into a terminal; targets
// beyond kMaxEnvironmentTargets are dropped.
Environment EnvironmentFromProto(const v1::Environment& proto);

// With `histograms`, each point carries its interval's latency histogram
// (SeriesPoint.histogram: what a fleet's exact per-interval merge needs).
void SeriesToProto(const Series& series, v1::Series* proto,
                   bool histograms = false);
// At most kMaxSeriesPoints + 1 points are kept; a point's histogram, when
// sent and valid, becomes its latency_buckets (an invalid one is dropped).
Series SeriesFromProto(const v1::Series& proto);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_CONTEXT_CONVERT_H_
