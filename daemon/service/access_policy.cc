#include "daemon/service/access_policy.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/bounded_text.h"
#include "base/status_macros.h"
#include "daemon/common/default_target.h"

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

std::pair<std::string, std::string> SplitDirName(const std::string& normal) {
  const size_t slash = normal.rfind('/');
  return {slash == 0 ? "/" : normal.substr(0, slash),
          normal.substr(slash + 1)};
}

// Opens the directory a rule works in, once, at daemon start.
void ResolveRuleDir(const std::string& path, AccessPolicy::Rule& rule) {
  const int fd = open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  rule.dir = std::make_shared<const UniqueFd>(fd);
  rule.dir_paths.push_back(Normalize(path));
  std::string resolved;
  if (RealPath(path, &resolved) && resolved != rule.dir_paths[0]) {
    rule.dir_paths.push_back(resolved);
  }
}

AccessPolicy::Rule MakeRule(const std::string& text) {
  AccessPolicy::Rule rule;
  rule.text = text;
  if (absl::EndsWith(text, "*")) {
    rule.kind = AccessPolicy::Rule::Kind::kPrefix;
    rule.pattern = text.substr(0, text.size() - 1);
    auto [dir, name] = SplitDirName(Normalize(rule.pattern + "x"));
    rule.name = name.substr(0, name.size() - 1);
    ResolveRuleDir(dir, rule);
    return rule;
  }
  std::string resolved;
  if (!RealPath(text, &resolved)) resolved = Normalize(text);
  if (absl::EndsWith(text, "/") || IsDirectory(resolved)) {
    rule.kind = AccessPolicy::Rule::Kind::kDirectory;
    ResolveRuleDir(text, rule);
    if (!absl::EndsWith(resolved, "/")) resolved += "/";
    rule.pattern = resolved;
    return rule;
  }
  rule.pattern = resolved;
  struct stat st;
  if (stat(text.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
    rule.rdev = st.st_rdev;
    return rule;
  }
  auto [dir, name] = SplitDirName(Normalize(text));
  rule.name = name;
  ResolveRuleDir(dir, rule);
  return rule;
}

// The kernel's name of block device `rdev` ("loop3"); "" if sysfs lacks it.
std::string KernelName(dev_t rdev) {
  std::string resolved;
  if (!RealPath(absl::StrCat("/sys/dev/block/", major(rdev), ":", minor(rdev)),
                &resolved)) {
    return "";
  }
  return resolved.substr(resolved.rfind('/') + 1);
}

// Whether `st` (an opened block device node) is the kernel's own node of
// it, /dev/`name`: the same inode, not a node of the same device made with
// mknod somewhere else whose name shares a prefix rule's prefix.
bool IsKernelNode(const struct stat& st, const std::string& name) {
  struct stat own;
  return !name.empty() && name.find('/') == std::string::npos &&
         lstat(absl::StrCat("/dev/", name).c_str(), &own) == 0 &&
         S_ISBLK(own.st_mode) && own.st_rdev == st.st_rdev &&
         own.st_dev == st.st_dev && own.st_ino == st.st_ino;
}

// `normal` relative to the directory of `rule` when the rule's path covers
// it; "" otherwise.
std::string RelativeUnder(const std::string& normal,
                          const AccessPolicy::Rule& rule) {
  using Kind = AccessPolicy::Rule::Kind;
  for (const std::string& dir : rule.dir_paths) {
    const std::string prefix = dir == "/" ? "/" : dir + "/";
    if (!absl::StartsWith(normal, prefix) || normal.size() == prefix.size()) {
      continue;
    }
    const std::string rel = normal.substr(prefix.size());
    const bool direct_child = rel.find('/') == std::string::npos;
    if (rule.kind == Kind::kDirectory) return rel;
    if (rule.kind == Kind::kPrefix && direct_child &&
        absl::StartsWith(rel, rule.name)) {
      return rel;
    }
    if (rule.kind == Kind::kExact && rel == rule.name) return rel;
  }
  return "";
}

int OpenBeneath(int dir_fd, const std::string& rel, uint64_t flags) {
  struct open_how how = {};
  // No O_NOFOLLOW: with O_PATH it would open a final symlink itself;
  // without it RESOLVE_NO_SYMLINKS refuses a link anywhere (ELOOP).
  how.flags = flags | O_CLOEXEC;
  how.resolve =
      RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(
      syscall(SYS_openat2, dir_fd, rel.c_str(), &how, sizeof(how)));
}

std::string RefusalPrefix(absl::string_view field, absl::string_view path,
                          bool write) {
  return absl::StrCat(field, " ", OneLine(path), ": refusing to ",
                      write ? "write" : "read", ": ");
}

absl::string_view ListFlag(bool write) {
  return write ? "--allow_write_paths" : "--allow_read_paths";
}

std::string TargetPath(const TargetInfo& info) {
  return info.resolved_path.empty() ? AccessPolicy::ResolvePath(info.path)
                                    : info.resolved_path;
}

std::string RuleList(const std::vector<AccessPolicy::Rule>& rules) {
  if (rules.empty()) return "(none)";
  std::vector<std::string> texts;
  for (const AccessPolicy::Rule& rule : rules) {
    const bool unresolved =
        rule.dir == nullptr && !rule.rdev.has_value() && !rule.block_devices_only;
    texts.push_back(unresolved
                        ? absl::StrCat(rule.text,
                                       " (missing when the daemon started: "
                                       "allows nothing)")
                        : rule.text);
  }
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
  if (!data_dir.empty()) {
    policy.own_.push_back(
        MakeRule(DefaultTargetPath(data_dir)));
    policy.own_.back().rdev.reset();  // the daemon's file, never a device
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
      field, " ", OneLine(info.path),
      ": reading is not allowed by the daemon's --allow_read_paths rules: ",
      RuleList(read_)));
}

