#include "daemon/security/authorizer.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "base/log.h"

namespace blkperf {
namespace {

std::vector<std::string> Values(const grpc::AuthContext& auth,
                                const char* name) {
  std::vector<std::string> out;
  for (const grpc::string_ref& v : auth.FindPropertyValues(name)) {
    out.emplace_back(v.data(), v.size());
  }
  return out;
}

std::string TransportOf(const grpc::AuthContext& auth) {
  std::vector<std::string> type =
      Values(auth, GRPC_TRANSPORT_SECURITY_TYPE_PROPERTY_NAME);
  return type.empty() ? "insecure" : type.front();
}

// "/blkperf.v1.Blkperf/StopWorkload" -> "StopWorkload".
absl::string_view ShortName(absl::string_view full_method) {
  const size_t slash = full_method.rfind('/');
  return slash == absl::string_view::npos ? full_method
                                          : full_method.substr(slash + 1);
}

// Whether `name` starts with an identity type of the roles file ("dns:",
// "uri:", "email:", "cn:", in any case).
bool LooksTyped(absl::string_view name) {
  for (absl::string_view type : {"dns:", "uri:", "email:", "cn:"}) {
    if (absl::StartsWithIgnoreCase(name, type)) return true;
  }
  return false;
}

class Processor final : public grpc::AuthMetadataProcessor {
 public:
  explicit Processor(const Authorizer* authorizer) : authorizer_(authorizer) {}

  bool IsBlocking() const override { return false; }

  grpc::Status Process(const InputMetadata& metadata,
                       grpc::AuthContext* context, OutputMetadata* consumed,
                       OutputMetadata* response) override {
    absl::string_view method;
    if (auto it = metadata.find(":path"); it != metadata.end()) {
      method = absl::string_view(it->second.data(), it->second.size());
    }
    absl::StatusOr<Caller> caller = authorizer_->Authorize(*context, method);
    if (caller.ok()) return grpc::Status::OK;
    // gRPC gives the processor no peer address (grpc/grpc#28807).
    authorizer_->Refused("", context, method, caller.status());
    return grpc::Status(static_cast<grpc::StatusCode>(caller.status().code()),
                        std::string(caller.status().message()));
  }

 private:
  const Authorizer* const authorizer_;
};

}  // namespace

CertificateSans CertificateSansOf(const grpc::AuthContext& auth) {
  CertificateSans sans;
  sans.dns = Values(auth, GRPC_PEER_DNS_PROPERTY_NAME);
  sans.uri = Values(auth, GRPC_PEER_URI_PROPERTY_NAME);
  sans.email = Values(auth, GRPC_PEER_EMAIL_PROPERTY_NAME);
  sans.common_names = Values(auth, GRPC_X509_CN_PROPERTY_NAME);
  sans.any_san = !Values(auth, GRPC_X509_SAN_PROPERTY_NAME).empty();
  return sans;
}

std::vector<std::string> CertificateNames(const CertificateSans& sans) {
  std::vector<std::string> out;
  // Untyped names (roles files written before types) are DNS names, or URIs
  // when they say "://"; never the non-TLS identities, and never a text
  // that spells a typed identity itself (a CN "dns:admin.example" is not
  // the DNS name admin.example).
  auto untyped = [](const std::string& name) {
    return name != kLocalIdentity && name != kInsecureIdentity &&
           !LooksTyped(name);
  };
  for (const std::string& d : sans.dns) {
    out.push_back(absl::StrCat("dns:", d));
    if (untyped(d)) out.push_back(d);
  }
  for (const std::string& u : sans.uri) {
    out.push_back(absl::StrCat("uri:", u));
    if (absl::StrContains(u, "://") && untyped(u)) out.push_back(u);
  }
  for (const std::string& e : sans.email) {
    out.push_back(absl::StrCat("email:", e));
  }
  // The CN: typed always; untyped only when the certificate has no SAN (as
  // before types).
  for (const std::string& cn : sans.common_names) {
    out.push_back(absl::StrCat("cn:", cn));
    if (!sans.any_san && untyped(cn)) out.push_back(cn);
  }
  return out;
}

std::vector<std::string> CertificateNames(const grpc::AuthContext& auth) {
  return CertificateNames(CertificateSansOf(auth));
}

absl::StatusOr<Caller> IdentifyCertificate(const CertificateSans& sans,
                                           const RoleMap& roles) {
  const std::vector<std::string> names = CertificateNames(sans);
  if (names.empty()) {
    return absl::UnauthenticatedError(
        "no client certificate: this daemon requires TLS client "
        "certificates (blkperf --tls_cert/--tls_key)");
  }
  for (const std::string& name : names) {
    if (auto it = roles.find(name); it != roles.end()) {
      return Caller{name, it->second};
    }
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "identity ", BoundedText(names.front()),
      " (client certificate SAN, else CN, with its type) has no role in "
      "--roles_file"));
}

absl::Status CheckOwner(const Caller& caller, absl::string_view owner,
                        absl::string_view workload_id,
                        absl::string_view what) {
  if (caller.role == Role::kAdmin || caller.identity == owner) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "workload_id ", BoundedText(workload_id), ": ",
      BoundedText(caller.identity), " (", RoleName(caller.role),
      ") may not ", what, " it: it belongs to ", BoundedText(owner),
      " (only its owner or an admin may)"));
}

