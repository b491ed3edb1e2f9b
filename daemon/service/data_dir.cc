#include "daemon/service/data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace blkperf {
namespace {

// `dir` (an open directory, never a link) must be ours; wider than 0700 it
// is narrowed to 0700, saying so.
absl::Status MakePrivate(int dir, const std::string& what) {
  struct stat st;
  if (fstat(dir, &st) != 0) return absl::ErrnoToStatus(errno, what);
  if (st.st_uid != geteuid()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " belongs to uid ", st.st_uid, ", not to this daemon (uid ",
        geteuid(), "); give the daemon a directory of its own"));
  }
  if ((st.st_mode & 07777) == 0700) return absl::OkStatus();
  if (fchmod(dir, 0700) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(what, ": chmod 0700"));
  }
  BLKPERF_LOG(WARNING) << what << " had mode "
                       << absl::StrFormat("%04o", st.st_mode & 07777)
                       << "; set to 0700";
  return absl::OkStatus();
}

// Opens directory `name` under `at` (AT_FDCWD: a path), creating it 0700,
// never following a link in its last component; then MakePrivate.
absl::StatusOr<UniqueFd> OpenPrivateDir(int at, const std::string& name,
                                        const std::string& what) {
  if (mkdirat(at, name.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::ErrnoToStatus(errno, what);
  }
  UniqueFd dir(openat(at, name.c_str(),
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) {
    if (errno == ELOOP || errno == ENOTDIR) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " is a symbolic link or not a directory; refusing to use it"));
    }
    return absl::ErrnoToStatus(errno, what);
  }
  BLKPERF_RETURN_IF_ERROR(MakePrivate(dir.get(), what));
  return dir;
}

// Up to 64 bytes of a small file in `dir`; "" when absent or unreadable.
std::string ReadSmallFile(int dir, const char* name) {
  UniqueFd fd(openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return "";
  char buf[64];
  const ssize_t n = pread(fd.get(), buf, sizeof(buf), 0);
  return n > 0 ? std::string(absl::StripAsciiWhitespace(
                     absl::string_view(buf, static_cast<size_t>(n))))
               : "";
}

absl::StatusOr<UniqueFd> Lock(int dir, const std::string& path) {
  UniqueFd lock(openat(dir, kDataDirLockName,
                       O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock.valid()) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("data directory ", path, ": ", kDataDirLockName));
  }
  if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      return absl::ErrnoToStatus(
          errno, absl::StrCat("data directory ", path, ": lock"));
    }
    const std::string pid = ReadSmallFile(dir, kDataDirLockName);
    return absl::FailedPreconditionError(absl::StrCat(
        "data directory ", path, " is in use by another blkperfd (pid ",
        pid.empty() ? "unknown" : pid,
        "); give each daemon its own --data_dir"));
  }
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(lock.get(), 0) != 0 ||
      pwrite(lock.get(), pid.data(), pid.size(), 0) !=
          static_cast<ssize_t>(pid.size())) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("data directory ", path, ": write pid"));
  }
  return lock;
}

}  // namespace

DataDir::DataDir(std::string path, UniqueFd dir, UniqueFd lock,
                 uint64_t last_id)
    : path_(std::move(path)),
      dir_(std::move(dir)),
      lock_(std::move(lock)),
      last_id_(last_id) {}

absl::StatusOr<std::unique_ptr<DataDir>> DataDir::Open(absl::string_view path) {
  std::string dir_path(path);
  while (dir_path.size() > 1 && dir_path.back() == '/') dir_path.pop_back();
  const std::filesystem::path parent =
      std::filesystem::path(dir_path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  BLKPERF_ASSIGN_OR_RETURN(
      UniqueFd dir,
      OpenPrivateDir(AT_FDCWD, dir_path,
                     absl::StrCat("data directory ", dir_path, " (--data_dir)")));
  absl::StatusOr<UniqueFd> verify = OpenPrivateDir(
      dir.get(), kVerifyDirName,
      absl::StrCat("data directory ", dir_path, ": ", kVerifyDirName, "/"));
  if (!verify.ok()) return verify.status();
  absl::StatusOr<UniqueFd> lock = Lock(dir.get(), dir_path);
  if (!lock.ok()) return lock.status();
  uint64_t last_id = 0;
  const std::string ids = ReadSmallFile(dir.get(), kWorkloadIdsName);
  if (!ids.empty() && !absl::SimpleAtoi(ids, &last_id)) {
    return absl::DataLossError(absl::StrCat(
        "data directory ", dir_path, ": ", kWorkloadIdsName,
        " does not hold a number; remove it only if no client still uses "
        "old workload ids"));
  }
  return std::unique_ptr<DataDir>(
      new DataDir(dir_path, std::move(dir), *std::move(lock), last_id));
}

absl::StatusOr<uint64_t> DataDir::NextWorkloadNumber() {
  absl::MutexLock lock(&mu_);
  const uint64_t next = last_id_ + 1;
  // Written to a temporary name and renamed, so a crash leaves the old or
  // the new number, never a torn one.
  const std::string tmp = absl::StrCat(kWorkloadIdsName, ".tmp");
  const std::string text = absl::StrCat(next, "\n");
  UniqueFd fd(openat(dir_.get(), tmp.c_str(),
                     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                     0600));
  if (!fd.valid() ||
      write(fd.get(), text.data(), text.size()) !=
          static_cast<ssize_t>(text.size()) ||
      fsync(fd.get()) != 0 ||
      renameat(dir_.get(), tmp.c_str(), dir_.get(), kWorkloadIdsName) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("data directory ", path_, ": record workload id in ",
                            kWorkloadIdsName));
  }
  last_id_ = next;
  return next;
}

}  // namespace blkperf
