// What a target is, as plain values: the facts ProbeTarget (target.h)
// finds and that reports, the wire conversions (//wire) and clients share.
// Data only: no probing, no syscalls, so code that prints or converts a
// remote target links this and not the probing code.
//
//   TargetInfo info = TargetInfoFromProto(response.target());
//   if (info.kind == TargetKind::kBlockDevice && info.limits.io_poll) ...
#ifndef BLKPERF_MODEL_TARGET_INFO_H_
#define BLKPERF_MODEL_TARGET_INFO_H_

#include <cstdint>
#include <string>

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
  // Largest discard the device takes; 0: it cannot discard (trim ops are
  // refused).
  uint64_t discard_max_bytes = 0;
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

// kNop: the stand-in target of a NOP workload (WorkloadSpec::nop): no
// file, no device, nothing opened.
enum class TargetKind { kBlockDevice, kRegularFile, kNop };

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
  // The target's identity as fstat/stat saw it: st_dev and st_ino (files),
  // st_rdev (block devices). Two entries naming one target (a hard link, a
  // second node of one device) have equal identities.
  uint64_t st_dev = 0;
  uint64_t st_ino = 0;
  uint64_t st_rdev = 0;
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_TARGET_INFO_H_
