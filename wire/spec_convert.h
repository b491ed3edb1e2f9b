// Converts workload specs between the wire (blkperf.v1.WorkloadSpec) and the
// engine (blkperf::WorkloadSpec).
//
//   absl::StatusOr<WorkloadSpec> spec = SpecFromProto(request.spec());
//   if (!spec.ok()) return ToGrpcStatus(spec.status());  // names the field
//   ...
//   SpecToProto(workload.spec().spec, response.mutable_spec());
//
// SpecFromProto checks what the wire form can get wrong on its own: unknown
// enum numbers, malformed or negative durations, empty or relative paths,
// out-of-range numbers, an unparsable split strategy or A/B entry
// ("spec.ab_strategies[1]"), a malformed or zero A/B slice. Each error is
// InvalidArgument whose message starts with the field path ("spec.op",
// "spec.targets[1].path") and gives the value and the reason. Checks that
// need the system (online CPUs, block sizes, limits) stay in the engine's
// ResolveSpec. Unset optional fields keep the engine's defaults; no targets
// stays no targets (the manager's default target).
#ifndef BLKPERF_WIRE_SPEC_CONVERT_H_
#define BLKPERF_WIRE_SPEC_CONVERT_H_

#include "absl/status/statusor.h"
#include "model/workload_spec.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

// Where a wire spec comes from. A request's spec is user input and gets
// every check above. A daemon's result carries the spec the daemon itself
// resolved: it is data, decoded (enum numbers, durations, strategies) but
// not checked again as input (a NOP workload's stand-in target "nop" is
// not an absolute path, and need not be).
enum class SpecOrigin { kRequest, kDaemonResult };

absl::StatusOr<WorkloadSpec> SpecFromProto(
    const v1::WorkloadSpec& proto, SpecOrigin origin = SpecOrigin::kRequest);

// Writes every field of `spec` (optional ones included) to `*proto`, so a
// resolved spec shows all its values. SpecFromProto(SpecToProto(s)) == s.
void SpecToProto(const WorkloadSpec& spec, v1::WorkloadSpec* proto);

v1::Op OpToProto(Op op);
v1::Arrivals ArrivalsToProto(Arrivals arrivals);
v1::PollMode PollModeToProto(PollMode mode);
v1::RequestCacheMode RequestCacheModeToProto(RequestCacheMode mode);
v1::LatencyMode LatencyModeToProto(LatencyMode mode);
v1::BufferLayout BufferLayoutToProto(BufferLayout layout);
v1::HugePageMode HugePageModeToProto(HugePageMode mode);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_SPEC_CONVERT_H_
