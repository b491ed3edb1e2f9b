// Which targets the operator lets workloads read and write: the daemon's
// --allow_read_paths and --allow_write_paths lists, and the write-safety rules
// for devices in use. Decides on resolved (symlink-free) paths, so a link
// inside an allowed directory cannot lead outside it.
//
//   AccessPolicy policy = AccessPolicy::Create(
//       /*allow_read=*/{}, /*allow_write=*/{"/dev/zram0", "/srv/scratch/"},
//       /*data_dir=*/"/var/lib/blkperf");
//   BLKPERF_RETURN_IF_ERROR(policy.CheckRead("targets[0]", info));
//   if (writes) BLKPERF_RETURN_IF_ERROR(policy.CheckWrite("targets[0]", info));
//
// Rule syntax (both lists): an entry ending in "/" or naming an existing
// directory allows everything below that directory; an entry ending in "*"
// allows every path starting with the text before the "*" ("/dev/loop*");
// any other entry allows exactly that path. Entries are resolved with
// realpath when they exist. An empty read list means the default: block
// devices under /dev/ plus everything under the data directory. An empty
// write list allows no writes at all.
#ifndef BLKPERF_DAEMON_SERVICE_ACCESS_POLICY_H_
#define BLKPERF_DAEMON_SERVICE_ACCESS_POLICY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "daemon/engine/target.h"

namespace blkperf {

class AccessPolicy {
 public:
  struct Rule {
    std::string text;     // as the operator wrote it, for messages
    std::string pattern;  // resolved
    enum class Kind { kExact, kDirectory, kPrefix } kind = Kind::kExact;
    bool block_devices_only = false;
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

 private:
  static const Rule* Match(const std::vector<Rule>& rules,
                           const TargetInfo& info);

  std::vector<Rule> read_;
  std::vector<Rule> write_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_ACCESS_POLICY_H_
