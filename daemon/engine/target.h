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

namespace blkperf {

// A disk's request-queue limits and settings, from
// /sys/block/<whole-disk>/queue/*. Each field is 0 (or "") when its file is
// absent, as on older kernels or for devices without a request queue.
struct QueueLimits {
  uint32_t logical_block_size = 0;
  uint32_t physical_block_size = 0;
  uint32_t max_sectors_kb = 0;
  uint32_t max_hw_sectors_kb = 0;
  uint32_t max_segments = 0;
  uint32_t max_segment_size = 0;
  uint32_t chunk_sectors = 0;
  uint32_t optimal_io_size = 0;
  uint32_t nr_requests = 0;
  uint64_t virt_boundary_mask = 0;
  bool io_poll = false;
  bool rotational = false;
  // The active I/O scheduler: "mq-deadline" from "none [mq-deadline] kyber".
  std::string scheduler;
  int nomerges = 0;
  int rq_affinity = 0;
  // "write back" or "write through".
  std::string write_cache;
  // The driver's poll_queues module parameter (nvme, virtio_blk, null_blk);
  // -1 when the driver has none or it cannot be found.
  int poll_queues = -1;
};

enum class TargetKind { kBlockDevice, kRegularFile };

struct TargetInfo {
  // The path as given.
  std::string path;
  // realpath(path).
  std::string resolved_path;
  // Whether `path` itself is a symbolic link (e.g. /dev/disk/by-id/...).
  bool path_is_symlink = false;
  TargetKind kind = TargetKind::kRegularFile;
  uint64_t size_bytes = 0;
  // The O_DIRECT alignment unit for offsets and lengths. Block devices: the
  // device's logical block size. Regular files: statx's dio_offset_align
  // where the kernel and file system report it, else the logical block size
  // of the device holding the file system, else 512.
  uint32_t logical_block_size = 0;
  // Block devices: the device's physical block size. Regular files: that of
  // the device holding the file system, else logical_block_size.
  uint32_t physical_block_size = 0;
  // The whole disk's kernel name ("zram0", "loop3", "vda", "dm-0"): of the
  // device itself, or for a regular file of the device holding its file
  // system. A partition resolves to its disk. "" when there is no such
  // device (tmpfs, overlayfs, btrfs and other anonymous-device file systems).
  std::string device_name;
  // The partition's kernel name ("vda1") when the target, or the file's file
  // system, is on a partition; "" otherwise.
  std::string partition_name;
  // "/sys/block/<device_name>/stat", or "" when device_name is "".
  std::string stat_path;
  // Of device_name; all zero when device_name is "".
  QueueLimits limits;
  // Block devices only: the device, or (for a whole disk) one of its
  // partitions, is mounted per /proc/self/mountinfo. Always false for files.
  bool mounted = false;
  // Block devices only: the device, or one of its partitions, has holders
  // (device-mapper, md, bcache ...) in /sys/class/block/<dev>/holders.
  bool has_holders = false;
  // Listed in /proc/swaps: the file itself, or for a block device the device
  // or one of its partitions.
  bool is_swap = false;
  // Name of a loop device ("loop3") whose backing file is this target; "" if
  // none. Writing to the target would change that loop device under its user.
  std::string backs_loop;
};

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
