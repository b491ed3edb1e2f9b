// Small configuration files (roles, certificates, keys) read safely: opened
// once without following a final symlink, checked to be a regular file,
// read through that fd, refused past a size limit.
//
//   absl::StatusOr<std::string> pem =
//       ReadConfigFile(path, kMaxConfigFileBytes, "--tls_cert");
#ifndef BLKPERF_BASE_CONFIG_FILE_H_
#define BLKPERF_BASE_CONFIG_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

inline constexpr size_t kMaxConfigFileBytes = 1 << 20;

// The file's contents. Errors start with `flag` and the (bounded) path:
// the errno's code for open/read failures, InvalidArgument for a symlink,
// a non-regular file or more than `max_bytes`.
absl::StatusOr<std::string> ReadConfigFile(const std::string& path,
                                           size_t max_bytes,
                                           absl::string_view flag);

}  // namespace blkperf

#endif  // BLKPERF_BASE_CONFIG_FILE_H_
