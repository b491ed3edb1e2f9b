#include "daemon/service/server.h"

#include <fcntl.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/common/log.h"
#include "daemon/common/status_macros.h"
#include "daemon/engine/host_capabilities.h"

namespace blkperf {
namespace {

// Extra time past shutdown_timeout for in-flight calls to be answered.
constexpr absl::Duration kCallGrace = absl::Seconds(2);

absl::Status WritePortFile(const std::string& path, int port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out.good()) {
      return absl::InternalError(
          absl::StrCat("--port_file ", tmp, ": cannot write"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat("--port_file ", path, ": rename"));
  }
  return absl::OkStatus();
}

// Host part of host:port ("[::1]:7777" -> "[::1]").
std::string HostOf(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  return colon == std::string::npos ? listen : listen.substr(0, colon);
}

// Self-pipe: the handler only writes the signal number.
int g_signal_pipe[2] = {-1, -1};

void OnSignal(int signal_number) {
  const char byte = static_cast<char>(signal_number);
  ssize_t ignored = write(g_signal_pipe[1], &byte, 1);
  (void)ignored;
}

// What /metrics exports: every workload the manager still knows.
std::vector<WorkloadMetricsView> MetricsViews(WorkloadManager& manager) {
  std::vector<WorkloadMetricsView> views;
  for (WorkloadView& w : manager.List(/*with_snapshots=*/true)) {
    views.push_back(MakeWorkloadMetricsView(std::move(w.id), w.spec,
                                            std::move(w.snapshot), w.end_time));
  }
  return views;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BlkperfServer>> BlkperfServer::Start(
    const ServeOptions& options, std::unique_ptr<WorkloadBackend> backend) {
  std::unique_ptr<BlkperfServer> server(new BlkperfServer());
  server->options_ = options;
  if (!options.data_dir.empty()) {
    // Before the allow rules are resolved: the lock creates the directory.
    BLKPERF_ASSIGN_OR_RETURN(server->data_dir_, DataDir::Open(options.data_dir));
  }
  server->manager_ = std::make_unique<WorkloadManager>(
      std::move(backend), options.limits,
      AccessPolicy::Create(options.allow_read, options.allow_write,
                           options.data_dir),
      options.data_dir, server->data_dir_.get());
  server->service_ = std::make_unique<BlkperfService>(server->manager_.get(),
                                                      ProbeHostCapabilities());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    server->server_.reset();
    return absl::UnavailableError(
        absl::StrCat("--listen ", options.listen,
                     ": cannot listen there (address in use or invalid)"));
  }
  server->address_ = absl::StrCat(HostOf(options.listen), ":", server->port_);
  if (!options.metrics_listen.empty()) {
    WorkloadManager* manager = server->manager_.get();
    absl::StatusOr<std::unique_ptr<MetricsServer>> metrics =
        StartMetricsServer(
            options.metrics_listen,
            [manager] { return MetricsViews(*manager); },
            {.finished_ttl = options.metrics_finished_ttl,
             .daemon_version = kDaemonVersion});
    if (!metrics.ok()) {
      server->Shutdown();
      return metrics.status();
    }
    server->metrics_ = *std::move(metrics);
  }
  if (!options.port_file.empty()) {
    absl::Status written = WritePortFile(options.port_file, server->port_);
    if (!written.ok()) {
      server->Shutdown();
      return written;
    }
  }
  return server;
}

BlkperfServer::~BlkperfServer() { Shutdown(); }

void BlkperfServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (server_ != nullptr) {
    if (grpc::HealthCheckServiceInterface* health =
            server_->GetHealthCheckService()) {
      health->SetServingStatus(false);
    }
  }
  // Workloads first: watch streams then send their last message and end.
  if (manager_ != nullptr) manager_->Shutdown(options_.shutdown_timeout);
  if (server_ != nullptr) {
    server_->Shutdown(
        std::chrono::system_clock::now() +
        std::chrono::milliseconds(absl::ToInt64Milliseconds(kCallGrace)));
    server_->Wait();
    server_.reset();
  }
  metrics_.reset();
  service_.reset();
  manager_.reset();
}

int RunServe(const ServeOptions& options) {
  if (pipe2(g_signal_pipe, O_CLOEXEC) != 0) {
    BLKPERF_LOG(ERROR) << "serve: cannot create the signal pipe: "
                       << strerror(errno);
    return 1;
  }
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  absl::StatusOr<std::unique_ptr<BlkperfServer>> server =
      BlkperfServer::Start(options, NewEngineBackend());
  if (!server.ok()) {
    BLKPERF_LOG(ERROR) << "serve: " << server.status().message();
    return 1;
  }
  BLKPERF_LOG(INFO) << "blkperfd " << kDaemonVersion << " (API version "
                    << kApiVersion << ") listening on " << (*server)->address()
                    << "; allow_write_paths: "
                    << absl::StrJoin(options.allow_write, ",")
                    << "; allow_read_paths: "
                    << absl::StrJoin(
                           (*server)->manager().policy().ReadRuleTexts(), ",")
                    << "; metrics: "
                    << ((*server)->metrics_address().empty()
                            ? "off"
                            : "http://" + (*server)->metrics_address() +
                                  "/metrics");
  char signal_number = 0;
  while (read(g_signal_pipe[0], &signal_number, 1) < 0 && errno == EINTR) {
  }
  BLKPERF_LOG(INFO) << "received "
                    << (signal_number == SIGINT ? "SIGINT" : "SIGTERM")
                    << ": stopping workloads and shutting down";
  const absl::Time begin = absl::Now();
  (*server)->Shutdown();
  server->reset();
  BLKPERF_LOG(INFO) << "shut down cleanly in "
                    << absl::FormatDuration(absl::Now() - begin);
  return 0;
}

}  // namespace blkperf
