// The audit log (--audit_log): one JSON object per line for every mutating
// call, every refusal and every workload's end.
//
//   {"time":"2026-12-01T06:30:00.123Z","peer":"ipv4:10.0.0.7:51234",
//    "identity":"alice.example.com","role":"operator",
//    "method":"StartWorkload","summary":"randread bs=4096 ... on /dev/sdb",
//    "outcome":"OK","workload_id":"w3"}
//
// Every field is a JSON string, bounded (kMaxAuditFieldBytes, the summary
// kMaxAuditSummaryBytes; a cut says how much was left out) and escaped, so a
// newline in a file name cannot forge a line. The file is opened once
// (O_APPEND|O_NOFOLLOW, created 0600, must be a regular file) and each
// record is one write(2) of a whole line.
//
//   absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open(path);
//   (*log)->Write({.method = "StopWorkload", .outcome = "OK", ...});
#ifndef BLKPERF_DAEMON_SECURITY_AUDIT_LOG_H_
#define BLKPERF_DAEMON_SECURITY_AUDIT_LOG_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace blkperf {

inline constexpr size_t kMaxAuditFieldBytes = 256;
inline constexpr size_t kMaxAuditSummaryBytes = 1024;

struct AuditRecord {
  absl::Time time = absl::Now();
  std::string peer;      // gRPC peer ("ipv4:1.2.3.4:5", "unix:..."), or ""
  std::string identity;  // certificate SAN/CN, "local", or "" if none
  // The caller's role; "none" for a refused caller the roles file grants
  // nothing (or a refused TLS handshake); "" where no caller is involved
  // (a workload's end).
  std::string role;
  // "StartWorkload", "workload-end", "tls-handshake", ...
  std::string method;
  std::string summary;   // what was asked (spec summary, id, split)
  std::string outcome;   // "OK" or "PERMISSION_DENIED: ..."
  std::string workload_id;
};

// `value` as a JSON string literal: quotes, backslashes and every byte below
// 0x20 escaped; at most `max_bytes` of input kept, with "...(+N bytes)"
// appended inside the string when cut.
std::string JsonString(absl::string_view value, size_t max_bytes);

// The record as one JSON line, '\n' included.
std::string AuditLine(const AuditRecord& record);

class AuditLog {
 public:
  // Opens (creating, mode 0600) `path` for appending. InvalidArgument
  // naming --audit_log when it is a symlink or not a regular file.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(
      const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Appends one line. A failed write is logged (once per failure streak),
  // never thrown back to the caller.
  void Write(const AuditRecord& record) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  explicit AuditLog(int fd) : fd_(fd) {}

  const int fd_;
  absl::Mutex mu_;
  bool failing_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SECURITY_AUDIT_LOG_H_
