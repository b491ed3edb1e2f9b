// The client's connection to blkperfd: a channel and stub whose first act is
// the API version check. Every call returns absl::Status/StatusOr with the
// server's code and message, and checks the response's api_version. Unary
// calls carry a deadline (ChannelOptions::call_timeout); a watch stream
// lasts as long as its workload, and keepalive pings notice a dead daemon.
//
// CreateBlkperfChannel is the one place a channel to blkperfd is made (the
// client and the fleet orchestrator): TLS when a CA is given, with a client
// certificate for mutual TLS; plaintext otherwise (loopback, unix socket).
//
//   absl::StatusOr<std::unique_ptr<Connection>> c = Connection::Open(
//       {.server = "db7.example.com:7777", .tls_ca = "ca.pem",
//        .tls_cert = "me.pem", .tls_key = "me.key"}, absl::Seconds(5));
//   if (!c.ok()) return Fail(c.status());   // unreachable or wrong version
//   absl::StatusOr<v1::GetWorkloadResponse> w = (*c)->GetWorkload(request);
#ifndef BLKPERF_WIRE_CONNECTION_H_
#define BLKPERF_WIRE_CONNECTION_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/blkperf.grpc.pb.h"

namespace blkperf {

// The version this client speaks.
inline constexpr uint32_t kClientApiVersion = v1::API_VERSION_CURRENT;

struct ChannelOptions {
  // host:port or unix:/path.
  std::string server = "127.0.0.1:7777";
  // PEM CA certificate(s) the daemon's certificate must chain to; turns TLS
  // on. Empty: plaintext.
  std::string tls_ca;
  // PEM client certificate and key (both or neither), for mutual TLS.
  std::string tls_cert;
  std::string tls_key;
  // The name the daemon's certificate is checked against (and sent as SNI)
  // instead of the host in `server`: for addresses resolved from a name,
  // such as the pod IPs behind dns:///NAME:PORT, whose certificate carries
  // NAME only. Empty: the host in `server`.
  std::string tls_server_name;
  // Deadline of each unary call; WatchWorkload streams never get one.
  absl::Duration call_timeout = absl::Seconds(30);
  // HTTP/2 keepalive pings (a daemon that vanishes under a watch or a
  // fleet run is noticed within time + timeout); zero turns them off.
  absl::Duration keepalive_time = absl::Seconds(30);
  absl::Duration keepalive_timeout = absl::Seconds(10);
  // false: Open skips GetCapabilities (one call fewer per host for fleets);
  // every response's api_version is still checked, capabilities() is empty.
  bool fetch_capabilities = true;
};

// A channel per `options`. InvalidArgument naming the flag when only one of
// --tls_cert/--tls_key is given, a client certificate without --tls_ca, or
// a file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> CreateBlkperfChannel(
    const ChannelOptions& options);

// `deadline` from now, as gRPC wants it.
std::chrono::system_clock::time_point DeadlineIn(absl::Duration timeout);

// FailedPrecondition naming both versions when `server_version` differs.
absl::Status CheckServerApiVersion(uint32_t server_version,
                                   const std::string& server);

// Why a unix socket server ("unix:PATH", "unix://PATH") cannot be reached,
// from a connect() of this process: PermissionDenied when the socket (or a
// directory above it) refuses this user (EACCES/EPERM), NotFound when no
// socket is there; OkStatus when connect() succeeds, for a server that is
// not a unix socket, and for other errors (left to the generic message).
absl::Status UnixSocketReachability(const std::string& server);

// Ends many connections' calls at once (Ctrl-C while a fleet arms): Cancel()
// cancels every call made under it that is in flight, and every later one
// fails at once with CANCELLED, as does Connection::Open. Thread-safe.
class CallCanceller {
 public:
  void Cancel();
  bool cancelled() const;

  // A call in flight: registered for its lifetime (cancelled at once if
  // Cancel() came first). Null canceller: does nothing.
  class Scope {
   public:
    Scope(CallCanceller* canceller, grpc::ClientContext* context);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CallCanceller* canceller_;
    grpc::ClientContext* context_;
  };

 private:
  mutable absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::set<grpc::ClientContext*> calls_ ABSL_GUARDED_BY(mu_);
};

// What bounds one call beyond ChannelOptions::call_timeout: an instant it
// never runs past (a fleet step's deadline, shared by its retries) and a
// canceller that may end it early. The default bounds nothing more.
struct CallBudget {
  absl::Time deadline = absl::InfiniteFuture();
  CallCanceller* canceller = nullptr;
};

class Connection {
 public:
  // Connects (waiting up to `connect_timeout`) and checks the server's API
  // version with GetCapabilities. Unavailable when the daemon cannot be
  // reached (PermissionDenied/NotFound from UnixSocketReachability for a
  // unix socket); FailedPrecondition naming both versions on a mismatch.
  // `budget` caps the wait (DeadlineExceeded at its deadline, Cancelled
  // once its canceller is).
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const ChannelOptions& options, absl::Duration connect_timeout,
      const CallBudget& budget = {});

  // The capabilities fetched by Open.
  const v1::GetCapabilitiesResponse& capabilities() const { return caps_; }
  const std::string& server() const { return server_; }

  // Each unary call's deadline is call_timeout from now or budget.deadline,
  // whichever comes first (DeadlineExceeded at once when that has passed;
  // Cancelled when budget.canceller is).
  //
  // The daemon's capabilities now (Open fetches them once, unless told not
  // to; the fleet reads them after a run on the channel it already has).
  absl::StatusOr<v1::GetCapabilitiesResponse> GetCapabilities(
      v1::GetCapabilitiesRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::ProbeTargetResponse> ProbeTarget(
      v1::ProbeTargetRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::StartWorkloadResponse> StartWorkload(
      v1::StartWorkloadRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::StopWorkloadResponse> StopWorkload(
      v1::StopWorkloadRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::GetWorkloadResponse> GetWorkload(
      v1::GetWorkloadRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::ListWorkloadsResponse> ListWorkloads(
      v1::ListWorkloadsRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::SetSplitStrategyResponse> SetSplitStrategy(
      v1::SetSplitStrategyRequest request, const CallBudget& budget = {});
  // Fleet runs (see proto/blkperf.proto).
  absl::StatusOr<v1::ArmWorkloadResponse> ArmWorkload(
      v1::ArmWorkloadRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::GetClockResponse> GetClock(
      v1::GetClockRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::GoWorkloadResponse> GoWorkload(
      v1::GoWorkloadRequest request, const CallBudget& budget = {});
  absl::StatusOr<v1::AbortRunResponse> AbortRun(
      v1::AbortRunRequest request, const CallBudget& budget = {});

  // Calls `on_message` for every message of the stream until it ends (OK
  // after the terminal message) or `on_message` returns false (Cancelled).
  absl::Status WatchWorkload(
      v1::WatchWorkloadRequest request,
      const std::function<bool(const v1::WatchWorkloadResponse&)>& on_message);

 private:
  Connection(std::string server, std::shared_ptr<grpc::Channel> channel,
             absl::Duration call_timeout);

  // `what` prefixes errors: "StartWorkload: INVALID_ARGUMENT: ...".
  absl::Status Check(const grpc::Status& status, uint32_t api_version,
                     const char* what) const;

  std::string server_;
  std::shared_ptr<grpc::Channel> channel_;
  absl::Duration call_timeout_;
  std::unique_ptr<v1::Blkperf::Stub> stub_;
  v1::GetCapabilitiesResponse caps_;
};

}  // namespace blkperf

#endif  // BLKPERF_WIRE_CONNECTION_H_
