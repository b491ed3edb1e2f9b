#include "daemon/security/client_certificate_verifier.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

struct ChainFree {
  void operator()(STACK_OF(X509) * chain) const {
    sk_X509_pop_free(chain, X509_free);
  }
};
using ChainPtr = std::unique_ptr<STACK_OF(X509), ChainFree>;

struct StoreCtxFree {
  void operator()(X509_STORE_CTX* ctx) const { X509_STORE_CTX_free(ctx); }
};
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, StoreCtxFree>;

BioPtr MemoryBio(absl::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every certificate of `pem`, in order. OpenSSL's error queue is left
// empty: it is per thread, and this runs on gRPC's handshake threads,
// whose own OpenSSL calls read it.
std::vector<X509Ptr> ReadCertificates(absl::string_view pem) {
  std::vector<X509Ptr> out;
  BioPtr bio = MemoryBio(pem);
  while (bio != nullptr) {
    X509* cert = PEM_read_bio_X509_AUX(bio.get(), nullptr, nullptr, nullptr);
    if (cert == nullptr) break;
    out.emplace_back(cert);
  }
  ERR_clear_error();
  return out;
}

// The security level OpenSSL's TLS would apply to the chain (Debian's
// default configuration: 2).
int DefaultSecurityLevel() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  const int level = ctx != nullptr ? SSL_CTX_get_security_level(ctx) : 1;
  SSL_CTX_free(ctx);
  ERR_clear_error();
  return level;
}

absl::string_view View(const grpc::string_ref& ref) {
  return absl::string_view(ref.data(), ref.size());
}

std::vector<std::string> Strings(const std::vector<grpc::string_ref>& refs) {
  std::vector<std::string> out;
  for (const grpc::string_ref& r : refs) out.emplace_back(r.data(), r.size());
  return out;
}

class Verifier final : public grpc::experimental::ExternalCertificateVerifier {
 public:
  Verifier(std::unique_ptr<ClientChainChecker> checker,
           const Authorizer* authorizer)
      : checker_(std::move(checker)), authorizer_(authorizer) {}

  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
              std::function<void(grpc::Status)> /*callback*/,
              grpc::Status* sync_status) override {
    const grpc::string_ref leaf = request->peer_cert();
    // No certificate: the Authorizer refuses each call (UNAUTHENTICATED).
    if (leaf.empty()) {
      *sync_status = grpc::Status::OK;
      return true;
    }
    const absl::Status checked =
        checker_->Check(View(leaf), View(request->peer_cert_full_chain()));
    if (checked.ok()) {
      *sync_status = grpc::Status::OK;
      return true;
    }
    CertificateSans sans;
    sans.dns = Strings(request->dns_names());
    sans.uri = Strings(request->uri_names());
    sans.email = Strings(request->email_names());
    if (!request->common_name().empty()) {
      sans.common_names.emplace_back(request->common_name().data(),
                                     request->common_name().size());
    }
    sans.any_san = !sans.dns.empty() || !sans.uri.empty() ||
                   !sans.email.empty() || !request->ip_names().empty();
    authorizer_->RefusedHandshake(sans, checked.message());
    *sync_status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                std::string(checked.message()));
    return true;
  }

  // Verify never defers, so there is nothing to cancel.
  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {}

 private:
  const std::unique_ptr<ClientChainChecker> checker_;
  const Authorizer* const authorizer_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ClientChainChecker>> ClientChainChecker::Create(
    absl::string_view ca_pem) {
  std::vector<X509Ptr> cas = ReadCertificates(ca_pem);
  if (cas.empty()) {
    return absl::InvalidArgumentError(
        "--tls_client_ca holds no PEM certificate OpenSSL can read");
  }
  X509_STORE* store = X509_STORE_new();
  if (store == nullptr) return absl::ResourceExhaustedError("X509_STORE_new");
  for (const X509Ptr& ca : cas) {
    if (X509_STORE_add_cert(store, ca.get()) != 1) {
      // A duplicate is harmless; anything else is not.
      const unsigned long error = ERR_peek_last_error();
      if (ERR_GET_REASON(error) != X509_R_CERT_ALREADY_IN_HASH_TABLE) {
        ERR_clear_error();
        X509_STORE_free(store);
        return absl::InvalidArgumentError(
            "--tls_client_ca: OpenSSL refused one of its certificates");
      }
    }
  }
  ERR_clear_error();
  // As gRPC sets up its own store: a certificate of the CA file is trusted
  // even when it is an intermediate, and the file's certificates are tried
  // before ones the client sent.
  X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN |
                                  X509_V_FLAG_TRUSTED_FIRST);
  return std::unique_ptr<ClientChainChecker>(
      new ClientChainChecker(store, DefaultSecurityLevel()));
}

ClientChainChecker::~ClientChainChecker() { X509_STORE_free(store_); }

absl::Status ClientChainChecker::Check(absl::string_view leaf_pem,
                                       absl::string_view chain_pem) const {
  std::vector<X509Ptr> leaf = ReadCertificates(leaf_pem);
  if (leaf.empty()) {
    return absl::UnauthenticatedError(
        "the client certificate is not a PEM certificate OpenSSL can read");
  }
  ChainPtr untrusted(sk_X509_new_null());
  if (untrusted == nullptr) return absl::ResourceExhaustedError("sk_X509_new");
  for (X509Ptr& cert : ReadCertificates(chain_pem)) {
    if (sk_X509_push(untrusted.get(), cert.get()) > 0) cert.release();
  }
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (ctx == nullptr ||
      X509_STORE_CTX_init(ctx.get(), store_, leaf.front().get(),
                          untrusted.get()) != 1) {
    ERR_clear_error();
    return absl::ResourceExhaustedError("X509_STORE_CTX_init");
  }
  // What OpenSSL's TLS server applies to a client's chain
  // (ssl_verify_cert_chain): purpose and trust "ssl_client", the security
  // level's minimum key and signature strength.
  X509_STORE_CTX_set_default(ctx.get(), "ssl_client");
  X509_VERIFY_PARAM_set_auth_level(X509_STORE_CTX_get0_param(ctx.get()),
                                   security_level_);
  const int verified = X509_verify_cert(ctx.get());
  const int error = X509_STORE_CTX_get_error(ctx.get());
  const int depth = X509_STORE_CTX_get_error_depth(ctx.get());
  ERR_clear_error();
  if (verified == 1) return absl::OkStatus();
  return absl::UnauthenticatedError(absl::StrCat(
      error == X509_V_OK ? "the chain could not be verified"
                         : X509_verify_cert_error_string(error),
      " (certificate ",
      depth, " of the chain, 0 = the client's own)"));
}

std::shared_ptr<grpc::experimental::CertificateVerifier>
NewClientCertificateVerifier(std::unique_ptr<ClientChainChecker> checker,
                             const Authorizer* authorizer) {
  return grpc::experimental::ExternalCertificateVerifier::Create<Verifier>(
      std::move(checker), authorizer);
}

}  // namespace blkperf
