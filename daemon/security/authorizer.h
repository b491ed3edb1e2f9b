// Who is calling and may they: the caller's identity and role from the
// connection, checked against the role each method needs (roles.h).
//
// Identity by transport:
//   TLS (--tls_cert ...)   the verified client certificate's first name that
//                          the roles file names, else its first SAN, else
//                          its CN; no certificate: UNAUTHENTICATED; a name
//                          the roles file lacks: PERMISSION_DENIED naming it.
//   loopback / unix socket "local" (gRPC local credentials prove the peer is
//                          on this host), role: the roles file's grant for
//                          "local", else --local_role.
//   --insecure_listen      "insecure", role: the roles file's grant for
//                          "insecure", else --local_role.
//
// Enforcement cannot be skipped by a new method: NewProcessor() is installed
// on the TLS and local server credentials and refuses a call before any
// handler runs (a method without a role in roles.cc is refused for
// everyone). Handlers call AuthorizeCall too: it returns the Caller for
// owner checks and the audit log, and it is the only check on an
// --insecure_listen port, where gRPC runs no processor.
//
//   Authorizer authz(roles, Role::kAdmin, audit_log);
//   creds->SetAuthMetadataProcessor(authz.NewProcessor());
//   absl::StatusOr<Caller> caller =
//       authz.AuthorizeCall(*context, "/blkperf.v1.Blkperf/StopWorkload");
#ifndef BLKPERF_DAEMON_SECURITY_AUTHORIZER_H_
#define BLKPERF_DAEMON_SECURITY_AUTHORIZER_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/auth_context.h>
#include <grpcpp/security/auth_metadata_processor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/security/audit_log.h"
#include "daemon/security/roles.h"

namespace blkperf {

// Identity given to callers without TLS on loopback or a unix socket.
inline constexpr char kLocalIdentity[] = "local";
// Identity given to callers on an --insecure_listen port.
inline constexpr char kInsecureIdentity[] = "insecure";

// The names a client certificate carries, by type: from the verified
// peer's AuthContext (CertificateSansOf) or, during the handshake, from the
// certificate itself (client_certificate_verifier.h).
struct CertificateSans {
  std::vector<std::string> dns;
  std::vector<std::string> uri;
  std::vector<std::string> email;
  std::vector<std::string> common_names;
  // Whether the certificate has a SAN of any type (IP addresses too).
  bool any_san = false;
};
CertificateSans CertificateSansOf(const grpc::AuthContext& auth);

// The names a verified client certificate may be granted a role under, in
// the order tried: each DNS SAN as "dns:NAME" then untyped "NAME"; each URI
// SAN as "uri:URI" (untyped too when it holds "://"); each email SAN as
// "email:ADDR" only; the CN as "cn:CN" (untyped too only when the
// certificate has no SAN). So an email or URI SAN never matches a DNS name,
// and no certificate is ever "local" or "insecure". The first name the
// roles file grants is the caller's identity.
std::vector<std::string> CertificateNames(const CertificateSans& sans);
std::vector<std::string> CertificateNames(const grpc::AuthContext& auth);
// Refusals logged (and audited) per second at most.
inline constexpr int kMaxRefusalsLoggedPerSecond = 100;
// The audit log's role for a caller the roles file grants nothing.
inline constexpr char kNoRole[] = "none";

struct Caller {
  std::string identity;
  Role role = Role::kViewer;
};

// The caller a certificate with `sans` is under `roles`: the first of its
// CertificateNames that `roles` grants. Unauthenticated when it has no
// name at all; PermissionDenied naming its first name (escaped, bounded)
// when `roles` grants none of them.
absl::StatusOr<Caller> IdentifyCertificate(const CertificateSans& sans,
                                           const RoleMap& roles);

// PermissionDenied unless `caller` owns the workload (`owner`) or is an
// admin. `what` names the call ("stop", "split", ...).
absl::Status CheckOwner(const Caller& caller, absl::string_view owner,
                        absl::string_view workload_id, absl::string_view what);

class Authorizer {
 public:
  // `audit` (may be null) receives every refusal; it must outlive this.
  Authorizer(RoleMap roles, Role default_local_role, AuditLog* audit);

  // The caller behind `auth`, whatever the method. Unauthenticated without
  // a client certificate on TLS; PermissionDenied for an unknown identity.
  absl::StatusOr<Caller> Identify(const grpc::AuthContext& auth) const;

  // Identify, then PermissionDenied unless the caller's role covers
  // RequiredRole(full_method). Does not audit.
  absl::StatusOr<Caller> Authorize(const grpc::AuthContext& auth,
                                   absl::string_view full_method) const;

  // Authorize for a call in a handler; a refusal is logged and audited with
  // the peer address.
  absl::StatusOr<Caller> AuthorizeCall(const grpc::ServerContextBase& context,
                                       absl::string_view full_method) const;

  // Logs and audits a refusal (`auth` may be null). The record names the
  // caller's identity and role when the roles file grants one (a refused
  // method), else the certificate's first name and role kNoRole. Bounded:
  // at most kMaxRefusalsLoggedPerSecond a second; the next line logged
  // after a burst says how many were left out.
  void Refused(absl::string_view peer, const grpc::AuthContext* auth,
               absl::string_view full_method, const absl::Status& status) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Logs and audits a refused TLS handshake (a client certificate from
  // another CA, expired, not yet valid): method "tls-handshake", the
  // certificate's first name (or "") and role kNoRole; within the same
  // bound as Refused. gRPC gives a verifier no peer address.
  void RefusedHandshake(const CertificateSans& sans,
                        absl::string_view reason) const
      ABSL_LOCKS_EXCLUDED(mu_);

  // The bound behind Refused, for refusals logged elsewhere (handlers that
  // audit their own outcome): nullopt when this second's
  // kMaxRefusalsLoggedPerSecond are used up, else a note to append ("" or
  // how many earlier refusals were left out).
  std::optional<std::string> AdmitRefusalLog() const ABSL_LOCKS_EXCLUDED(mu_);

  // For grpc::ServerCredentials::SetAuthMetadataProcessor; keeps a pointer
  // to this Authorizer, which must outlive the server.
  std::shared_ptr<grpc::AuthMetadataProcessor> NewProcessor() const;

  AuditLog* audit() const { return audit_; }

 private:
  Role LocalRole(absl::string_view identity) const;

  const RoleMap roles_;
  const Role default_local_role_;
  AuditLog* const audit_;

  mutable absl::Mutex mu_;
  mutable absl::Time window_start_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  mutable int logged_in_window_ ABSL_GUARDED_BY(mu_) = 0;
  mutable uint64_t not_logged_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SECURITY_AUTHORIZER_H_
