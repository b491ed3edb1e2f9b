// The client's connection to blkperfd: a channel and stub whose first act is
// the API version check. Every call returns absl::Status/StatusOr with the
// server's code and message, and checks the response's api_version.
//
//   absl::StatusOr<std::unique_ptr<Connection>> c =
//       Connection::Open("127.0.0.1:7777", absl::Seconds(5));
//   if (!c.ok()) return Fail(c.status());   // unreachable or wrong version
//   absl::StatusOr<v1::GetWorkloadResponse> w = (*c)->GetWorkload(request);
#ifndef BLKPERF_CLIENT_CONNECTION_H_
#define BLKPERF_CLIENT_CONNECTION_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/blkperf.grpc.pb.h"

namespace blkperf {

// The version this client speaks.
inline constexpr uint32_t kClientApiVersion = v1::API_VERSION_CURRENT;

// FailedPrecondition naming both versions when `server_version` differs.
absl::Status CheckServerApiVersion(uint32_t server_version,
                                   const std::string& server);

// How a connection behaves beyond the defaults of a one-daemon client.
struct ConnectionOptions {
  // Deadline of every unary call (DEADLINE_EXCEEDED past it); infinite
  // by default. WatchWorkload streams never get one.
  absl::Duration call_timeout = absl::InfiniteDuration();
  // HTTP/2 keepalive pings while calls are in flight (fleet runs: a host
  // that vanishes is noticed within time + timeout); zero turns them off.
  absl::Duration keepalive_time = absl::ZeroDuration();
  absl::Duration keepalive_timeout = absl::Seconds(10);
  // false: Open skips GetCapabilities (one call fewer per host for fleets);
  // every response's api_version is still checked, capabilities() is empty.
  bool fetch_capabilities = true;
};

class Connection {
 public:
  // Connects (waiting up to `connect_timeout`) and checks the server's API
  // version with GetCapabilities. Unavailable when the daemon cannot be
  // reached; FailedPrecondition naming both versions on a mismatch.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const std::string& server, absl::Duration connect_timeout,
      const ConnectionOptions& options = ConnectionOptions());

  // The capabilities fetched by Open.
  const v1::GetCapabilitiesResponse& capabilities() const { return caps_; }
  const std::string& server() const { return server_; }

  absl::StatusOr<v1::ProbeTargetResponse> ProbeTarget(
      v1::ProbeTargetRequest request);
  absl::StatusOr<v1::StartWorkloadResponse> StartWorkload(
      v1::StartWorkloadRequest request);
  absl::StatusOr<v1::StopWorkloadResponse> StopWorkload(
      v1::StopWorkloadRequest request);
  absl::StatusOr<v1::GetWorkloadResponse> GetWorkload(
      v1::GetWorkloadRequest request);
  absl::StatusOr<v1::ListWorkloadsResponse> ListWorkloads(
      v1::ListWorkloadsRequest request);
  absl::StatusOr<v1::SetSplitStrategyResponse> SetSplitStrategy(
      v1::SetSplitStrategyRequest request);
  // Fleet runs (see proto/blkperf.proto).
  absl::StatusOr<v1::ArmWorkloadResponse> ArmWorkload(
      v1::ArmWorkloadRequest request);
  absl::StatusOr<v1::GetClockResponse> GetClock(v1::GetClockRequest request);
  absl::StatusOr<v1::GoWorkloadResponse> GoWorkload(
      v1::GoWorkloadRequest request);
  absl::StatusOr<v1::AbortRunResponse> AbortRun(v1::AbortRunRequest request);

  // Calls `on_message` for every message of the stream until it ends (OK
  // after the terminal message) or `on_message` returns false (Cancelled).
  absl::Status WatchWorkload(
      v1::WatchWorkloadRequest request,
      const std::function<bool(const v1::WatchWorkloadResponse&)>& on_message);

 private:
  Connection(std::string server, std::shared_ptr<grpc::Channel> channel,
             absl::Duration call_timeout);

  // Sets the call deadline, if any, on `context`.
  void SetDeadline(grpc::ClientContext& context) const;

  // `what` prefixes errors: "StartWorkload: INVALID_ARGUMENT: ...".
  absl::Status Check(const grpc::Status& status, uint32_t api_version,
                     const char* what) const;

  std::string server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Blkperf::Stub> stub_;
  v1::GetCapabilitiesResponse caps_;
  absl::Duration call_timeout_;
};

}  // namespace blkperf

#endif  // BLKPERF_CLIENT_CONNECTION_H_
