// Test-only: one unary call with raw request bytes, by method name, as a
// client written from the .proto alone (or a fuzzer) would send it.
//
//   grpc::Status s = GenericUnaryCall(channel,
//       "/blkperf.v1.Blkperf/StartWorkload", std::string("\xff\xff", 2));
#ifndef BLKPERF_DAEMON_SERVICE_GENERIC_CALL_FOR_TEST_H_
#define BLKPERF_DAEMON_SERVICE_GENERIC_CALL_FOR_TEST_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace blkperf {

inline grpc::Status GenericUnaryCall(std::shared_ptr<grpc::Channel> channel,
                                     const std::string& method,
                                     const std::string& request_bytes) {
  grpc::GenericStub generic(std::move(channel));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status status;
  generic.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                    [&](grpc::Status s) {
                      std::lock_guard<std::mutex> lock(mu);
                      status = std::move(s);
                      done = true;
                      cv.notify_all();
                    });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return status;
}

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_GENERIC_CALL_FOR_TEST_H_
