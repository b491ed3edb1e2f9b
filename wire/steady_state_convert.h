// Steady state on the wire: WorkloadSpec.steady_state and
// Snapshot.steady_state (proto/blkperf.proto) to and from the model's
// types (model/steady_state.h).
//
//   BLKPERF_RETURN_IF_ERROR(
//       SteadyStateSpecFromProto(proto.steady_state(), &spec.steady_state));
//   SteadyStateResultToProto(snapshot.steady_state,
//                            out.mutable_steady_state());
#ifndef BLKPERF_WIRE_STEADY_STATE_CONVERT_H_
#define BLKPERF_WIRE_STEADY_STATE_CONVERT_H_

#include "absl/status/status.h"
#include "model/steady_state.h"
#include "proto/blkperf.grpc.pb.h"

namespace blkperf {

// InvalidArgument naming spec.steady_state.<field> and why. Sets
// spec->enabled.
absl::Status SteadyStateSpecFromProto(const v1::SteadyStateSpec& proto,
                                      SteadyStateSpec* spec);
// REQUIRES: spec.enabled.
void SteadyStateSpecToProto(const SteadyStateSpec& spec,
                            v1::SteadyStateSpec* proto);

void SteadyStateResultToProto(const SteadyStateResult& result,
                              v1::SteadyStateResult* proto);
// A result read back is data: not validated.
SteadyStateResult SteadyStateResultFromProto(
    const v1::SteadyStateResult& proto);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_STEADY_STATE_CONVERT_H_
