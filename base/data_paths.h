// Every place blkperf keeps data, computed here and nowhere else: the
// daemon's data directory and what lives in it, the user's data home (the
// results store and its spool), and the host-wide CPU registry.
// docs/deployment.md ("Where blkperf keeps data") lists them.
//
//   const std::string dir = DaemonDataDirectory(absl::GetFlag(FLAGS_data_dir));
//   spec.verify_state_dir = VerifyStateDirectory(dir);
//   const std::string db = DefaultResultsDb();  // "none": keep nothing
//
// Each reads the environment when called ($HOME, $XDG_DATA_HOME,
// $BLKPERF_RESULTS_DB, $BLKPERF_SPOOL_DIR, $BLKPERF_CPU_REGISTRY); an
// empty variable counts as unset.
#ifndef BLKPERF_BASE_DATA_PATHS_H_
#define BLKPERF_BASE_DATA_PATHS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace blkperf {

// The user's blkperf data home: $XDG_DATA_HOME/blkperf, else
// $HOME/.local/share/blkperf; "" without either.
std::string UserDataHome();

// The daemon's data directory: `flag` (--data_dir) when not empty, else
// /var/lib/blkperf for root (or without a user data home), else
// UserDataHome(). `root`: whether the process runs as root (geteuid() == 0).
std::string DaemonDataDirectory(absl::string_view flag, bool root);
// As above, for this process.
std::string DaemonDataDirectory(absl::string_view flag);

// What a daemon's data directory holds.
inline constexpr char kDataDirLockName[] = "blkperfd.lock";     // flock + pid
inline constexpr char kWorkloadIdsName[] = "workload-ids";      // last id
inline constexpr char kDefaultTargetName[] = "default-target.dat";
inline constexpr char kVerifyDirName[] = "verify";
// <data_dir>/default-target.dat: the daemon's own default target.
std::string DefaultTargetPath(absl::string_view data_dir);
// <data_dir>/verify: verify's per-target state files and dumped blocks.
std::string VerifyStateDirectory(absl::string_view data_dir);

// Where results go without --results_db: $BLKPERF_RESULTS_DB (a location
// or "none"), else <UserDataHome()>/results.sqlite, else "none".
std::string DefaultResultsDb();

// The spool beside store `location`: $BLKPERF_SPOOL_DIR, else
// <location>.spool for a path, else <UserDataHome()>/spool for a server
// URI, else /tmp/blkperf-spool.
std::string SpoolDirFor(absl::string_view location);

// The host-wide CPU registry's root (cpu_registry.h):
// $BLKPERF_CPU_REGISTRY (tests give each run of theirs a private one), else
// /run/blkperf. Shared by every blkperf process whatever its data directory.
std::string CpuRegistryRoot();

}  // namespace blkperf

#endif  // BLKPERF_BASE_DATA_PATHS_H_
