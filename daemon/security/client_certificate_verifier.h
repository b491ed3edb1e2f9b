// Mutual TLS's check of a client certificate, done by blkperfd itself during
// the handshake so that a refused one (another CA, expired, not yet valid,
// not for client use) is logged and audited.
//
// Why not gRPC's own check: Debian's gRPC 1.51 verifies the chain inside
// OpenSSL before any hook of ours runs (the auth metadata processor sees
// only connections that passed; a custom verifier is called only after the
// chain check succeeded), so a refused certificate left no trace but a
// gRPC log line without the peer. Here the TLS credentials ask for a client
// certificate without verifying it
// (GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_BUT_DONT_VERIFY) and this verifier
// makes the same check OpenSSL would have made: the chain to a certificate
// of --tls_client_ca (partial chains allowed, trusted first, as gRPC sets
// its store), purpose and trust "ssl_client", validity at the current time,
// and the default security level's key and signature strength. The TLS
// handshake itself still proves the client holds the certificate's key. A
// connection without a client certificate passes here and is refused per
// call by the Authorizer (UNAUTHENTICATED, audited), as before.
//
//   absl::StatusOr<std::unique_ptr<ClientChainChecker>> checker =
//       ClientChainChecker::Create(ca_pem);
//   absl::Status ok = (*checker)->Check(leaf_pem, chain_pem);
//
//   std::shared_ptr<grpc::experimental::CertificateVerifier> verifier =
//       NewClientCertificateVerifier(*std::move(checker), &authorizer);
//   options.set_cert_request_type(
//       GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_BUT_DONT_VERIFY);
//   options.set_certificate_verifier(verifier);
#ifndef BLKPERF_DAEMON_SECURITY_CLIENT_CERTIFICATE_VERIFIER_H_
#define BLKPERF_DAEMON_SECURITY_CLIENT_CERTIFICATE_VERIFIER_H_

#include <grpcpp/security/tls_certificate_verifier.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/security/authorizer.h"

// OpenSSL's store, kept opaque here.
typedef struct x509_store_st X509_STORE;

namespace blkperf {

class ClientChainChecker {
 public:
  // InvalidArgument naming --tls_client_ca when `ca_pem` holds no
  // certificate or one OpenSSL cannot read.
  static absl::StatusOr<std::unique_ptr<ClientChainChecker>> Create(
      absl::string_view ca_pem);
  ~ClientChainChecker();
  ClientChainChecker(const ClientChainChecker&) = delete;
  ClientChainChecker& operator=(const ClientChainChecker&) = delete;

  // OK when `leaf_pem` chains (through the certificates of `chain_pem`, the
  // rest of what the client sent; may be empty) to a certificate of the CA
  // file and is fit for TLS client use now. Unauthenticated otherwise, with
  // OpenSSL's reason ("certificate has expired", "unable to get local
  // issuer certificate", ...). Thread-safe.
  absl::Status Check(absl::string_view leaf_pem,
                     absl::string_view chain_pem) const;

 private:
  ClientChainChecker(X509_STORE* store, int security_level)
      : store_(store), security_level_(security_level) {}

  X509_STORE* const store_;
  const int security_level_;
};

// A verifier for TlsServerCredentialsOptions running `checker` on every
// client certificate presented; a refusal fails the handshake and goes to
// `authorizer`->RefusedHandshake (bounded). `authorizer` must outlive the
// server.
std::shared_ptr<grpc::experimental::CertificateVerifier>
NewClientCertificateVerifier(std::unique_ptr<ClientChainChecker> checker,
                             const Authorizer* authorizer);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SECURITY_CLIENT_CERTIFICATE_VERIFIER_H_
