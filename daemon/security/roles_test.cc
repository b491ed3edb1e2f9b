#include "daemon/security/roles.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/blkperf.grpc.pb.h"
#include "proto/health.grpc.pb.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

void ExpectEveryMethodHasARole(const google::protobuf::ServiceDescriptor* s) {
  ASSERT_NE(s, nullptr);
  ASSERT_GT(s->method_count(), 0);
  for (int i = 0; i < s->method_count(); ++i) {
    const std::string method =
        "/" + s->full_name() + "/" + s->method(i)->name();
    EXPECT_TRUE(RequiredRole(method).has_value())
        << method << " has no required role in roles.cc's table";
  }
}

TEST(RequiredRoleTest, EveryServedMethodHasARole) {
  ExpectEveryMethodHasARole(
      v1::GetCapabilitiesRequest::descriptor()->file()->FindServiceByName(
          "Blkperf"));
  ExpectEveryMethodHasARole(
      grpc::health::v1::HealthCheckRequest::descriptor()
          ->file()
          ->FindServiceByName("Health"));
}

TEST(RequiredRoleTest, ReadOnlyCallsNeedViewerAndChangesNeedOperator) {
  EXPECT_EQ(RequiredRole("/blkperf.v1.Blkperf/WatchWorkload"), Role::kViewer);
  EXPECT_EQ(RequiredRole("/blkperf.v1.Blkperf/GetClock"), Role::kViewer);
  EXPECT_EQ(RequiredRole("/blkperf.v1.Blkperf/StartWorkload"),
            Role::kOperator);
  EXPECT_EQ(RequiredRole("/blkperf.v1.Blkperf/AbortRun"), Role::kOperator);
  EXPECT_FALSE(RequiredRole("/blkperf.v1.Blkperf/Nope").has_value());
  EXPECT_FALSE(RequiredRole("").has_value());
}

TEST(ParseRolesTest, ReadsGrantsCommentsAndIdentitiesWithSpaces) {
  absl::StatusOr<RoleMap> roles = ParseRoles(
      "# comment\n"
      "admin alice.example.com\n"
      "\n"
      "operator   spiffe://example.com/fleet  # orchestrator\n"
      "viewer\tGrafana Reader\n",
      "roles");
  ASSERT_TRUE(roles.ok()) << roles.status();
  ASSERT_EQ(roles->size(), 3u);
  EXPECT_EQ(roles->at("alice.example.com"), Role::kAdmin);
  EXPECT_EQ(roles->at("spiffe://example.com/fleet"), Role::kOperator);
  EXPECT_EQ(roles->at("Grafana Reader"), Role::kViewer);
}

TEST(ParseRolesTest, ErrorsNameTheLineAndTheReason) {
  absl::StatusOr<RoleMap> bad = ParseRoles("admin a\nroot b\n", "f");
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("f line 2: role \"root\" is not a role"));

  bad = ParseRoles("viewer\n", "f");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("f line 1: identity missing"));

  bad = ParseRoles("viewer a\n\nadmin a\n", "f");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("f line 3: identity \"a\" already granted on line 1"));

  bad = ParseRoles("viewer " + std::string(300, 'x') + "\n", "f");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("f line 1: identity longer than 256 bytes"));
}

TEST(LoadRolesFileTest, NamesTheFlagForAMissingFile) {
  absl::StatusOr<RoleMap> roles = LoadRolesFile("/nonexistent/roles");
  EXPECT_EQ(roles.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(roles.status().message()),
              HasSubstr("--roles_file \"/nonexistent/roles\""));
}

TEST(RolesFileTest, TypedIdentitiesAndTheirMistakes) {
  absl::StatusOr<RoleMap> roles = ParseRoles(
      "admin dns:a.example\noperator email:o@example\nviewer cn:Some One\n"
      "viewer uri:spiffe://x/y\n", "roles");
  ASSERT_TRUE(roles.ok()) << roles.status();
  EXPECT_EQ(roles->at("email:o@example"), Role::kOperator);
  EXPECT_EQ(roles->at("cn:Some One"), Role::kViewer);
  const absl::Status upper = ParseRoles("admin DNS:a.example\n", "roles").status();
  EXPECT_EQ(upper.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(upper.message(), HasSubstr("line 1"));
  EXPECT_THAT(upper.message(), HasSubstr("\"dns:\" (lower case)"));
  EXPECT_THAT(ParseRoles("admin email:\n", "roles").status().message(),
              HasSubstr("a name must follow"));
}

}  // namespace
}  // namespace blkperf