absl::Status AccessPolicy::CheckWrite(absl::string_view field,
                                      const TargetInfo& info) const {
  const std::string prefix = RefusalPrefix(field, info.path, true);
  if (Match(write_, info) == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        prefix, "it matches no --allow_write_paths rule of the daemon (rules: ",
        RuleList(write_), ")"));
  }
  const bool device = info.kind == TargetKind::kBlockDevice;
  if (device && info.path_is_symlink) {
    return absl::PermissionDeniedError(absl::StrCat(
        prefix, "it is a symbolic link to a device; name the device node "
                "itself (rule: no writes through symlinks)"));
  }
  return CheckWriteSafety(field, info);
}

absl::Status AccessPolicy::CheckWriteSafety(absl::string_view field,
                                            const TargetInfo& info) const {
  const std::string prefix = RefusalPrefix(field, info.path, true);
  const bool device = info.kind == TargetKind::kBlockDevice;
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

absl::StatusOr<OpenedTarget> AccessPolicy::Open(
    absl::string_view field, absl::string_view path,
    const OpenIntent& intent) const {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".path \"", OneLine(path), "\" is not an absolute path"));
  }
  const std::vector<Rule>& rules = intent.default_target ? own_
                                   : intent.write        ? write_
                                                         : read_;
  const std::string normal = Normalize(path);
  for (const Rule& rule : rules) {
    if (rule.dir == nullptr) continue;
    const std::string rel = RelativeUnder(normal, rule);
    if (!rel.empty()) return OpenUnderRule(field, path, rule, rel, intent);
  }
  // No rule's path covers it: only a block device can be allowed, by its
  // device number, so links (/dev/disk/by-id/...) may be followed.
  OpenedTarget opened;
  opened.fd = UniqueFd(open(normal.c_str(), O_PATH | O_CLOEXEC));
  if (!opened.fd.valid()) {
    if (errno == ENOENT) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".path ", OneLine(path),
          " does not exist (set create_size to create a file)"));
    }
    return absl::ErrnoToStatus(errno,
                               absl::StrCat(field, ".path ", OneLine(path)));
  }
  BLKPERF_RETURN_IF_ERROR(
      JudgeOpened(field, path, intent, rules, nullptr, opened.fd.get()));
  return opened;
}

