// Tiny status macros: Abseil 20220623 ships no RETURN_IF_ERROR.
//
//   absl::Status Open() {
//     BLKPERF_RETURN_IF_ERROR(Validate(spec));
//     BLKPERF_ASSIGN_OR_RETURN(Target target, Target::Open(path));
//   }
#ifndef BLKPERF_BASE_STATUS_MACROS_H_
#define BLKPERF_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define BLKPERF_RETURN_IF_ERROR(expr)              \
  do {                                             \
    ::absl::Status blkperf_status_ = (expr);       \
    if (!blkperf_status_.ok()) return blkperf_status_; \
  } while (0)

#define BLKPERF_STATUS_CONCAT_INNER_(a, b) a##b
#define BLKPERF_STATUS_CONCAT_(a, b) BLKPERF_STATUS_CONCAT_INNER_(a, b)

#define BLKPERF_ASSIGN_OR_RETURN(lhs, expr) \
  BLKPERF_ASSIGN_OR_RETURN_IMPL_(           \
      BLKPERF_STATUS_CONCAT_(blkperf_statusor_, __LINE__), lhs, expr)

#define BLKPERF_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                   \
  if (!statusor.ok()) return statusor.status();             \
  lhs = std::move(statusor).value()

#endif  // BLKPERF_BASE_STATUS_MACROS_H_
