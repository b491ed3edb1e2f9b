#include "daemon/service/listen_policy.h"

#include <arpa/inet.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "base/config_file.h"
#include "daemon/security/client_certificate_verifier.h"

namespace blkperf {
namespace {

// "[::1]:7777" -> "::1", "127.0.0.1:0" -> "127.0.0.1".
std::string HostPart(absl::string_view listen) {
  const size_t colon = listen.rfind(':');
  absl::string_view host =
      colon == absl::string_view::npos ? listen : listen.substr(0, colon);
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
}

}  // namespace

std::string UnixSocketPath(absl::string_view listen) {
  if (!absl::StartsWith(listen, "unix:")) return "";
  return std::string(listen.substr(5));
}

bool IsLocalListen(absl::string_view listen) {
  if (absl::StartsWith(listen, "unix:")) return true;
  const std::string host = HostPart(listen);
  if (host == "localhost") return true;
  in_addr v4 = {};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6 = {};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 &&
         IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string MetricsListenWarning(absl::string_view metrics_listen) {
  if (metrics_listen.empty() || IsLocalListen(metrics_listen)) return "";
  return absl::StrCat(
      "--metrics_listen=", metrics_listen,
      " is not loopback: /metrics has no TLS and no roles, so anyone who "
      "can reach it reads every workload's id, run id and target paths; "
      "keep it on 127.0.0.1 or [::1] (or a firewall) unless that is meant");
}

absl::Status CheckListenPolicy(const ListenOptions& o) {
  const int tls_files = !o.tls_cert.empty() + !o.tls_key.empty() +
                        !o.tls_client_ca.empty();
  if (tls_files != 0 && tls_files != 3) {
    return absl::InvalidArgumentError(
        "--tls_cert, --tls_key and --tls_client_ca go together: give all "
        "three (mutual TLS) or none");
  }
  if (o.tls() || IsLocalListen(o.listen) || o.insecure_listen) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--listen ", BoundedText(o.listen),
      " is neither loopback nor a unix socket, and TLS is off: anyone who "
      "can reach it could drive I/O as root. Give --tls_cert, --tls_key and "
      "--tls_client_ca (mutual TLS), or --insecure_listen to serve it "
      "without authentication anyway"));
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const ListenOptions& o, const Authorizer& authorizer) {
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (o.tls()) {
    absl::StatusOr<std::string> cert =
        ReadConfigFile(o.tls_cert, kMaxConfigFileBytes, "--tls_cert");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key =
        ReadConfigFile(o.tls_key, kMaxConfigFileBytes, "--tls_key");
    if (!key.ok()) return key.status();
    absl::StatusOr<std::string> ca =
        ReadConfigFile(o.tls_client_ca, kMaxConfigFileBytes, "--tls_client_ca");
    if (!ca.ok()) return ca.status();
    absl::StatusOr<std::unique_ptr<ClientChainChecker>> checker =
        ClientChainChecker::Create(*ca);
    if (!checker.ok()) return checker.status();
    // gRPC asks for a client certificate and leaves its check to the
    // verifier, which audits a refusal (client_certificate_verifier.h).
    grpc::experimental::TlsServerCredentialsOptions tls(
        std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
            *ca, std::vector<grpc::experimental::IdentityKeyCertPair>{
                     {.private_key = *key, .certificate_chain = *cert}}));
    tls.watch_root_certs();
    tls.watch_identity_key_cert_pairs();
    tls.set_cert_request_type(
        GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_BUT_DONT_VERIFY);
    tls.set_certificate_verifier(
        NewClientCertificateVerifier(*std::move(checker), &authorizer));
    creds = grpc::experimental::TlsServerCredentials(tls);
  } else if (IsLocalListen(o.listen)) {
    creds = grpc::experimental::LocalServerCredentials(
        UnixSocketPath(o.listen).empty() ? LOCAL_TCP : UDS);
  } else {
    return grpc::InsecureServerCredentials();
  }
  creds->SetAuthMetadataProcessor(authorizer.NewProcessor());
  return creds;
}

absl::Status CheckUnixSocketFree(const std::string& path) {
  const std::string what = absl::StrCat("--listen unix:", BoundedText(path));
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": longer than ", sizeof(addr.sun_path) - 1, " bytes"));
  }
  struct stat st = {};
  if (lstat(path.c_str(), &st) != 0) return absl::OkStatus();
  if (!S_ISSOCK(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": exists and is not a socket"));
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, what);
  const bool answered =
      connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  if (answered) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": another process is serving there (a second blkperfd?)"));
  }
  return absl::OkStatus();
}

}  // namespace blkperf
