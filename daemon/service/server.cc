#include "daemon/service/server.h"

#include <fcntl.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
#include "base/bounded_text.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "daemon/engine/host/host_capabilities.h"
#include "daemon/service/accept_loop.h"
#include "daemon/service/listen_policy.h"
#include "daemon/service/malformed_request.h"

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
    views.back().run_id = std::move(w.run_id);
  }
  return views;
}

ListenOptions ListenOptionsOf(const ServeOptions& o) {
  return {.listen = o.listen,
          .tls_cert = o.tls_cert,
          .tls_key = o.tls_key,
          .tls_client_ca = o.tls_client_ca,
          .insecure_listen = o.insecure_listen,
          .unix_socket_mode = o.unix_socket_mode};
}

}  // namespace

void RaiseFileLimit() {
  rlimit limit = {};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (before == limit.rlim_max) {
    BLKPERF_LOG(INFO) << "RLIMIT_NOFILE: " << before
                      << " (already the hard limit)";
  } else if (setrlimit(RLIMIT_NOFILE, &limit) == 0) {
    BLKPERF_LOG(INFO) << "RLIMIT_NOFILE raised from " << before
                      << " to the hard limit " << limit.rlim_max;
  } else {
    BLKPERF_LOG(WARNING) << "RLIMIT_NOFILE stays " << before
                         << ": cannot raise it: " << strerror(errno);
  }
}

absl::StatusOr<std::unique_ptr<BlkperfServer>> BlkperfServer::Start(
    const ServeOptions& options, std::unique_ptr<WorkloadBackend> backend) {
  std::unique_ptr<BlkperfServer> server(new BlkperfServer());
  server->options_ = options;
  absl::Status listening = server->Listen(std::move(backend));
  if (!listening.ok()) {
    server->Shutdown();
    return listening;
  }
  return server;
}

absl::Status BlkperfServer::SetUpSecurity(bool tls) {
  RoleMap roles;
  if (!options_.roles_file.empty()) {
    BLKPERF_ASSIGN_OR_RETURN(roles, LoadRolesFile(options_.roles_file));
  } else if (tls) {
    return absl::InvalidArgumentError(
        "--roles_file is required with TLS: it grants client certificate "
        "identities their roles (viewer, operator, admin)");
  }
  if (!options_.audit_log.empty()) {
    BLKPERF_ASSIGN_OR_RETURN(audit_, AuditLog::Open(options_.audit_log));
  }
  authorizer_ = std::make_unique<Authorizer>(
      std::move(roles), options_.local_role, audit_.get());
  return absl::OkStatus();
}

absl::Status BlkperfServer::Bind(const ListenOptions& listen) {
  BLKPERF_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> creds,
                           ServerCredentialsFor(listen, *authorizer_));
  const std::string unix_path = UnixSocketPath(listen.listen);
  if (!unix_path.empty()) {
    BLKPERF_RETURN_IF_ERROR(CheckUnixSocketFree(unix_path));
  }
  BLKPERF_ASSIGN_OR_RETURN(
      accept_loop_, AcceptLoop::Bind(listen.listen, listen.unix_socket_mode));
  port_ = accept_loop_->port();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
      builder.experimental().AddExternalConnectionAcceptor(
          grpc::ServerBuilder::experimental_type::ExternalConnectionType::
              FROM_FD,
          creds);
  builder.experimental().SetInterceptorCreators(MalformedRequestInterceptors());
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    return absl::InternalError("the gRPC server did not start");
  }
  accept_loop_->Start(std::move(acceptor));
  if (!unix_path.empty()) {
    address_ = listen.listen;
    return absl::OkStatus();
  }
  address_ = absl::StrCat(HostOf(listen.listen), ":", port_);
  if (!accept_loop_->companion().empty()) {
    BLKPERF_LOG(INFO) << "also listening on " << accept_loop_->companion()
                      << ": clients naming localhost may connect there, so "
                         "no other process may answer them";
  }
  if (!listen.tls() && !IsLocalListen(listen.listen)) {
    BLKPERF_LOG(WARNING) << "--insecure_listen: serving " << address_
                         << " without TLS: every caller is unauthenticated "
                            "and gets role "
                         << RoleName(options_.local_role)
                         << " (unless --roles_file names \"insecure\")";
  }
  return absl::OkStatus();
}

