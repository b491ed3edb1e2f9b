#include "daemon/service/access_policy.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace blkperf {
namespace {

// Collapses "//", "/./" and "/x/../" without touching the file system.
std::string Normalize(absl::string_view path) {
  std::vector<absl::string_view> parts;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  return absl::StrCat("/", absl::StrJoin(parts, "/"));
}

bool RealPath(const std::string& path, std::string* out) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer) == nullptr) return false;
  *out = buffer;
  return true;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

AccessPolicy::Rule MakeRule(const std::string& text) {
  AccessPolicy::Rule rule;
  rule.text = text;
  if (absl::EndsWith(text, "*")) {
    rule.kind = AccessPolicy::Rule::Kind::kPrefix;
    rule.pattern = text.substr(0, text.size() - 1);
    return rule;
  }
  std::string resolved;
  if (!RealPath(text, &resolved)) resolved = Normalize(text);
  if (absl::EndsWith(text, "/") || IsDirectory(resolved)) {
    rule.kind = AccessPolicy::Rule::Kind::kDirectory;
    if (!absl::EndsWith(resolved, "/")) resolved += "/";
  }
  rule.pattern = resolved;
  return rule;
}

std::string TargetPath(const TargetInfo& info) {
  return info.resolved_path.empty() ? AccessPolicy::ResolvePath(info.path)
                                    : info.resolved_path;
}

std::string RuleList(const std::vector<AccessPolicy::Rule>& rules) {
  if (rules.empty()) return "(none)";
  std::vector<std::string> texts;
  for (const AccessPolicy::Rule& rule : rules) texts.push_back(rule.text);
  return absl::StrJoin(texts, ", ");
}

}  // namespace

std::string AccessPolicy::ResolvePath(absl::string_view path) {
  std::string resolved;
  const std::string text(path);
  if (RealPath(text, &resolved)) return resolved;
  const std::string normal = Normalize(text);
  const size_t slash = normal.rfind('/');
  const std::string dir = slash == 0 ? "/" : normal.substr(0, slash);
  if (RealPath(dir, &resolved)) {
    return absl::StrCat(resolved == "/" ? "" : resolved, normal.substr(slash));
  }
  return normal;
}

AccessPolicy AccessPolicy::Create(const std::vector<std::string>& allow_read,
                                  const std::vector<std::string>& allow_write,
                                  absl::string_view data_dir) {
  AccessPolicy policy;
  for (const std::string& text : allow_read) {
    if (!text.empty()) policy.read_.push_back(MakeRule(text));
  }
  if (policy.read_.empty()) {
    Rule devices;
    devices.text = "/dev/ (block devices)";
    devices.pattern = "/dev/";
    devices.kind = Rule::Kind::kDirectory;
    devices.block_devices_only = true;
    policy.read_.push_back(devices);
    if (!data_dir.empty()) {
      std::string dir(data_dir);
      if (!absl::EndsWith(dir, "/")) dir += "/";
      policy.read_.push_back(MakeRule(dir));
    }
  }
  for (const std::string& text : allow_write) {
    if (!text.empty()) policy.write_.push_back(MakeRule(text));
  }
  return policy;
}

const AccessPolicy::Rule* AccessPolicy::Match(const std::vector<Rule>& rules,
                                              const TargetInfo& info) {
  const std::string path = TargetPath(info);
  for (const Rule& rule : rules) {
    if (rule.block_devices_only && info.kind != TargetKind::kBlockDevice) {
      continue;
    }
    switch (rule.kind) {
      case Rule::Kind::kExact:
        if (path == rule.pattern) return &rule;
        break;
      case Rule::Kind::kDirectory:
      case Rule::Kind::kPrefix:
        if (absl::StartsWith(path, rule.pattern)) return &rule;
        break;
    }
  }
  return nullptr;
}

std::string AccessPolicy::ReadRule(const TargetInfo& info) const {
  const Rule* rule = Match(read_, info);
  return rule == nullptr ? "" : rule->text;
}

std::string AccessPolicy::WriteRule(const TargetInfo& info) const {
  const Rule* rule = Match(write_, info);
  return rule == nullptr ? "" : rule->text;
}

std::vector<std::string> AccessPolicy::ReadRuleTexts() const {
  std::vector<std::string> texts;
  for (const Rule& rule : read_) texts.push_back(rule.text);
  return texts;
}

std::vector<std::string> AccessPolicy::WriteRuleTexts() const {
  std::vector<std::string> texts;
  for (const Rule& rule : write_) texts.push_back(rule.text);
  return texts;
}

absl::Status AccessPolicy::CheckRead(absl::string_view field,
                                     const TargetInfo& info) const {
  if (Match(read_, info) != nullptr) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      field, " ", info.path, " (", TargetPath(info),
      "): reading is not allowed by the daemon's --allow_read_paths rules: ",
      RuleList(read_)));
}

absl::Status AccessPolicy::CheckWrite(absl::string_view field,
                                      const TargetInfo& info) const {
  const std::string prefix =
      absl::StrCat(field, " ", info.path, ": refusing to write: ");
  if (Match(write_, info) == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        prefix, TargetPath(info),
        " matches no --allow_write_paths rule of the daemon (rules: ",
        RuleList(write_), ")"));
  }
  const bool device = info.kind == TargetKind::kBlockDevice;
  if (device && info.path_is_symlink) {
    return absl::PermissionDeniedError(absl::StrCat(
        prefix, "it is a symbolic link to ", TargetPath(info),
        "; name the device node itself (rule: no writes through symlinks)"));
  }
  if (device && info.mounted) {
    return absl::PermissionDeniedError(absl::StrCat(
        prefix,
        "the device or one of its partitions is mounted (rule: never "
        "write to a mounted device)"));
  }
  if (device && info.has_holders) {
    return absl::PermissionDeniedError(
        absl::StrCat(prefix,
                     "the device or one of its partitions is held by another "
                     "device (device-mapper, md, ...) (rule: never write to a "
                     "device in use)"));
  }
  if (info.is_swap) {
    return absl::PermissionDeniedError(
        absl::StrCat(prefix, "it is active swap (rule: never write to swap)"));
  }
  if (!info.backs_loop.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat(prefix, "it backs loop device ", info.backs_loop,
                     " (rule: never write under a loop device's user)"));
  }
  return absl::OkStatus();
}

}  // namespace blkperf
