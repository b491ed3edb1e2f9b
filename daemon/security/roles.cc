#include "daemon/security/roles.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/bounded_text.h"
#include "base/config_file.h"

namespace blkperf {
namespace {

struct MethodRole {
  const char* method;
  Role role;
};

// Every method blkperfd serves. A new RPC must be added here or nobody may
// call it (roles_test checks the .proto's service against this table).
constexpr MethodRole kMethodRoles[] = {
    {"/blkperf.v1.Blkperf/GetCapabilities", Role::kViewer},
    {"/blkperf.v1.Blkperf/ProbeTarget", Role::kViewer},
    {"/blkperf.v1.Blkperf/ListWorkloads", Role::kViewer},
    {"/blkperf.v1.Blkperf/GetWorkload", Role::kViewer},
    {"/blkperf.v1.Blkperf/WatchWorkload", Role::kViewer},
    {"/blkperf.v1.Blkperf/GetClock", Role::kViewer},
    {"/blkperf.v1.Blkperf/StartWorkload", Role::kOperator},
    {"/blkperf.v1.Blkperf/StopWorkload", Role::kOperator},
    {"/blkperf.v1.Blkperf/SetSplitStrategy", Role::kOperator},
    {"/blkperf.v1.Blkperf/ArmWorkload", Role::kOperator},
    {"/blkperf.v1.Blkperf/GoWorkload", Role::kOperator},
    {"/blkperf.v1.Blkperf/AbortRun", Role::kOperator},
    {"/grpc.health.v1.Health/Check", Role::kViewer},
    {"/grpc.health.v1.Health/Watch", Role::kViewer},
    {"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
     Role::kViewer},
};

absl::Status LineError(absl::string_view source, int line,
                       absl::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, " line ", line, ": ", reason));
}

}  // namespace

const char* RoleName(Role role) {
  switch (role) {
    case Role::kViewer:
      return "viewer";
    case Role::kOperator:
      return "operator";
    case Role::kAdmin:
      return "admin";
  }
  return "unknown";
}

absl::StatusOr<Role> ParseRole(absl::string_view text,
                               absl::string_view field) {
  for (Role role : {Role::kViewer, Role::kOperator, Role::kAdmin}) {
    if (text == RoleName(role)) return role;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(field, " ", BoundedText(text),
                   " is not a role (viewer, operator or admin)"));
}

namespace {

// A typed identity ("dns:", "uri:", "email:", "cn:") needs a name after its
// type, and a type spelled in another case would silently match nothing.
absl::Status CheckIdentityType(absl::string_view identity) {
  const size_t colon = identity.find(':');
  if (colon == absl::string_view::npos) return absl::OkStatus();
  const absl::string_view type = identity.substr(0, colon);
  for (const char* known : {"dns", "uri", "email", "cn"}) {
    if (!absl::EqualsIgnoreCase(type, known)) continue;
    if (type != known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "identity ", BoundedText(identity), ": write the type as \"", known,
          ":\" (lower case)"));
    }
    if (colon + 1 == identity.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "identity ", BoundedText(identity), ": a name must follow \"",
          known, ":\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RoleMap> ParseRoles(absl::string_view text,
                                   absl::string_view source) {
  RoleMap roles;
  absl::flat_hash_map<std::string, int> first_line;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = line.substr(0, line.find('#'));
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    const size_t space = line.find_first_of(" \t");
    const absl::string_view role_text = line.substr(0, space);
    absl::StatusOr<Role> role = ParseRole(role_text, "role");
    if (!role.ok()) return LineError(source, number, role.status().message());
    const absl::string_view identity =
        space == absl::string_view::npos
            ? absl::string_view()
            : absl::StripAsciiWhitespace(line.substr(space));
    if (identity.empty()) {
      return LineError(source, number,
                       "identity missing (expected: <role> <identity>)");
    }
    if (identity.size() > kMaxIdentityBytes) {
      return LineError(source, number,
                       absl::StrCat("identity longer than ", kMaxIdentityBytes,
                                    " bytes: ", BoundedText(identity)));
    }
    if (absl::Status typed = CheckIdentityType(identity); !typed.ok()) {
      return LineError(source, number, typed.message());
    }
    auto [it, inserted] = first_line.emplace(std::string(identity), number);
    if (!inserted) {
      return LineError(source, number,
                       absl::StrCat("identity ", BoundedText(identity),
                                    " already granted on line ", it->second));
    }
    roles.emplace(std::string(identity), *role);
  }
  return roles;
}

absl::StatusOr<RoleMap> LoadRolesFile(const std::string& path) {
  absl::StatusOr<std::string> text =
      ReadConfigFile(path, kMaxRolesFileBytes, "--roles_file");
  if (!text.ok()) return text.status();
  return ParseRoles(*text, absl::StrCat("--roles_file ", BoundedText(path)));
}

std::optional<Role> RequiredRole(absl::string_view full_method) {
  for (const MethodRole& m : kMethodRoles) {
    if (full_method == m.method) return m.role;
  }
  return std::nullopt;
}

}  // namespace blkperf