absl::Status BlkperfServer::Listen(std::unique_ptr<WorkloadBackend> backend) {
  const ServeOptions& options = options_;
  const ListenOptions listen = ListenOptionsOf(options);
  BLKPERF_RETURN_IF_ERROR(CheckListenPolicy(listen));
  BLKPERF_RETURN_IF_ERROR(SetUpSecurity(listen.tls()));
  if (!options.data_dir.empty()) {
    // Before the allow rules are resolved: the lock creates the directory.
    BLKPERF_ASSIGN_OR_RETURN(data_dir_, DataDir::Open(options.data_dir));
  }
  manager_ = std::make_unique<WorkloadManager>(
      std::move(backend), options.limits,
      AccessPolicy::Create(options.allow_read, options.allow_write,
                           options.data_dir),
      options.data_dir, data_dir_.get());
  if (AuditLog* audit = audit_.get()) {
    manager_->SetEndListener([audit](absl::string_view id,
                                     absl::string_view owner,
                                     WorkloadState state) {
      audit->Write({.identity = std::string(owner),
                    .method = "workload-end",
                    .outcome = std::string(WorkloadStateName(state)),
                    .workload_id = std::string(id)});
    });
  }
  service_ = std::make_unique<BlkperfService>(
      manager_.get(), ProbeHostCapabilities(), authorizer_.get(),
      ExposureFacts{.tls = listen.tls(),
                    .insecure_listen =
                        !listen.tls() && !IsLocalListen(options.listen)});
  BLKPERF_RETURN_IF_ERROR(Bind(listen));
  if (!options.metrics_listen.empty()) {
    const std::string warning = MetricsListenWarning(options.metrics_listen);
    if (!warning.empty()) BLKPERF_LOG(WARNING) << warning;
    WorkloadManager* manager = manager_.get();
    absl::StatusOr<std::unique_ptr<MetricsServer>> metrics =
        StartMetricsServer(
            options.metrics_listen,
            [manager] { return MetricsViews(*manager); },
            {.finished_ttl = options.metrics_finished_ttl,
             .daemon_version = kDaemonVersion});
    if (!metrics.ok()) return metrics.status();
    metrics_ = *std::move(metrics);
  }
  if (!options.health_listen.empty()) {
    BLKPERF_ASSIGN_OR_RETURN(health_,
                             HealthServer::Start(options.health_listen));
    health_->SetServing(true);
  }
  if (!options.port_file.empty()) {
    BLKPERF_RETURN_IF_ERROR(WritePortFile(options.port_file, port_));
  }
  return absl::OkStatus();
}

BlkperfServer::~BlkperfServer() { Shutdown(); }

void BlkperfServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (health_ != nullptr) health_->SetServing(false);
  if (server_ != nullptr) {
    if (grpc::HealthCheckServiceInterface* health =
            server_->GetHealthCheckService()) {
      health->SetServingStatus(false);
    }
  }
  // Workloads first: watch streams then send their last message and end.
  if (manager_ != nullptr) {
    abandoned_ = manager_->Shutdown(options_.shutdown_timeout);
  }
  accept_loop_.reset();
  if (server_ != nullptr) {
    server_->Shutdown(
        std::chrono::system_clock::now() +
        std::chrono::milliseconds(absl::ToInt64Milliseconds(kCallGrace)));
    server_->Wait();
    server_.reset();
  }
  metrics_.reset();
  health_.reset();
  service_.reset();
  manager_.reset();
}

int RunServe(const ServeOptions& options) {
  // Nothing the daemon creates (data dir, state files, sockets, created
  // targets) is wider than its owner because of an inherited umask; the
  // places that need more say so explicitly (--unix_socket_mode).
  umask(077);
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

  RaiseFileLimit();
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
  const size_t abandoned = (*server)->abandoned();
  server->reset();
  if (abandoned == 0) {
    BLKPERF_LOG(INFO) << "shut down cleanly in "
                      << absl::FormatDuration(absl::Now() - begin);
  } else {
    BLKPERF_LOG(WARNING) << "shut down in "
                         << absl::FormatDuration(absl::Now() - begin) << ", "
                         << abandoned
                         << " workload(s) abandoned with I/O still held by "
                            "their device (see above)";
  }
  return 0;
}

}  // namespace blkperf
