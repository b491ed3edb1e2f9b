#include "daemon/service/health_server.h"

#include <grpcpp/ext/health_check_service_server_builder_option.h>
#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>

#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

// Drops the plugins every ServerBuilder of this process gets (server
// reflection registers itself as one): this listener serves health only.
class WithoutPlugins final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(
      std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins)
      override {
    plugins->clear();
  }
};

}  // namespace

grpc::Status HealthServer::Service::Check(
    grpc::ServerContext*, const grpc::health::v1::HealthCheckRequest* request,
    grpc::health::v1::HealthCheckResponse* response) {
  if (!request->service().empty() &&
      request->service() != "blkperf.v1.Blkperf") {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "unknown service (this listener knows \"\" and "
                        "blkperf.v1.Blkperf)");
  }
  response->set_status(
      serving.load() ? grpc::health::v1::HealthCheckResponse::SERVING
                     : grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  return grpc::Status::OK;
}

absl::StatusOr<std::unique_ptr<HealthServer>> HealthServer::Start(
    const std::string& address) {
  std::unique_ptr<HealthServer> h(new HealthServer());
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<WithoutPlugins>());
  // Not gRPC's default health service (the daemon's main server has it):
  // the one registered below answers here.
  builder.SetOption(
      std::make_unique<grpc::HealthCheckServiceServerBuilderOption>(nullptr));
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(),
                           &h->port_);
  builder.RegisterService(&h->service_);
  h->server_ = builder.BuildAndStart();
  if (h->server_ == nullptr || h->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "health_listen ", address,
        ": cannot listen there (in use, or not a host:port of this machine)"));
  }
  return h;
}

HealthServer::~HealthServer() {
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(1));
    server_->Wait();
  }
}

}  // namespace blkperf
