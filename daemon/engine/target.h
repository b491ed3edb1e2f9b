// What the engine knows about an I/O target before it opens it: whether the
// path is a block device or a regular file, its size and O_DIRECT alignment,
// the whole disk underneath it with that disk's queue limits, and whether it
// is in use (mounted, held, swap, backing a loop device) — the facts the
// safety checks and the tuning report are built on. Also the helpers that
// read a disk's I/O counters and create pre-filled target files.
//
//   BLKPERF_ASSIGN_OR_RETURN(TargetInfo info, ProbeTarget("/dev/zram0"));
//   if (spec.block_size % info.logical_block_size != 0) { ... }
//   if (info.mounted || info.has_holders || info.is_swap) { ... refuse ... }
//   BLKPERF_ASSIGN_OR_RETURN(DeviceStat before,
//   ReadDeviceStat(info.stat_path));
//
// Everything here reads sysfs and procfs; nothing is for the I/O hot path.
#ifndef BLKPERF_DAEMON_ENGINE_TARGET_H_
#define BLKPERF_DAEMON_ENGINE_TARGET_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/engine/target_info.h"

namespace blkperf {

// Describes the block device or regular file at `path` (symlinks followed)
// without opening it for writing. Errors: NotFound when `path` does not
// exist; InvalidArgument when it is neither a block device nor a regular file;
// other errno-derived codes from stat. Every message names the path.
absl::StatusOr<TargetInfo> ProbeTarget(absl::string_view path);

// A disk's cumulative I/O counters, from /sys/block/<dev>/stat; fields and
// units per the kernel's Documentation/block/stat.rst (sectors are 512 bytes,
// ticks are milliseconds). Fields the running kernel does not report (discard
// before 4.18, flush before 5.5) are 0.
struct DeviceStat {
  uint64_t read_ios = 0;
  uint64_t read_merges = 0;
  uint64_t read_sectors = 0;
  uint64_t read_ticks = 0;
  uint64_t write_ios = 0;
  uint64_t write_merges = 0;
  uint64_t write_sectors = 0;
  uint64_t write_ticks = 0;
  uint64_t in_flight = 0;
  uint64_t io_ticks = 0;
  uint64_t time_in_queue = 0;
  uint64_t discard_ios = 0;
  uint64_t discard_merges = 0;
  uint64_t discard_sectors = 0;
  uint64_t discard_ticks = 0;
  uint64_t flush_ios = 0;
  uint64_t flush_ticks = 0;
};

// Parses the stat file at `stat_path` (usually TargetInfo::stat_path).
// Errors: errno-derived (NotFound ...) when it cannot be read;
// InvalidArgument when it holds fewer than the 11 original fields or a field
// that is not an unsigned integer. Messages name the path.
absl::StatusOr<DeviceStat> ReadDeviceStat(absl::string_view stat_path);

// The CPU frequency governor of cpu0 ("performance", "powersave" ...), or ""
// when cpufreq is absent (as in most VMs). A tuning fact for reports.
std::string CpuFrequencyGovernor();

// Makes `path` a regular file of at least `size` bytes holding the
// verification pattern of `seed` (see verify_pattern.h): creates it if
// missing (mode 0644); if it is smaller than `size`, writes the pattern over
// [old size rounded down to 4096, size) and fsyncs. A file already `size`
// bytes or larger is left untouched. Never writes to anything but a regular
// file: InvalidArgument (naming the path) when `path` exists and is not one.
// Other errors are errno-derived and name the path.
absl::Status CreateAndPrefillFile(absl::string_view path, uint64_t size,
                                  uint64_t seed);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_TARGET_H_
