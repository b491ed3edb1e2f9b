// The daemon's hold on its data directory (--data_dir): a lock so that two
// daemons never share one (their default targets and workload ids would
// collide), and the workload-id counter kept there so ids stay unique
// across restarts: an old id never silently names a new workload.
//
//   BLKPERF_ASSIGN_OR_RETURN(std::unique_ptr<DataDir> dir,
//                            DataDir::Open("/var/lib/blkperf"));
//   BLKPERF_ASSIGN_OR_RETURN(uint64_t n, dir->NextWorkloadNumber());  // w<n>
//
// Files (opened relative to the directory, never following links):
//   blkperfd.lock  flock(LOCK_EX) held for the daemon's life; holds its pid.
//   workload-ids   the last workload number handed out, in decimal.
//   verify/        verify state files (the engine's), a directory 0700.
// Nothing here trusts the umask: the directory and verify/ are made 0700,
// an existing one wider than that is narrowed (with a warning), and neither
// may be a symbolic link or belong to another user.
#ifndef BLKPERF_DAEMON_SERVICE_DATA_DIR_H_
#define BLKPERF_DAEMON_SERVICE_DATA_DIR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/data_paths.h"  // the names of what it holds
#include "base/unique_fd.h"

namespace blkperf {


class DataDir {
 public:
  // Creates `path` (mode 0700; missing parents as the umask says) if
  // missing, and verify/ in it, and locks it. FailedPrecondition naming the
  // directory and the holder's pid when another daemon holds it, or naming
  // the directory when it or verify/ is a symbolic link or another user's;
  // errno-derived errors naming the directory otherwise.
  static absl::StatusOr<std::unique_ptr<DataDir>> Open(absl::string_view path);

  // The next workload number (1, 2, ... continuing where the last daemon on
  // this directory stopped), recorded durably before it is returned.
  // Errors are errno-derived, naming the file. Thread-safe.
  absl::StatusOr<uint64_t> NextWorkloadNumber();

  const std::string& path() const { return path_; }

 private:
  DataDir(std::string path, UniqueFd dir, UniqueFd lock, uint64_t last_id);

  const std::string path_;
  const UniqueFd dir_;
  const UniqueFd lock_;  // released (flock) when closed
  absl::Mutex mu_;
  uint64_t last_id_ ABSL_GUARDED_BY(mu_);
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_DATA_DIR_H_