absl::StatusOr<OpenedTarget> AccessPolicy::OpenUnderRule(
    absl::string_view field, absl::string_view path, const Rule& rule,
    const std::string& rel, const OpenIntent& intent) const {
  const std::vector<Rule>& rules = intent.default_target ? own_
                                   : intent.write        ? write_
                                                         : read_;
  OpenedTarget opened;
  opened.rule = rule.text;
  opened.fd = UniqueFd(OpenBeneath(rule.dir->get(), rel, O_PATH));
  const int error_number = opened.fd.valid() ? 0 : errno;
  if (error_number == ELOOP || error_number == EXDEV) {
    return absl::PermissionDeniedError(absl::StrCat(
        RefusalPrefix(field, path, intent.write),
        "a symbolic link is on the path; files under the rule ", rule.text,
        " are opened without following links: name the file itself"));
  }
  if (error_number == ENOENT && intent.write && intent.create_size != 0) {
    const size_t slash = rel.rfind('/');
    UniqueFd parent;
    if (slash != std::string::npos) {
      parent = UniqueFd(OpenBeneath(rule.dir->get(), rel.substr(0, slash),
                                    O_PATH | O_DIRECTORY));
      if (!parent.valid()) {
        return absl::ErrnoToStatus(
            errno, absl::StrCat(field, ".path ", OneLine(path),
                                ": its directory (no links followed)"));
      }
    }
    BLKPERF_ASSIGN_OR_RETURN(
        NewFile file,
        NewFile::Create(parent.valid() ? parent.get() : rule.dir->get(),
                        rel.substr(slash == std::string::npos ? 0 : slash + 1),
                        intent.create_size, intent.seed,
                        absl::StrCat(field, ".path ", OneLine(path)),
                        intent.fill));
    opened.fd = UniqueFd(fcntl(file.fd(), F_DUPFD_CLOEXEC, 0));
    opened.created.emplace(std::move(file));
    return opened;
  }
  if (error_number == ENOENT) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".path ", OneLine(path),
                     " does not exist (set create_size to create a file)"));
  }
  if (error_number != 0) {
    return absl::ErrnoToStatus(error_number,
                               absl::StrCat(field, ".path ", OneLine(path)));
  }
  BLKPERF_RETURN_IF_ERROR(
      JudgeOpened(field, path, intent, rules, &rule, opened.fd.get()));
  return opened;
}

absl::Status AccessPolicy::JudgeOpened(absl::string_view field,
                                       absl::string_view path,
                                       const OpenIntent& intent,
                                       const std::vector<Rule>& rules,
                                       const Rule* by, int fd) const {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat(field, ".path ", OneLine(path)));
  }
  const std::string prefix = RefusalPrefix(field, path, intent.write);
  if (S_ISREG(st.st_mode)) {
    if (by == nullptr) {
      return absl::PermissionDeniedError(absl::StrCat(
          prefix, "no ", ListFlag(intent.write),
          " rule names this file or its directory (rules: ", RuleList(rules),
          "); files are opened beneath their rule's directory, without "
          "following links"));
    }
    if (intent.create_size > static_cast<uint64_t>(st.st_size)) {
      return absl::FailedPreconditionError(absl::StrCat(
          field, ".create_size ", intent.create_size, ": ", OneLine(path),
          " exists with ", st.st_size,
          " bytes; an existing file is never extended or filled (it may be "
          "partial or someone else's): remove it or give a size it holds"));
    }
    return absl::OkStatus();
  }
  if (S_ISBLK(st.st_mode)) {
    const std::string name = KernelName(st.st_rdev);
    for (const Rule& rule : rules) {
      if (rule.block_devices_only || rule.rdev == st.st_rdev ||
          (rule.kind == Rule::Kind::kPrefix && !name.empty() &&
           absl::StartsWith(name, rule.name) && IsKernelNode(st, name))) {
        return absl::OkStatus();
      }
    }
    return absl::PermissionDeniedError(absl::StrCat(
        prefix, "it is block device ", major(st.st_rdev), ":",
        minor(st.st_rdev), ", which no ", ListFlag(intent.write),
        " rule names (rules: ", RuleList(rules),
        "); a directory rule allows regular files only, so a device node "
        "inside an allowed directory allows nothing"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      field, ".path ", OneLine(path),
      " is neither a block device nor a regular file"));
}

}  // namespace blkperf
