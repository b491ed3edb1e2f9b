#include "base/data_paths.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace

std::string UserDataHome() {
  if (std::string xdg = Env("XDG_DATA_HOME"); !xdg.empty()) {
    return absl::StrCat(xdg, "/blkperf");
  }
  if (std::string home = Env("HOME"); !home.empty()) {
    return absl::StrCat(home, "/.local/share/blkperf");
  }
  return "";
}

std::string DaemonDataDirectory(absl::string_view flag, bool root) {
  if (!flag.empty()) return std::string(flag);
  const std::string home = UserDataHome();
  return root || home.empty() ? "/var/lib/blkperf" : home;
}

std::string DaemonDataDirectory(absl::string_view flag) {
  return DaemonDataDirectory(flag, geteuid() == 0);
}

std::string DefaultTargetPath(absl::string_view data_dir) {
  return absl::StrCat(data_dir, "/", kDefaultTargetName);
}

std::string VerifyStateDirectory(absl::string_view data_dir) {
  return absl::StrCat(data_dir, "/", kVerifyDirName);
}

std::string DefaultResultsDb() {
  if (std::string env = Env("BLKPERF_RESULTS_DB"); !env.empty()) return env;
  const std::string home = UserDataHome();
  return home.empty() ? "none" : absl::StrCat(home, "/results.sqlite");
}

std::string SpoolDirFor(absl::string_view location) {
  if (std::string env = Env("BLKPERF_SPOOL_DIR"); !env.empty()) return env;
  if (!absl::StrContains(location, "://")) {
    return absl::StrCat(location, ".spool");
  }
  const std::string home = UserDataHome();
  return home.empty() ? "/tmp/blkperf-spool" : absl::StrCat(home, "/spool");
}

std::string CpuRegistryRoot() {
  const std::string env = Env("BLKPERF_CPU_REGISTRY");
  return env.empty() ? "/run/blkperf" : env;
}

}  // namespace blkperf
