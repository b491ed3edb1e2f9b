// The daemon's --data_dir flag and the embedded default target in its data
// directory (base/data_paths.h computes the paths): the file `blkperfd run` and a spec without targets use.
//
//   absl::StatusOr<TargetSpec> target = DefaultTarget(DataDirectory());
//   spec.targets.push_back(*target);   // 1 GiB, created and pre-filled once
#ifndef BLKPERF_DAEMON_COMMON_DEFAULT_TARGET_H_
#define BLKPERF_DAEMON_COMMON_DEFAULT_TARGET_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/data_paths.h"  // VerifyStateDirectory, DefaultTargetPath
#include "model/workload_spec.h"

namespace blkperf {

inline constexpr uint64_t kDefaultTargetBytes = uint64_t{1} << 30;

// DaemonDataDirectory (base/data_paths.h) of this process's --data_dir.
std::string DataDirectory();

// <data_dir>/default-target.dat, kDefaultTargetBytes, writable: blkperf's own
// file, whose creation and filling (and re-filling before a verify read
// without verify state) is its only write. Creates the directory.
// FailedPrecondition naming the directory when it cannot be created.
absl::StatusOr<TargetSpec> DefaultTarget(absl::string_view data_dir);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_COMMON_DEFAULT_TARGET_H_
