// `blkperfd serve`: the gRPC server around the WorkloadManager, with the
// standard health service and server reflection, and the signal handling
// that drains it.
//
//   ServeOptions options;                  // or ServeOptionsFromFlags()
//   options.listen = "127.0.0.1:0";        // ephemeral port
//   return RunServe(options);              // until SIGTERM/SIGINT; 0 = clean
//
// In-process (tests):
//   absl::StatusOr<std::unique_ptr<BlkperfServer>> server =
//       BlkperfServer::Start(options, NewEngineBackend());
//   ... connect to (*server)->address() ...
//   (*server)->Shutdown();
#ifndef BLKPERF_DAEMON_SERVICE_SERVER_H_
#define BLKPERF_DAEMON_SERVICE_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/security/audit_log.h"
#include "daemon/security/authorizer.h"
#include "daemon/security/roles.h"
#include "daemon/service/accept_loop.h"
#include "daemon/service/blkperf_service.h"
#include "daemon/service/listen_policy.h"
#include "daemon/service/workload_backend.h"
#include "daemon/service/data_dir.h"
#include "daemon/service/health_server.h"
#include "daemon/service/workload_manager.h"

namespace blkperf {

struct ServeOptions {
  // host:port to listen on (port 0 picks a free one), or unix:/path.
  std::string listen = "127.0.0.1:7777";
  // Mutual TLS (see listen_policy.h): PEM files, all three or none.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  // Serve without TLS on an address other than loopback or a unix socket.
  bool insecure_listen = false;
  // Permission bits of a unix socket's file.
  mode_t unix_socket_mode = 0660;
  // Identity -> role grants (roles.h); required with TLS.
  std::string roles_file;
  // Role of callers without TLS ("local", "insecure") that the roles file
  // does not name.
  Role local_role = Role::kAdmin;
  // JSON-lines audit log (audit_log.h); empty: none.
  std::string audit_log;
  // When set, the bound port is written there (decimal, newline) once the
  // server accepts calls.
  std::string port_file;
  // AccessPolicy rules; see access_policy.h.
  std::vector<std::string> allow_write;
  std::vector<std::string> allow_read;
  // Readable by default; holds the default target (a spec without
  // targets), the lock that keeps a second daemon out, and the workload-id
  // counter (see data_dir.h). "" (in-process tests): none of these; ids
  // then start at w1. `blkperfd serve` always sets one (--data_dir).
  std::string data_dir;
  ManagerLimits limits;
  // How long a shutdown waits for workloads to drain and calls to finish.
  absl::Duration shutdown_timeout = absl::Seconds(5);
  // host:port of the Prometheus /metrics endpoint (port 0 picks a free
  // one); empty: no endpoint. The flag defaults to 127.0.0.1:9477; the
  // struct to off, so in-process tests never fight over a fixed port.
  std::string metrics_listen;
  // How long a finished workload's series stay in /metrics.
  absl::Duration metrics_finished_ttl = absl::Minutes(5);
  // host:port of the plaintext health-only listener (health_server.h), for
  // the kubelet's grpc probe; empty: none.
  std::string health_listen;
};

class BlkperfServer {
 public:
  // Builds the manager and the service, binds and starts serving.
  // InvalidArgument naming the flag for a listen the policy refuses (see
  // listen_policy.h), an unreadable roles file, TLS file or audit log;
  // Unavailable when the address cannot be bound (in use, e.g. by a second
  // daemon: SO_REUSEPORT is off).
  static absl::StatusOr<std::unique_ptr<BlkperfServer>> Start(
      const ServeOptions& options, std::unique_ptr<WorkloadBackend> backend);

  // Shuts down if Shutdown was not called.
  ~BlkperfServer();

  // "127.0.0.1:43121": the address with the bound port.
  const std::string& address() const { return address_; }
  int port() const { return port_; }
  // The health-only listener's port, or 0 without one.
  int health_port() const {
    return health_ != nullptr ? health_->port() : 0;
  }
  // "127.0.0.1:9477", or "" when metrics are off.
  std::string metrics_address() const {
    return metrics_ != nullptr ? metrics_->address() : "";
  }
  WorkloadManager& manager() { return *manager_; }

  // Health NOT_SERVING, stop every workload and wait for them to drain,
  // answer pending calls (watch streams get their last message), stop.
  // Bounded by options.shutdown_timeout (plus a little for the calls).
  void Shutdown();
  // Workloads Shutdown() abandoned undrained (WorkloadManager::Shutdown).
  size_t abandoned() const { return abandoned_; }

 private:
  BlkperfServer() = default;

  // The rest of Start, once the members exist: the policy check, then
  // SetUpSecurity, the manager and service, Bind, metrics, the port file.
  absl::Status Listen(std::unique_ptr<WorkloadBackend> backend);
  // Roles file, audit log and the authorizer.
  absl::Status SetUpSecurity(bool tls);
  // Credentials, our own listening socket (accept_loop.h), then the gRPC
  // server fed by it.
  absl::Status Bind(const ListenOptions& listen);

  ServeOptions options_;
  std::string address_;
  int port_ = 0;
  // Used by the service, the manager's end listener and gRPC's processor:
  // declared first so they outlive them.
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<Authorizer> authorizer_;
  // Locked for the server's life; outlives manager_, which numbers
  // workloads through it.
  std::unique_ptr<DataDir> data_dir_;
  std::unique_ptr<WorkloadManager> manager_;
  std::unique_ptr<BlkperfService> service_;
  std::unique_ptr<grpc::Server> server_;
  // Hands connections to server_: stopped before it shuts down.
  std::unique_ptr<AcceptLoop> accept_loop_;
  // Calls manager_ from its HTTP threads: reset before manager_.
  std::unique_ptr<MetricsServer> metrics_;
  // SERVING from the end of Listen until Shutdown begins.
  std::unique_ptr<HealthServer> health_;
  bool shut_down_ = false;
  size_t abandoned_ = 0;
};

// Raises RLIMIT_NOFILE's soft limit to its hard limit (each watcher and
// connection holds descriptors); logs the result.
void RaiseFileLimit();

// Serves until SIGTERM or SIGINT, then shuts down cleanly. Returns the
// process exit code: 0 after a clean shutdown, 1 when the server could not
// start (the reason is logged).
int RunServe(const ServeOptions& options);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_SERVER_H_
