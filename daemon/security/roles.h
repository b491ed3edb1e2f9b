// Roles of blkperfd's callers and the roles file that grants them.
//
// Three roles, each including the one before:
//   viewer    read-only calls: capabilities, probe, list, get, watch,
//             health, clock, reflection;
//   operator  also starts workloads and stops or steers its own ones
//             (stop, split, arm, go, abort);
//   admin     also stops or steers other owners' workloads.
// Every RPC the daemon serves has its required role in one table here
// (RequiredRole); a method missing from it is refused for everyone.
//
// Roles file (--roles_file), one grant per line, `#` starts a comment:
//   # role      identity (the rest of the line), with its type
//   admin       dns:alice.storage.example.com
//   operator    uri:spiffe://example.com/fleet-orchestrator
//   operator    email:ops@example.com
//   viewer      cn:Grafana Reader
//   admin       local            # callers without TLS (loopback, unix socket)
// Types: a certificate's DNS, URI and email SANs and its CN
// (CertificateNames in authorizer.h). An untyped identity (files written
// before types) names a DNS SAN, a URI SAN when it holds "://", or the CN of
// a certificate without SANs; never an email SAN.
//
//   absl::StatusOr<RoleMap> roles = LoadRolesFile("/etc/blkperf/roles");
//   if (!roles.ok()) ...  // InvalidArgument naming the line and the reason
#ifndef BLKPERF_DAEMON_SECURITY_ROLES_H_
#define BLKPERF_DAEMON_SECURITY_ROLES_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

enum class Role { kViewer = 1, kOperator = 2, kAdmin = 3 };

// "viewer", "operator", "admin".
const char* RoleName(Role role);
// InvalidArgument naming `field` for anything else.
absl::StatusOr<Role> ParseRole(absl::string_view text, absl::string_view field);

// Identity -> role.
using RoleMap = absl::flat_hash_map<std::string, Role>;

// Longest identity a roles file may name, bytes.
inline constexpr size_t kMaxIdentityBytes = 256;
// Largest roles file read, bytes.
inline constexpr size_t kMaxRolesFileBytes = 1 << 20;

// Parses roles-file text. InvalidArgument "<source> line N: <reason>" for an
// unknown role, a missing or over-long identity, a type not in lower case
// or without a name ("DNS:x", "dns:"), or an identity granted twice.
absl::StatusOr<RoleMap> ParseRoles(absl::string_view text,
                                   absl::string_view source);

// Reads (at most kMaxRolesFileBytes) and parses `path`; the errors name
// --roles_file and the path.
absl::StatusOr<RoleMap> LoadRolesFile(const std::string& path);

// The role `full_method` ("/blkperf.v1.Blkperf/StartWorkload") needs;
// nullopt for a method the table does not know (refuse it).
std::optional<Role> RequiredRole(absl::string_view full_method);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SECURITY_ROLES_H_
