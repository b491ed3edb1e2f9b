// The gRPC health check alone, in plaintext, for probes that cannot present
// a client certificate: the kubelet's own `grpc:` probe (no process forked
// on the benchmark CPUs, as an exec probe running a TLS client would).
// Serves grpc.health.v1.Health/Check and nothing else (no reflection, no
// blkperf.v1 call): it answers SERVING while the daemon serves, for the
// service "" or "blkperf.v1.Blkperf", and NOT_FOUND for any other name.
//
//   absl::StatusOr<std::unique_ptr<HealthServer>> h =
//       HealthServer::Start("[::]:7778");   // blkperfd serve --health_listen
//   (*h)->SetServing(true);
//   ...
//   (*h)->SetServing(false);                // draining
#ifndef BLKPERF_DAEMON_SERVICE_HEALTH_SERVER_H_
#define BLKPERF_DAEMON_SERVICE_HEALTH_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "proto/health.grpc.pb.h"

namespace blkperf {

class HealthServer {
 public:
  // Listens on `address` (host:port; port 0 picks a free one). Unavailable
  // naming the address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<HealthServer>> Start(
      const std::string& address);
  // Stops serving (answers in flight finish).
  ~HealthServer();

  void SetServing(bool serving) { service_.serving.store(serving); }
  int port() const { return port_; }

 private:
  class Service final : public grpc::health::v1::Health::Service {
   public:
    grpc::Status Check(grpc::ServerContext* context,
                       const grpc::health::v1::HealthCheckRequest* request,
                       grpc::health::v1::HealthCheckResponse* response) override;
    std::atomic<bool> serving{false};
  };

  HealthServer() = default;

  Service service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_HEALTH_SERVER_H_
