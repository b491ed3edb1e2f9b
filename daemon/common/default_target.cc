#include "daemon/common/default_target.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, data_dir, "",
          "The daemon's data directory, home of the default target file. "
          "Empty: /var/lib/blkperf as root, else $XDG_DATA_HOME/blkperf or "
          "$HOME/.local/share/blkperf (docs/deployment.md).");

namespace blkperf {

std::string DataDirectory() {
  return DaemonDataDirectory(absl::GetFlag(FLAGS_data_dir));
}

absl::StatusOr<TargetSpec> DefaultTarget(absl::string_view data_dir) {
  const std::string dir(data_dir);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || access(dir.c_str(), W_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "data directory ", dir, " for the default target cannot be created "
        "or written", error ? absl::StrCat(": ", error.message()) : ""));
  }
  return TargetSpec{.path = DefaultTargetPath(dir),
                    .create_size = kDefaultTargetBytes,
                    .allow_write = true,
                    .refill_for_verify = true};
}

}  // namespace blkperf
