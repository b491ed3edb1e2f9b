#include "daemon/security/client_certificate_verifier.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr long kDay = 24 * 3600;

// A key and its certificate, made here with OpenSSL's API so that validity
// periods in the past or future need no clock tricks.
struct Cert {
  std::shared_ptr<EVP_PKEY> key;
  std::shared_ptr<X509> cert;
  std::string Pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert.get());
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<size_t>(size));
    BIO_free(bio);
    return pem;
  }
};

struct CertOptions {
  std::string cn;
  bool ca = false;
  std::string san;  // "DNS:op.test", "" for none
  std::string eku;  // "serverAuth", "" for none
  long not_before = -kDay;  // seconds from now
  long not_after = kDay;
};

void AddExtension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& v) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, v.c_str());
  ASSERT_NE(ext, nullptr) << v;
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// Signed by `issuer`, or self-signed when it is null.
Cert Make(const CertOptions& o, const Cert* issuer = nullptr) {
  static long serial = 1;
  Cert c;
  c.key.reset(EVP_EC_gen("P-256"), EVP_PKEY_free);
  c.cert.reset(X509_new(), X509_free);
  X509* x = c.cert.get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
  X509_gmtime_adj(X509_getm_notBefore(x), o.not_before);
  X509_gmtime_adj(X509_getm_notAfter(x), o.not_after);
  X509_set_pubkey(x, c.key.get());
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>(o.cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(
      x, issuer != nullptr ? X509_get_subject_name(issuer->cert.get()) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer->cert.get() : x, x, nullptr,
                 nullptr, 0);
  if (o.ca) {
    AddExtension(x, &ctx, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
  }
  if (!o.san.empty()) AddExtension(x, &ctx, NID_subject_alt_name, o.san);
  if (!o.eku.empty()) AddExtension(x, &ctx, NID_ext_key_usage, o.eku);
  X509_sign(x, issuer != nullptr ? issuer->key.get() : c.key.get(),
            EVP_sha256());
  return c;
}

class ClientChainCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = Make({.cn = "blkperf test CA", .ca = true});
    absl::StatusOr<std::unique_ptr<ClientChainChecker>> checker =
        ClientChainChecker::Create(ca_.Pem());
    ASSERT_TRUE(checker.ok()) << checker.status();
    checker_ = *std::move(checker);
  }

  absl::Status Check(const Cert& leaf, const std::string& chain = "") {
    return checker_->Check(leaf.Pem(), chain);
  }

  Cert ca_;
  std::unique_ptr<ClientChainChecker> checker_;
};

TEST_F(ClientChainCheckerTest, AcceptsACertificateOfTheCa) {
  EXPECT_TRUE(Check(Make({.cn = "op1", .san = "DNS:op1.test"}, &ca_)).ok());
  // clientAuth allowed explicitly.
  EXPECT_TRUE(Check(Make({.cn = "op2", .eku = "clientAuth"}, &ca_)).ok());
}

TEST_F(ClientChainCheckerTest, RefusesAnotherCa) {
  const Cert rogue_ca = Make({.cn = "rogue CA", .ca = true});
  const absl::Status status =
      Check(Make({.cn = "op1", .san = "DNS:op1.test"}, &rogue_ca));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("unable to get local issuer certificate"));
  // Sending the rogue CA along does not help: it is not trusted.
  EXPECT_FALSE(Check(Make({.cn = "op1"}, &rogue_ca), rogue_ca.Pem()).ok());
  // Nor does a CA of the same name with another key.
  const Cert twin = Make({.cn = "blkperf test CA", .ca = true});
  EXPECT_FALSE(Check(Make({.cn = "op1"}, &twin)).ok());
}

TEST_F(ClientChainCheckerTest, RefusesExpiredAndNotYetValid) {
  absl::Status status = Check(Make(
      {.cn = "old", .not_before = -10 * kDay, .not_after = -kDay}, &ca_));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("certificate has expired"));
  status = Check(
      Make({.cn = "new", .not_before = kDay, .not_after = 10 * kDay}, &ca_));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("certificate is not yet valid"));
}

TEST_F(ClientChainCheckerTest, RefusesACertificateNotForClients) {
  const absl::Status status =
      Check(Make({.cn = "web", .eku = "serverAuth"}, &ca_));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("unsuitable certificate purpose"));
}

TEST_F(ClientChainCheckerTest, ALeafCannotSignAnother) {
  const Cert leaf = Make({.cn = "op1"}, &ca_);
  EXPECT_FALSE(Check(Make({.cn = "admin"}, &leaf), leaf.Pem()).ok());
}

TEST_F(ClientChainCheckerTest, IntermediatesComeFromTheClient) {
  const Cert intermediate = Make({.cn = "issuing CA", .ca = true}, &ca_);
  const Cert leaf = Make({.cn = "op1"}, &intermediate);
  EXPECT_TRUE(Check(leaf, intermediate.Pem()).ok());
  EXPECT_THAT(std::string(Check(leaf).message()),
              HasSubstr("unable to get local issuer certificate"));
}

TEST_F(ClientChainCheckerTest, RefusesWhatIsNotACertificate) {
  EXPECT_EQ(checker_->Check("garbage", "").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(ClientChainChecker::Create("no PEM here").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blkperf
