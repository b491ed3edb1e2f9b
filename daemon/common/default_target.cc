#include "daemon/common/default_target.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, data_dir, "",
          "The daemon's data directory, home of the default target file. "
          "Empty: /var/lib/blkperf as root, else $HOME/.local/share/blkperf.");

namespace blkperf {

std::string DataDirectory() {
  std::string dir = absl::GetFlag(FLAGS_data_dir);
  if (!dir.empty()) return dir;
  const char* home = std::getenv("HOME");
  if (geteuid() == 0 || home == nullptr || *home == '\0') {
    return "/var/lib/blkperf";
  }
  return absl::StrCat(home, "/.local/share/blkperf");
}

std::string VerifyStateDirectory(absl::string_view data_dir) {
  return absl::StrCat(data_dir, "/verify");
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
  return TargetSpec{.path = absl::StrCat(dir, "/", kDefaultTargetName),
                    .create_size = kDefaultTargetBytes,
                    .allow_write = true,
                    .refill_for_verify = true};
}

}  // namespace blkperf
