#include "daemon/security/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "base/log.h"

namespace blkperf {

std::string JsonString(absl::string_view value, size_t max_bytes) {
  const absl::string_view kept = value.substr(0, max_bytes);
  std::string out = "\"";
  AppendEscaped(kept, &out);
  if (kept.size() < value.size()) {
    absl::StrAppend(&out, "...(+", value.size() - kept.size(), " bytes)");
  }
  out.push_back('"');
  return out;
}

std::string AuditLine(const AuditRecord& r) {
  const size_t f = kMaxAuditFieldBytes;
  std::string line = absl::StrCat(
      "{\"time\":",
      JsonString(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", r.time,
                                  absl::UTCTimeZone()),
                 f),
      ",\"peer\":", JsonString(r.peer, f),
      ",\"identity\":", JsonString(r.identity, f),
      ",\"role\":", JsonString(r.role, f),
      ",\"method\":", JsonString(r.method, f),
      ",\"summary\":", JsonString(r.summary, kMaxAuditSummaryBytes),
      ",\"outcome\":", JsonString(r.outcome, kMaxAuditSummaryBytes));
  if (!r.workload_id.empty()) {
    absl::StrAppend(&line, ",\"workload_id\":", JsonString(r.workload_id, f));
  }
  line += "}\n";
  return line;
}

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(
    const std::string& path) {
  const std::string what = absl::StrCat("--audit_log ", BoundedText(path));
  // O_NONBLOCK: a FIFO there must not block the start (it is refused
  // below, or here with ENXIO when it has no reader); cleared afterwards.
  const int fd = open(
      path.c_str(),
      O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
      0600);
  if (fd < 0) {
    if (errno == ELOOP) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": is a symlink; name the file itself"));
    }
    if (errno == ENXIO) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": not a regular file"));
    }
    return absl::ErrnoToStatus(errno, what);
  }
  struct stat st = {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      fcntl(fd, F_SETFL, O_WRONLY | O_APPEND) != 0) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a regular file"));
  }
  return std::unique_ptr<AuditLog>(new AuditLog(fd));
}

AuditLog::~AuditLog() { close(fd_); }

void AuditLog::Write(const AuditRecord& record) {
  const std::string line = AuditLine(record);
  absl::MutexLock lock(&mu_);
  ssize_t n;
  do {
    n = write(fd_, line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(line.size())) {
    failing_ = false;
    return;
  }
  if (!failing_) {
    BLKPERF_LOG(ERROR) << "--audit_log: write failed: "
                       << (n < 0 ? strerror(errno) : "short write")
                       << " (records are being lost)";
  }
  failing_ = true;
}

}  // namespace blkperf
