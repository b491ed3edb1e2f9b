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
#ifndef BLKPERF_DAEMON_ENGINE_TARGET_TARGET_H_
#define BLKPERF_DAEMON_ENGINE_TARGET_TARGET_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/target_info.h"

namespace blkperf {

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

// A fill's progress, shared with whoever watches or cancels it (the daemon:
// `blkperf list` shows it; StopWorkload and shutdown cancel it).
struct FillProgress {
  std::atomic<uint64_t> filled_bytes{0};
  std::atomic<uint64_t> total_bytes{0};
  // Set to stop the fill: it ends with Cancelled within one chunk (1 MiB).
  std::atomic<bool> cancel{false};
};

// The free space a create leaves on its file system: 5 % of the file
// system's size. A create_size that would leave less is refused before a
// byte is written.
inline constexpr uint64_t kCreateReservePercent = 5;

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
  // O_TMPFILE support; ResourceExhausted for ENOSPC and when `size` would
  // leave less than kCreateReservePercent of the file system free (checked
  // before writing); Cancelled when `progress->cancel` was set; other errno
  // codes. `progress` (optional, must outlive the call) is updated per
  // chunk.
  static absl::StatusOr<NewFile> Create(int dir_fd, absl::string_view name,
                                        uint64_t size, uint64_t seed,
                                        absl::string_view path,
                                        FillProgress* progress = nullptr);
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

// The CPU frequency governor of cpu0 ("performance", "powersave" ...), as
// <sysfs_root>/devices/system/cpu/cpu0/cpufreq/scaling_governor says,
// whitespace-trimmed; "" when cpufreq is absent (as in most VMs) or the file
// cannot be read. A tuning fact for reports. Tests pass a root of their own.
std::string CpuFrequencyGovernor(absl::string_view sysfs_root = "/sys");

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

#endif  // BLKPERF_DAEMON_ENGINE_TARGET_TARGET_H_
