// The one place absl::Status becomes grpc::Status. The codes correspond one to
// one (both follow google.rpc.Code), so the mapping keeps the code and the
// message; the service never picks a gRPC code itself.
//
//   absl::StatusOr<std::string> id = manager.Start(spec);
//   if (!id.ok()) return ToGrpcStatus(id.status());
#ifndef BLKPERF_WIRE_GRPC_STATUS_H_
#define BLKPERF_WIRE_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace blkperf {

// Same code, same message. OK maps to grpc::Status::OK.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The reverse, for clients and tests that talk to the daemon in C++.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_GRPC_STATUS_H_
