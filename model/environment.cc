#include "model/environment.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace blkperf {

std::string SanitizeFact(absl::string_view raw) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(raw);
  if (trimmed.empty()) return kUnknownFact;
  std::string out;
  const bool cut = trimmed.size() > kMaxFactBytes;
  const absl::string_view kept =
      cut ? trimmed.substr(0, kMaxFactBytes - 3) : trimmed;
  out.reserve(kept.size() + 3);
  for (char c : kept) {
    const unsigned char u = static_cast<unsigned char>(c);
    out.push_back(u >= 0x20 && u < 0x7f ? c : '?');
  }
  if (cut) out += "...";
  return out;
}

std::string EnvironmentSummary(const Environment& env) {
  std::string models;
  for (const TargetEnvironment& t : env.targets) {
    if (!models.empty()) models += ",";
    models += t.model;
  }
  return absl::StrCat(env.hostname, " ", env.kernel_release, " ",
                      models.empty() ? std::string(kUnknownFact) : models);
}

}  // namespace blkperf
