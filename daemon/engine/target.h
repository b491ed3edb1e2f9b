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
  // The target's identity as fstat/stat saw it: st_dev and st_ino (files),
  // st_rdev (block devices). Two entries naming one target (a hard link, a
  // second node of one device) have equal identities.
  uint64_t st_dev = 0;
  uint64_t st_ino = 0;
  uint64_t st_rdev = 0;
};

// Whether `a` and `b` are one target: the same device number for block
// devices, the same inode for files.
bool SameIdentity(const TargetInfo& a, const TargetInfo& b);

// Describes the block device or regular file at `path` (symlinks followed)
// without opening it for writing. Errors: NotFound when `path` does not
// exist; InvalidArgument when it is neither a block device nor a regular file;
// other errno-derived codes from stat. Every message names the path.
absl::StatusOr<TargetInfo> ProbeTarget(absl::string_view path);

// Like ProbeTarget, but describes the already-open `fd` (any access mode,
// O_PATH included) and never resolves a path: `path` is only for messages
// and TargetInfo::path (and path_is_symlink, for reports). resolved_path is
// what /proc/self/fd shows.
absl::StatusOr<TargetInfo> ProbeTargetFd(int fd, absl::string_view path);

// Opens the file `fd` refers to again with `flags` (O_RDWR, O_DIRECT,
// O_EXCL ...) through /proc/self/fd, which names the open inode itself, not
// a path that could be swapped; checks that the new descriptor is the same
// inode. Returns the new descriptor (O_CLOEXEC); the caller closes
// it. -errno on failure (-ESTALE if it is somehow another inode).
int ReopenTarget(int fd, int flags);

// A regular file being created with create_size: an unnamed file (O_TMPFILE)
// in its directory, filled with the verification pattern and fsynced, that
// gets its name only in Publish(). Until then nothing is visible, and a
// refused or failed start (ENOSPC during the fill included) leaves nothing
// behind: the space is freed when the last descriptor closes. Move-only.
//
//   BLKPERF_ASSIGN_OR_RETURN(NewFile file,
//                            NewFile::Create(dir_fd, "t.dat", size, seed, p));
//   ... run on file.fd() ...
//   BLKPERF_RETURN_IF_ERROR(file.Publish());
class NewFile {
 public:
  // Errors name `path`: FailedPrecondition when the file system has no
  // O_TMPFILE support; ResourceExhausted for ENOSPC; other errno codes.
  static absl::StatusOr<NewFile> Create(int dir_fd, absl::string_view name,
                                        uint64_t size, uint64_t seed,
                                        absl::string_view path);
  NewFile(NewFile&& other) noexcept;
  NewFile& operator=(NewFile&& other) = delete;
  NewFile(const NewFile&) = delete;
  ~NewFile();

  // O_RDWR descriptor of the filled file; owned by this object.
  int fd() const { return fd_; }
  // Links the file into its directory under its name. AlreadyExists when
  // something took the name meanwhile (the file then stays unnamed).
  absl::Status Publish();

 private:
  NewFile(int dir_fd, int fd, std::string name, std::string path);
  int dir_fd_ = -1;  // a dup, owned
  int fd_ = -1;
  std::string name_;
  std::string path_;
};

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

// Makes sure `path` is a regular file of at least `size` bytes: when it is
// missing, creates it (mode 0644) holding the verification pattern of `seed`
// (see verify_pattern.h) with NewFile, so the name appears only once the
// file is complete. An existing regular file of `size` bytes or more is left
// untouched. An existing file that is smaller is never extended or used:
// FailedPrecondition (it may be someone else's, or partial). Never writes to
// anything but a new regular file: InvalidArgument (naming the path) when
// `path` exists and is not one; the last component must not be a symlink.
// Other errors are errno-derived and name the path.
absl::Status CreateAndPrefillFile(absl::string_view path, uint64_t size,
                                  uint64_t seed);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_TARGET_H_
