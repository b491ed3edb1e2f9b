#include "daemon/security/authorizer.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return absl::StrSplit(s.str(), '\n', absl::SkipEmpty());
}

TEST(CheckOwnerTest, OwnerAndAdminMayOthersMayNot) {
  EXPECT_TRUE(CheckOwner({"a", Role::kOperator}, "a", "w1", "stop").ok());
  EXPECT_TRUE(CheckOwner({"root", Role::kAdmin}, "a", "w1", "stop").ok());
  const absl::Status other =
      CheckOwner({"b", Role::kOperator}, "a", "w1", "stop");
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(other.message()),
              HasSubstr("\"b\" (operator) may not stop it: it belongs to "
                        "\"a\""));
}

// A flood of refusals is logged at a bounded rate, and the next line says
// how many were left out.
TEST(AuthorizerTest, RefusalsAreLoggedAtABoundedRate) {
  const char* tmp = getenv("TEST_TMPDIR");
  const std::string path =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/refusals.log";
  unlink(path.c_str());
  absl::StatusOr<std::unique_ptr<AuditLog>> audit = AuditLog::Open(path);
  ASSERT_TRUE(audit.ok()) << audit.status();
  Authorizer authorizer({}, Role::kViewer, audit->get());
  const absl::Status refusal = absl::PermissionDeniedError("no");
  for (int i = 0; i < kMaxRefusalsLoggedPerSecond + 50; ++i) {
    authorizer.Refused("ipv4:10.0.0.1:5", nullptr,
                       "/blkperf.v1.Blkperf/StartWorkload", refusal);
  }
  std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kMaxRefusalsLoggedPerSecond));
  EXPECT_THAT(lines[0], HasSubstr("\"method\":\"StartWorkload\""));
  EXPECT_THAT(lines[0], HasSubstr("\"outcome\":\"PERMISSION_DENIED: no\""));
  absl::SleepFor(absl::Seconds(1.1));
  authorizer.Refused("ipv4:10.0.0.1:5", nullptr,
                     "/blkperf.v1.Blkperf/StartWorkload", refusal);
  lines = Lines(path);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kMaxRefusalsLoggedPerSecond + 1));
  EXPECT_THAT(lines.back(), HasSubstr("(50 earlier refusals not logged"));
}

// A name's text never stands in for another type: a CN, URI or DNS SAN
// that spells "dns:admin.example" is not the DNS name admin.example.
TEST(IdentifyCertificateTest, NamesMatchOnlyGrantsOfTheirType) {
  const RoleMap roles = {{"dns:admin.example", Role::kAdmin},
                         {"uri:spiffe://example/ops", Role::kOperator},
                         {"legacy.example", Role::kViewer}};
  auto identify = [&](CertificateSans sans) {
    return IdentifyCertificate(sans, roles);
  };
  absl::StatusOr<Caller> caller =
      identify({.common_names = {"dns:admin.example"}});
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(caller.status().message()),
              HasSubstr("\"cn:dns:admin.example\""));
  EXPECT_FALSE(identify({.dns = {"dns:admin.example"}, .any_san = true}).ok());
  EXPECT_FALSE(identify({.uri = {"uri:spiffe://example/ops"}, .any_san = true})
                   .ok());
  EXPECT_FALSE(identify({.email = {"admin.example"}, .any_san = true}).ok());
  EXPECT_FALSE(identify({.uri = {"admin.example"}, .any_san = true}).ok());

  caller = identify({.dns = {"admin.example"}, .any_san = true});
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->identity, "dns:admin.example");
  EXPECT_EQ(caller->role, Role::kAdmin);
  caller = identify({.uri = {"spiffe://example/ops"}, .any_san = true});
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->role, Role::kOperator);
  // Untyped grants: a DNS SAN, or the CN of a certificate without SANs.
  EXPECT_TRUE(identify({.dns = {"legacy.example"}, .any_san = true}).ok());
  EXPECT_TRUE(identify({.common_names = {"legacy.example"}}).ok());
  EXPECT_FALSE(identify({.common_names = {"legacy.example"}, .any_san = true})
                   .ok());
  EXPECT_EQ(identify({}).status().code(), absl::StatusCode::kUnauthenticated);
}

// Refusal records name a role: "none" when nothing is granted, and a
// refused handshake is audited under the same bound as refused calls.
TEST(AuthorizerTest, RefusalsAndHandshakesNameARole) {
  const char* tmp = getenv("TEST_TMPDIR");
  const std::string path =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/handshakes.log";
  unlink(path.c_str());
  absl::StatusOr<std::unique_ptr<AuditLog>> audit = AuditLog::Open(path);
  ASSERT_TRUE(audit.ok()) << audit.status();
  Authorizer authorizer({}, Role::kViewer, audit->get());
  authorizer.Refused("ipv4:10.0.0.1:5", nullptr,
                     "/blkperf.v1.Blkperf/StartWorkload",
                     absl::PermissionDeniedError("no"));
  for (int i = 0; i < kMaxRefusalsLoggedPerSecond + 10; ++i) {
    authorizer.RefusedHandshake(
        {.dns = {"op1.example\n"}, .any_san = true},
        "certificate has expired");
  }
  std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kMaxRefusalsLoggedPerSecond));
  EXPECT_THAT(lines[0], HasSubstr("\"role\":\"none\""));
  EXPECT_THAT(lines[1],
              HasSubstr("\"identity\":\"dns:op1.example\\n\",\"role\":"
                        "\"none\",\"method\":\"tls-handshake\""));
  EXPECT_THAT(lines[1], HasSubstr("\"outcome\":\"UNAUTHENTICATED: client "
                                  "certificate refused: certificate has "
                                  "expired\""));
}

}  // namespace
}  // namespace blkperf