Authorizer::Authorizer(RoleMap roles, Role default_local_role,
                       AuditLog* audit)
    : roles_(std::move(roles)),
      default_local_role_(default_local_role),
      audit_(audit) {}

Role Authorizer::LocalRole(absl::string_view identity) const {
  auto it = roles_.find(identity);
  return it != roles_.end() ? it->second : default_local_role_;
}

absl::StatusOr<Caller> Authorizer::Identify(
    const grpc::AuthContext& auth) const {
  const std::string transport = TransportOf(auth);
  if (transport == "local") {
    return Caller{kLocalIdentity, LocalRole(kLocalIdentity)};
  }
  // "ssl" from SslServerCredentials, "tls" from the TLS credentials
  // (listen_policy.h) whose verifier audits refused handshakes.
  if (transport != GRPC_SSL_TRANSPORT_SECURITY_TYPE &&
      transport != GRPC_TLS_TRANSPORT_SECURITY_TYPE) {
    return Caller{kInsecureIdentity, LocalRole(kInsecureIdentity)};
  }
  return IdentifyCertificate(CertificateSansOf(auth), roles_);
}

absl::StatusOr<Caller> Authorizer::Authorize(
    const grpc::AuthContext& auth, absl::string_view full_method) const {
  absl::StatusOr<Caller> caller = Identify(auth);
  if (!caller.ok()) return caller.status();
  const std::optional<Role> needed = RequiredRole(full_method);
  if (!needed.has_value()) {
    return absl::PermissionDeniedError(
        absl::StrCat("method ", BoundedText(full_method),
                     " has no required role; refused for everyone"));
  }
  if (caller->role < *needed) {
    return absl::PermissionDeniedError(absl::StrCat(
        ShortName(full_method), " needs role ", RoleName(*needed), "; ",
        BoundedText(caller->identity), " has role ", RoleName(caller->role)));
  }
  return caller;
}

absl::StatusOr<Caller> Authorizer::AuthorizeCall(
    const grpc::ServerContextBase& context,
    absl::string_view full_method) const {
  const std::shared_ptr<const grpc::AuthContext> auth =
      context.auth_context();
  absl::StatusOr<Caller> caller = Authorize(*auth, full_method);
  if (!caller.ok()) {
    Refused(context.peer(), auth.get(), full_method, caller.status());
  }
  return caller;
}

std::optional<std::string> Authorizer::AdmitRefusalLog() const {
  uint64_t left_out = 0;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    if (now - window_start_ >= absl::Seconds(1)) {
      window_start_ = now;
      logged_in_window_ = 0;
    }
    if (logged_in_window_ >= kMaxRefusalsLoggedPerSecond) {
      ++not_logged_;
      return std::nullopt;
    }
    ++logged_in_window_;
    left_out = not_logged_;
    not_logged_ = 0;
  }
  if (left_out == 0) return std::string();
  return absl::StrCat(" (", left_out, " earlier refusals not logged: over ",
                      kMaxRefusalsLoggedPerSecond, "/s)");
}

void Authorizer::Refused(absl::string_view peer,
                         const grpc::AuthContext* auth,
                         absl::string_view full_method,
                         const absl::Status& status) const {
  const std::optional<std::string> admitted = AdmitRefusalLog();
  if (!admitted.has_value()) return;
  const std::string& note = *admitted;
  // The caller as identified, with its role, when the roles file grants it
  // one (the method was refused); else the certificate's first name.
  std::string identity;
  std::string role = kNoRole;
  if (auth != nullptr) {
    if (absl::StatusOr<Caller> caller = Identify(*auth); caller.ok()) {
      identity = caller->identity;
      role = RoleName(caller->role);
    } else if (std::vector<std::string> names = CertificateNames(*auth);
               !names.empty()) {
      identity = names.front();
    }
  }
  BLKPERF_LOG(WARNING) << "refused " << BoundedText(full_method) << " from "
                       << BoundedText(peer.empty() ? "?" : peer) << " "
                       << BoundedText(identity) << " (role " << role
                       << "): " << status.message() << note;
  if (audit_ == nullptr) return;
  audit_->Write({.peer = std::string(peer),
                 .identity = identity,
                 .role = role,
                 .method = std::string(ShortName(full_method)),
                 .outcome = status.ToString() + note});
}

void Authorizer::RefusedHandshake(const CertificateSans& sans,
                                  absl::string_view reason) const {
  const std::optional<std::string> admitted = AdmitRefusalLog();
  if (!admitted.has_value()) return;
  const std::vector<std::string> names = CertificateNames(sans);
  const std::string identity = names.empty() ? "" : names.front();
  const std::string outcome = absl::StrCat(
      "UNAUTHENTICATED: client certificate refused: ", OneLine(reason),
      *admitted);
  BLKPERF_LOG(WARNING) << "refused a TLS handshake from "
                       << BoundedText(identity.empty() ? "?" : identity)
                       << ": " << outcome;
  if (audit_ == nullptr) return;
  audit_->Write({.identity = identity,
                 .role = kNoRole,
                 .method = "tls-handshake",
                 .outcome = outcome});
}

std::shared_ptr<grpc::AuthMetadataProcessor> Authorizer::NewProcessor() const {
  return std::make_shared<Processor>(this);
}

}  // namespace blkperf
