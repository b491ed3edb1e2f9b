// A server interceptor that turns "the request bytes are not a valid
// message" into INVALID_ARGUMENT with a message.
//
// gRPC 1.51's callback handlers answer a request that fails to parse with
// UNIMPLEMENTED and an empty message (indistinguishable from a missing
// method). For calls with one request message (unary, server streaming)
// this interceptor notes, after the request is read, that no message came
// out of the bytes, and rewrites the status it sends.
//
//   builder.experimental().SetInterceptorCreators(
//       MalformedRequestInterceptors());
#ifndef BLKPERF_DAEMON_SERVICE_MALFORMED_REQUEST_H_
#define BLKPERF_DAEMON_SERVICE_MALFORMED_REQUEST_H_

#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <vector>

namespace blkperf {

std::vector<
    std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
MalformedRequestInterceptors();

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_MALFORMED_REQUEST_H_
