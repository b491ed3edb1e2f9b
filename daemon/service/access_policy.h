// Which targets the operator lets workloads read and write: the daemon's
// --allow_read_paths and --allow_write_paths lists, and the write-safety rules
// for devices in use. The manager checks a request against the rules on
// resolved (symlink-free) paths before anything is probed; the engine's
// backend then opens each target once through Open, which judges the
// opened inode itself, so a link or node swapped in between cannot lead
// outside the rules.
//
//   AccessPolicy policy = AccessPolicy::Create(
//       /*allow_read=*/{}, /*allow_write=*/{"/dev/zram0", "/srv/scratch/"},
//       /*data_dir=*/"/var/lib/blkperf");
//   BLKPERF_RETURN_IF_ERROR(policy.CheckRead("targets[0]", info));
//   if (writes) BLKPERF_RETURN_IF_ERROR(policy.CheckWrite("targets[0]", info));
//   BLKPERF_ASSIGN_OR_RETURN(OpenedTarget t,
//                            policy.Open("targets[0]", path, intent));
//
// Rule syntax (both lists): an entry ending in "/" or naming an existing
// directory allows everything below that directory; an entry ending in "*"
// allows every path starting with the text before the "*" ("/dev/loop*");
// any other entry allows exactly that path. Entries are resolved with
// realpath when they exist. An empty read list means the default: block
// devices under /dev/ plus everything under the data directory. An empty
// write list allows no writes to any target a spec names; a spec that names
// none runs on the daemon's own default target in the data directory, which
// only Open's default_target intent reaches.
#ifndef BLKPERF_DAEMON_SERVICE_ACCESS_POLICY_H_
#define BLKPERF_DAEMON_SERVICE_ACCESS_POLICY_H_

#include <string>
#include <vector>

#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/unique_fd.h"
#include "daemon/engine/target/target.h"

namespace blkperf {

// What Open() is asked for.
struct OpenIntent {
  // Judge against the write rules (writes, and creating files) instead of
  // the read rules.
  bool write = false;
  // Regular files only: when the file does not exist, create it (NewFile,
  // named only once the caller publishes it) this large, filled with the
  // pattern of `seed`. An existing file smaller than this is refused.
  uint64_t create_size = 0;
  uint64_t seed = 0;
  // The fill's progress and cancel flag (NewFile::Create); may be null.
  FillProgress* fill = nullptr;
  // The daemon's own default target (<data_dir>/default-target.dat): judged
  // by that single built-in rule instead of the operator's lists.
  bool default_target = false;
};

// A target opened once and judged on the opened inode.
struct OpenedTarget {
  // O_PATH descriptor of the target; reopen with ReopenTarget.
  UniqueFd fd;
  // The file, still unnamed, when Open created it; Publish() it once the
  // workload runs. Empty otherwise.
  std::optional<NewFile> created;
  // The rule that allowed it, as the operator wrote it.
  std::string rule;
};

class AccessPolicy {
 public:
  struct Rule {
    std::string text;     // as the operator wrote it, for messages
    std::string pattern;  // resolved
    enum class Kind { kExact, kDirectory, kPrefix } kind = Kind::kExact;
    bool block_devices_only = false;

    // Identity, resolved at Create. `dir`: the directory files are opened
    // beneath (kDirectory), in (kPrefix), or the parent of the file
    // (kExact naming a file); null when it did not exist.
    std::shared_ptr<const UniqueFd> dir;
    // Lexical paths of `dir` ("/srv/scratch"): as written and resolved.
    std::vector<std::string> dir_paths;
    // kExact file: its name in `dir`; kPrefix: the name prefix.
    std::string name;
    // kExact naming a block device: its device number.
    std::optional<uint64_t> rdev;
  };

  static AccessPolicy Create(const std::vector<std::string>& allow_read,
                             const std::vector<std::string>& allow_write,
                             absl::string_view data_dir);

  // OK when `info.resolved_path` (or, for a file not created yet, its
  // resolved directory plus name) matches a read rule. PermissionDenied
  // naming `field`, the target and the rules otherwise.
  absl::Status CheckRead(absl::string_view field, const TargetInfo& info) const;

  // OK when the target matches a write rule and is safe to write: not a
  // block device reached through a symlink, not mounted, held, active swap
  // or backing a loop device. PermissionDenied naming `field`, the target and
  // the rule or reason otherwise.
  absl::Status CheckWrite(absl::string_view field,
                          const TargetInfo& info) const;

  // The rule that allows reading / writing `info`, or "" when none does.
  std::string ReadRule(const TargetInfo& info) const;
  std::string WriteRule(const TargetInfo& info) const;

  // Rules as the operator wrote them (with defaults spelled out).
  std::vector<std::string> ReadRuleTexts() const;
  std::vector<std::string> WriteRuleTexts() const;

  // realpath(path), or realpath(dirname) + "/" + basename when the path
  // does not exist (yet); the lexically normalized path when neither does.
  static std::string ResolvePath(absl::string_view path);

  // The binding check: opens `path` (absolute) once as described above and
  // judges the opened inode against the read or write rules. Errors name
  // `field` and echo `path` (truncated), never a resolved path:
  // PermissionDenied (no rule allows the opened inode, a symbolic link on a
  // file path, a device node allowed only by a directory rule);
  // InvalidArgument (not absolute, missing without create_size, neither a
  // regular file nor a block device); FailedPrecondition (an existing file
  // smaller than create_size); errno-derived codes otherwise.
  absl::StatusOr<OpenedTarget> Open(absl::string_view field,
                                    absl::string_view path,
                                    const OpenIntent& intent) const;

  // The safety half of CheckWrite, on a target probed through its opened
  // descriptor: not mounted, held, active swap or backing a loop device.
  absl::Status CheckWriteSafety(absl::string_view field,
                                const TargetInfo& info) const;

 private:
  static const Rule* Match(const std::vector<Rule>& rules,
                           const TargetInfo& info);
  absl::StatusOr<OpenedTarget> OpenUnderRule(absl::string_view field,
                                             absl::string_view path,
                                             const Rule& rule,
                                             const std::string& rel,
                                             const OpenIntent& intent) const;
  // Whether the inode `fd` is allowed: a regular file when opened under
  // rule `by` (null: no rule's path covered it), a block device when a rule
  // names its device number.
  absl::Status JudgeOpened(absl::string_view field, absl::string_view path,
                           const OpenIntent& intent,
                           const std::vector<Rule>& rules, const Rule* by,
                           int fd) const;

  std::vector<Rule> read_;
  std::vector<Rule> write_;
  // <data_dir>/default-target.dat, for OpenIntent::default_target.
  std::vector<Rule> own_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_ACCESS_POLICY_H_
