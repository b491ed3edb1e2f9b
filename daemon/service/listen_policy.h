// Where and how blkperfd's control plane listens: the rule that only
// loopback and unix sockets may serve without TLS, the server credentials
// for each case, and the unix socket's file.
//
//   Serving without TLS on anything but loopback or a unix socket is
//   refused unless --insecure_listen is given.
//   TLS (--tls_cert, --tls_key, --tls_client_ca): mutual TLS; the client's
//   certificate is verified against --tls_client_ca when presented, and a
//   call without one is refused (UNAUTHENTICATED) by the Authorizer.
//   Loopback / unix socket without TLS: gRPC local credentials, which check
//   that the peer really is on this host and let the Authorizer run.
//   --insecure_listen elsewhere: plaintext, no processor (handlers check).
//
//   absl::Status ok = CheckListenPolicy(options);
//   absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds =
//       ServerCredentialsFor(options, authorizer);
#ifndef BLKPERF_DAEMON_SERVICE_LISTEN_POLICY_H_
#define BLKPERF_DAEMON_SERVICE_LISTEN_POLICY_H_

#include <grpcpp/security/server_credentials.h>
#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/security/authorizer.h"

namespace blkperf {

struct ListenOptions {
  // host:port, or unix:/path.
  std::string listen;
  // PEM files; all three or none.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  bool insecure_listen = false;
  // Permission bits of a unix socket's file.
  mode_t unix_socket_mode = 0660;

  bool tls() const { return !tls_cert.empty(); }
};

// "unix:/run/blkperf/blkperfd.sock" -> "/run/blkperf/blkperfd.sock"; "" for
// a host:port.
std::string UnixSocketPath(absl::string_view listen);

// Whether `listen` is a unix socket or a loopback host (127.0.0.0/8,
// localhost, [::1]).
bool IsLocalListen(absl::string_view listen);

// The warning serving /metrics on `metrics_listen` deserves: "" for a
// loopback host, else a line saying who can then read it (no TLS, no roles:
// workload ids, run ids and target paths to anyone who can reach it).
std::string MetricsListenWarning(absl::string_view metrics_listen);

// InvalidArgument naming the flags: some but not all TLS files given;
// a non-local listen without TLS and without --insecure_listen.
absl::Status CheckListenPolicy(const ListenOptions& options);

// Credentials per the rules above, with `authorizer`'s processor installed
// where gRPC supports one (TLS and local). Errors name the TLS flag whose
// file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const ListenOptions& options, const Authorizer& authorizer);

// Before binding a unix socket: FailedPrecondition when a daemon already
// answers on `path`; a stale socket file is left for gRPC to replace;
// InvalidArgument when `path` exists and is not a socket.
absl::Status CheckUnixSocketFree(const std::string& path);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_LISTEN_POLICY_H_
