// Fuzzes how a client certificate's names become an identity and a role
// (CertificateNames, IdentifyCertificate) with arbitrary SANs and CNs. An
// input is a sequence of entries [type byte][length byte][bytes] (length
// 0xff: the rest of the input, for names of any size); the type (mod 5)
// picks a DNS, URI, email or IP SAN or a CN. The roles map is fixed:
// grants to an untyped DNS name, typed dns:, email:, uri: and cn: names,
// and to the non-TLS identities "local" and "insecure".
//
// Checks the typing contract of authorizer.h: a granted identity is one of
// the certificate's names and comes from a name of its own type (an email
// or URI SAN never matches a DNS grant; an untyped grant is a DNS SAN, a
// URI SAN holding "://", or the CN of a SAN-less certificate); no
// certificate is ever "local" or "insecure"; no name is Unauthenticated;
// a refusal is one bounded line.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "daemon/security/authorizer.h"
#include "daemon/security/roles.h"

namespace blkperf {
namespace {

void Fail(const char* what) {
  std::fprintf(stderr, "certificate_names_fuzzer: %s\n", what);
  std::abort();
}

const RoleMap& Roles() {
  static const RoleMap* roles = new RoleMap{
      {"admin.example", Role::kAdmin},
      {"dns:op.example", Role::kOperator},
      {"email:ops@example", Role::kOperator},
      {"uri:spiffe://example/fleet", Role::kOperator},
      {"spiffe://example/untyped", Role::kViewer},
      {"cn:Reader", Role::kViewer},
      {"local", Role::kAdmin},
      {"insecure", Role::kAdmin},
  };
  return *roles;
}

bool Has(const std::vector<std::string>& v, absl::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Whether `identity` may come from `sans` by the typing rules.
bool FromItsType(const CertificateSans& sans, absl::string_view identity) {
  if (absl::ConsumePrefix(&identity, "dns:")) return Has(sans.dns, identity);
  if (absl::ConsumePrefix(&identity, "uri:")) return Has(sans.uri, identity);
  if (absl::ConsumePrefix(&identity, "email:")) {
    return Has(sans.email, identity);
  }
  if (absl::ConsumePrefix(&identity, "cn:")) {
    return Has(sans.common_names, identity);
  }
  return Has(sans.dns, identity) ||
         (absl::StrContains(identity, "://") && Has(sans.uri, identity)) ||
         (!sans.any_san && Has(sans.common_names, identity));
}

CertificateSans Decode(const uint8_t* data, size_t size) {
  CertificateSans sans;
  size_t i = 0;
  while (i + 2 <= size) {
    const uint8_t type = data[i] % 5;
    const size_t rest = size - i - 2;
    const size_t length =
        data[i + 1] == 0xff ? rest : std::min<size_t>(data[i + 1], rest);
    const std::string text(reinterpret_cast<const char*>(data + i + 2), length);
    i += 2 + length;
    switch (type) {
      case 0: sans.dns.push_back(text); sans.any_san = true; break;
      case 1: sans.uri.push_back(text); sans.any_san = true; break;
      case 2: sans.email.push_back(text); sans.any_san = true; break;
      case 3: sans.any_san = true; break;  // an IP SAN: no name of its own
      default: sans.common_names.push_back(text); break;
    }
  }
  return sans;
}

void CheckOne(const CertificateSans& sans) {
  const std::vector<std::string> names = CertificateNames(sans);
  for (const std::string& name : names) {
    if (!FromItsType(sans, name)) Fail("a name not of its own type");
    if (name == "local" || name == "insecure") Fail("a non-TLS identity");
  }
  absl::StatusOr<Caller> caller = IdentifyCertificate(sans, Roles());
  if (caller.ok()) {
    if (!Has(names, caller->identity)) Fail("identity not among the names");
    if (Roles().at(caller->identity) != caller->role) Fail("wrong role");
    return;
  }
  const bool nameless = sans.dns.empty() && sans.uri.empty() &&
                        sans.email.empty() && sans.common_names.empty();
  if (caller.status().code() ==
      (nameless ? absl::StatusCode::kUnauthenticated
                : absl::StatusCode::kPermissionDenied)) {
    const absl::string_view message = caller.status().message();
    if (message.size() > 1024) Fail("refusal not bounded");
    for (char c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        Fail("control character in a refusal");
      }
    }
    return;
  }
  Fail("unexpected status code");
}

}  // namespace
}  // namespace blkperf

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  blkperf::CheckOne(blkperf::Decode(data, size));
  return 0;
}
