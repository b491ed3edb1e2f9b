#include "daemon/engine/target/target.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "base/unique_fd.h"
#include "daemon/engine/verify/verify_pattern.h"

namespace blkperf {
namespace {

// Reads a whole file; meant for procfs and sysfs, whose files report no size.
absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  std::string contents;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("read ", path));
    }
    contents.append(buf, static_cast<size_t>(n));
  }
  return contents;
}

// A sysfs attribute, whitespace-trimmed; "" when absent or unreadable, which
// is how optional attributes of older kernels and simpler drivers look.
std::string ReadAttr(const std::string& path) {
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  if (!contents.ok()) return "";
  return std::string(absl::StripAsciiWhitespace(*contents));
}

// A numeric sysfs attribute; 0 when absent or not a number.
template <typename T>
T ReadNumberAttr(const std::string& path) {
  T value = 0;
  if (!absl::SimpleAtoi(ReadAttr(path), &value)) return 0;
  return value;
}

std::optional<std::string> RealPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  std::string result(resolved);
  free(resolved);
  return result;
}

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

absl::string_view Dirname(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? absl::string_view()
                                          : path.substr(0, slash);
}

// Names in a directory, without "." and ".."; empty when it cannot be read.
std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const absl::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());  // readdir order is arbitrary.
  return names;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Parses sysfs's and mountinfo's "MAJ:MIN".
std::optional<dev_t> ParseDevT(absl::string_view text) {
  const std::pair<absl::string_view, absl::string_view> parts =
      absl::StrSplit(absl::StripAsciiWhitespace(text), absl::MaxSplits(':', 1));
  unsigned int maj = 0;
  unsigned int min = 0;
  if (!absl::SimpleAtoi(parts.first, &maj) ||
      !absl::SimpleAtoi(parts.second, &min)) {
    return std::nullopt;
  }
  return makedev(maj, min);
}

const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "directory";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISLNK(mode)) return "symbolic link";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISREG(mode)) return "regular file";
  return "special file";
}

// A block device node as sysfs knows it.
struct BlockNode {
  dev_t dev = 0;
  std::string name;  // This node's kernel name: "vda1", "loop3".
  std::string disk;  // Its whole disk: "vda", "loop3".
  bool is_partition = false;
  std::string sysfs_dir;  // Canonical /sys/devices/.../<name>.
};

// Finds `dev` in sysfs; nullopt for anonymous devices (tmpfs, overlayfs,
// btrfs) and where sysfs is not mounted.
std::optional<BlockNode> ResolveBlockNode(dev_t dev) {
  std::optional<std::string> dir =
      RealPath(absl::StrCat("/sys/dev/block/", major(dev), ":", minor(dev)));
  if (!dir.has_value()) return std::nullopt;
  BlockNode node;
  node.dev = dev;
  node.sysfs_dir = *std::move(dir);
  node.name = std::string(Basename(node.sysfs_dir));
  // A partition's sysfs directory sits inside its disk's and carries a
  // "partition" attribute (its number).
  node.is_partition = Exists(node.sysfs_dir + "/partition");
  node.disk = node.is_partition ? std::string(Basename(Dirname(node.sysfs_dir)))
                                : node.name;
  return node;
}

// The node itself and, for a whole disk, its partitions: the set that must
// all be idle before the disk can be written.
std::vector<BlockNode> NodeAndPartitions(const BlockNode& node) {
  std::vector<BlockNode> nodes = {node};
  if (node.is_partition) return nodes;
  for (const std::string& name : ListDir(node.sysfs_dir)) {
    const std::string dir = absl::StrCat(node.sysfs_dir, "/", name);
    if (!Exists(dir + "/partition")) continue;
    std::optional<dev_t> dev = ParseDevT(ReadAttr(dir + "/dev"));
    if (!dev.has_value()) continue;
    nodes.push_back(BlockNode{.dev = *dev,
                              .name = name,
                              .disk = node.disk,
                              .is_partition = true,
                              .sysfs_dir = dir});
  }
  return nodes;
}

// The driver's poll_queues module parameter, found by walking up from the
// disk's device to the first ancestor bound to a driver (for nvme the
// namespace's controller has none; its PCI function does).
int PollQueues(const std::string& disk) {
  std::vector<std::string> modules;
  std::optional<std::string> dir =
      RealPath(absl::StrCat("/sys/block/", disk, "/device"));
  for (int depth = 0; dir.has_value() && depth < 8 && modules.empty() &&
                      absl::StartsWith(*dir, "/sys/devices/");
       ++depth, dir = std::string(Dirname(*dir))) {
    // Built-in drivers may lack the "module" link; their name then is the
    // /sys/module name, with '-' spelled '_'.
    for (const char* link : {"/driver/module", "/driver"}) {
      if (std::optional<std::string> target = RealPath(*dir + link)) {
        modules.push_back(absl::StrReplaceAll(Basename(*target), {{"-", "_"}}));
      }
    }
  }
  // null_blk devices have no parent device at all.
  if (absl::StartsWith(disk, "nullb")) modules.push_back("null_blk");
  for (const std::string& module : modules) {
    int value = 0;
    if (absl::SimpleAtoi(ReadAttr(absl::StrCat("/sys/module/", module,
                                               "/parameters/poll_queues")),
                         &value)) {
      return value;
    }
  }
  return -1;
}

QueueLimits ReadQueueLimits(const std::string& disk) {
  const std::string queue = absl::StrCat("/sys/block/", disk, "/queue/");
  QueueLimits limits;
  limits.logical_block_size =
      ReadNumberAttr<uint32_t>(queue + "logical_block_size");
  limits.physical_block_size =
      ReadNumberAttr<uint32_t>(queue + "physical_block_size");
  limits.max_sectors_kb = ReadNumberAttr<uint32_t>(queue + "max_sectors_kb");
  limits.max_hw_sectors_kb =
      ReadNumberAttr<uint32_t>(queue + "max_hw_sectors_kb");
  limits.max_segments = ReadNumberAttr<uint32_t>(queue + "max_segments");
  limits.max_segment_size =
      ReadNumberAttr<uint32_t>(queue + "max_segment_size");
  limits.chunk_sectors = ReadNumberAttr<uint32_t>(queue + "chunk_sectors");
  limits.optimal_io_size = ReadNumberAttr<uint32_t>(queue + "optimal_io_size");
  limits.nr_requests = ReadNumberAttr<uint32_t>(queue + "nr_requests");
  limits.virt_boundary_mask =
      ReadNumberAttr<uint64_t>(queue + "virt_boundary_mask");
  limits.discard_max_bytes =
      ReadNumberAttr<uint64_t>(queue + "discard_max_bytes");
  limits.io_poll = ReadNumberAttr<int>(queue + "io_poll") != 0;
  limits.rotational = ReadNumberAttr<int>(queue + "rotational") != 0;
  // "none [mq-deadline] kyber": the bracketed one is active. Devices with a
  // single choice may print it bare.
  const std::string scheduler = ReadAttr(queue + "scheduler");
  const size_t open = scheduler.find('[');
  const size_t close = scheduler.find(']', open);
  limits.scheduler = open != std::string::npos && close != std::string::npos
                         ? scheduler.substr(open + 1, close - open - 1)
                         : scheduler;
  limits.nomerges = ReadNumberAttr<int>(queue + "nomerges");
  limits.rq_affinity = ReadNumberAttr<int>(queue + "rq_affinity");
  limits.write_cache = ReadAttr(queue + "write_cache");
  limits.poll_queues = PollQueues(disk);
  return limits;
}

// Devices with a mounted file system, from mountinfo's third field.
absl::flat_hash_set<dev_t> MountedDevices() {
  absl::flat_hash_set<dev_t> devices;
  absl::StatusOr<std::string> mountinfo =
      ReadFileToString("/proc/self/mountinfo");
  if (!mountinfo.ok()) return devices;
  for (absl::string_view line :
       absl::StrSplit(*mountinfo, '\n', absl::SkipEmpty())) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    if (fields.size() < 3) continue;
    if (std::optional<dev_t> dev = ParseDevT(fields[2])) devices.insert(*dev);
  }
  return devices;
}

// Undoes the kernel's octal escaping of ' ', '\t', '\n' and '\\' in paths
// shown by /proc/swaps ("\040" for a space).
std::string UnescapeProcPath(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] >= '0' &&
        text[i + 1] <= '3' && text[i + 2] >= '0' && text[i + 2] <= '7' &&
        text[i + 3] >= '0' && text[i + 3] <= '7') {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 +
                                      (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// stat() results of the paths in /proc/swaps that still exist.
std::vector<struct stat> SwapAreas() {
  std::vector<struct stat> areas;
  absl::StatusOr<std::string> swaps = ReadFileToString("/proc/swaps");
  if (!swaps.ok()) return areas;
  bool header = true;
  for (absl::string_view line :
       absl::StrSplit(*swaps, '\n', absl::SkipEmpty())) {
    if (std::exchange(header, false)) continue;  // "Filename Type Size ..."
    const std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.empty()) continue;
    struct stat st;
    if (stat(UnescapeProcPath(fields[0]).c_str(), &st) == 0)
      areas.push_back(st);
  }
  return areas;
}

// Whether `a` (from a path someone else names) is the target `b`: the same
// device for block devices, the same inode for files.
bool SameTarget(const struct stat& a, const struct stat& b) {
  if (S_ISBLK(b.st_mode)) return S_ISBLK(a.st_mode) && a.st_rdev == b.st_rdev;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The first loop device whose backing file is `target`; "" if none.
std::string LoopBackedBy(const struct stat& target) {
  for (const std::string& name : ListDir("/sys/block")) {
    std::string backing =
        ReadAttr(absl::StrCat("/sys/block/", name, "/loop/backing_file"));
    // A deleted backing file cannot be the target we just stat'ed by path.
    if (backing.empty() || absl::EndsWith(backing, " (deleted)")) continue;
    struct stat st;
    if (stat(backing.c_str(), &st) == 0 && SameTarget(st, target)) return name;
  }
  return "";
}

// Size and block sizes straight from the device, for a block device node
// that sysfs does not describe (e.g. sysfs not mounted in a container).
absl::Status ProbeBlockDeviceByIoctl(const std::string& path,
                                     TargetInfo& info) {
  // O_RDONLY: probing must never open a device for writing. O_NONBLOCK:
  // removable devices without media still open.
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0)
    return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  uint64_t size = 0;
  int logical = 0;
  unsigned int physical = 0;
  if (ioctl(fd.get(), BLKGETSIZE64, &size) != 0 ||
      ioctl(fd.get(), BLKSSZGET, &logical) != 0 ||
      ioctl(fd.get(), BLKPBSZGET, &physical) != 0) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat("block device ioctl on ", path));
  }
  info.size_bytes = size;
  info.logical_block_size = static_cast<uint32_t>(logical);
  info.physical_block_size = physical;
  return absl::OkStatus();
}

// The file offset alignment direct I/O on `path` needs, as statx reports it
// (ext4 and xfs since Linux 6.1); 0 when not reported.
uint32_t FileDirectIoAlignment(const std::string& path) {
#ifdef STATX_DIOALIGN
  struct statx stx;
  if (statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &stx) == 0 &&
      (stx.stx_mask & STATX_DIOALIGN) != 0) {
    return stx.stx_dio_offset_align;
  }
#endif
  return 0;
}

absl::Status WriteAll(int fd, const unsigned char* data, size_t len,
                      uint64_t offset, absl::string_view path) {
  while (len > 0) {
    const ssize_t n = pwrite(fd, data, len, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(
          errno, absl::StrCat("write ", path, " at offset ", offset));
    }
    data += n;
    len -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// In use: for a device, itself or any of its partitions (mounted, held,
// swap); for a file, only as a swap file (its file system being mounted is
// the normal case). Either may back a loop device.
void MarkInUse(const struct stat& st, const std::optional<BlockNode>& node,
               TargetInfo& info) {
  const bool is_device = S_ISBLK(st.st_mode);
  const std::vector<BlockNode> nodes = is_device && node.has_value()
                                           ? NodeAndPartitions(*node)
                                           : std::vector<BlockNode>();
  if (!nodes.empty()) {
    const absl::flat_hash_set<dev_t> mounted = MountedDevices();
    for (const BlockNode& part : nodes) {
      info.mounted |= mounted.contains(part.dev);
      info.has_holders |= !ListDir(part.sysfs_dir + "/holders").empty();
    }
  }
  for (const struct stat& area : SwapAreas()) {
    if (!is_device || nodes.empty()) {
      info.is_swap |= SameTarget(area, st);
      continue;
    }
    for (const BlockNode& part : nodes) {
      info.is_swap |= S_ISBLK(area.st_mode) && area.st_rdev == part.dev;
    }
  }
  info.backs_loop = LoopBackedBy(st);
}

// The kernel's name for an open descriptor: it reopens and stats the open
// inode itself, never a path someone could swap.
std::string FdPath(int fd) { return absl::StrCat("/proc/self/fd/", fd); }

// Fills `info` from `st` (of the target). `open_path` names the target for
// the few probes that need to open or statx it: the path itself, or
// FdPath() of a descriptor already open on it.
absl::Status DescribeTarget(const struct stat& st, const std::string& open_path,
                            TargetInfo& info) {
  if (S_ISBLK(st.st_mode)) {
    info.kind = TargetKind::kBlockDevice;
  } else if (S_ISREG(st.st_mode)) {
    info.kind = TargetKind::kRegularFile;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "target path ", info.path, " is a ", FileTypeName(st.st_mode),
        ", not a block device or regular file"));
  }
  info.st_dev = st.st_dev;
  info.st_ino = st.st_ino;
  info.st_rdev = S_ISBLK(st.st_mode) ? st.st_rdev : 0;
  const bool is_device = info.kind == TargetKind::kBlockDevice;

  // The block node of the device itself, or of the file's file system.
  const std::optional<BlockNode> node =
      ResolveBlockNode(is_device ? st.st_rdev : st.st_dev);
  if (node.has_value()) {
    info.device_name = node->disk;
    if (node->is_partition) info.partition_name = node->name;
    info.stat_path = absl::StrCat("/sys/block/", node->disk, "/stat");
    info.limits = ReadQueueLimits(node->disk);
  }

  if (is_device) {
    if (node.has_value()) {
      // sysfs "size" counts 512-byte sectors whatever the logical block
      // size; a partition has its own.
      info.size_bytes =
          ReadNumberAttr<uint64_t>(node->sysfs_dir + "/size") * 512;
      info.logical_block_size = info.limits.logical_block_size;
      info.physical_block_size = info.limits.physical_block_size;
    }
    if (info.logical_block_size == 0) {
      BLKPERF_RETURN_IF_ERROR(ProbeBlockDeviceByIoctl(open_path, info));
    }
  } else {
    info.size_bytes = static_cast<uint64_t>(st.st_size);
    info.logical_block_size = FileDirectIoAlignment(open_path);
    if (info.logical_block_size == 0) {
      info.logical_block_size = info.limits.logical_block_size != 0
                                    ? info.limits.logical_block_size
                                    : 512;
    }
    info.physical_block_size =
        std::max(info.limits.physical_block_size, info.logical_block_size);
  }
  if (info.physical_block_size == 0) {
    info.physical_block_size = info.logical_block_size;
  }
  MarkInUse(st, node, info);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TargetInfo> ProbeTarget(absl::string_view path) {
  TargetInfo info;
  info.path = std::string(path);

  struct stat st;
  if (lstat(info.path.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("stat target path ", path));
  }
  info.path_is_symlink = S_ISLNK(st.st_mode);
  // Opened once (O_PATH: no device open, no side effects); every probe
  // below looks at that inode, so a swapped link cannot mix two targets.
  UniqueFd fd(open(info.path.c_str(), O_PATH | O_CLOEXEC));
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("open target path ", path,
                            info.path_is_symlink ? " (a symbolic link)" : ""));
  }
  std::optional<std::string> resolved = RealPath(FdPath(fd.get()));
  if (!resolved.has_value()) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat("resolve target path ", path));
  }
  info.resolved_path = *std::move(resolved);
  BLKPERF_RETURN_IF_ERROR(DescribeTarget(st, FdPath(fd.get()), info));
  return info;
}

absl::StatusOr<TargetInfo> ProbeTargetFd(int fd, absl::string_view path) {
  TargetInfo info;
  info.path = std::string(path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("stat target ", path));
  }
  // A file not linked yet (NewFile) shows as "/dir/#123 (deleted)".
  std::optional<std::string> resolved = RealPath(FdPath(fd));
  info.resolved_path = resolved.has_value() && st.st_nlink > 0
                           ? *std::move(resolved)
                           : info.path;
  // For reports only ("symlink to ..."); nothing is decided on it.
  struct stat link;
  info.path_is_symlink =
      lstat(info.path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  BLKPERF_RETURN_IF_ERROR(DescribeTarget(st, FdPath(fd), info));
  return info;
}

bool SameIdentity(const TargetInfo& a, const TargetInfo& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == TargetKind::kBlockDevice) return a.st_rdev == b.st_rdev;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int ReopenTarget(int fd, int flags) {
  struct stat before;
  if (fstat(fd, &before) != 0) return -errno;
  const int reopened = open(FdPath(fd).c_str(), flags | O_CLOEXEC);
  if (reopened < 0) return -errno;
  struct stat after;
  if (fstat(reopened, &after) != 0 || after.st_dev != before.st_dev ||
      after.st_ino != before.st_ino) {
    close(reopened);
    return -ESTALE;
  }
  return reopened;
}

absl::StatusOr<DeviceStat> ReadDeviceStat(absl::string_view stat_path) {
  // In the order of Documentation/block/stat.rst.
  static constexpr uint64_t DeviceStat::*kFields[] = {
      &DeviceStat::read_ios,       &DeviceStat::read_merges,
      &DeviceStat::read_sectors,   &DeviceStat::read_ticks,
      &DeviceStat::write_ios,      &DeviceStat::write_merges,
      &DeviceStat::write_sectors,  &DeviceStat::write_ticks,
      &DeviceStat::in_flight,      &DeviceStat::io_ticks,
      &DeviceStat::time_in_queue,  &DeviceStat::discard_ios,
      &DeviceStat::discard_merges, &DeviceStat::discard_sectors,
      &DeviceStat::discard_ticks,  &DeviceStat::flush_ios,
      &DeviceStat::flush_ticks,
  };
  // Kernels before 4.18 print only the first 11.
  constexpr size_t kMinFields = 11;

  BLKPERF_ASSIGN_OR_RETURN(const std::string contents,
                           ReadFileToString(std::string(stat_path)));
  const std::vector<absl::string_view> words =
      absl::StrSplit(contents, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
  if (words.size() < kMinFields) {
    return absl::InvalidArgumentError(
        absl::StrCat("device stat file ", stat_path, " has ", words.size(),
                     " fields, expected at least ", kMinFields));
  }
  DeviceStat stat;
  // Later kernels may append fields; the known ones keep their places.
  const size_t n = std::min(words.size(), std::size(kFields));
  for (size_t i = 0; i < n; ++i) {
    if (!absl::SimpleAtoi(words[i], &(stat.*kFields[i]))) {
      return absl::InvalidArgumentError(
          absl::StrCat("device stat file ", stat_path, " field ", i + 1, " '",
                       words[i], "' is not an unsigned integer"));
    }
  }
  return stat;
}

std::string CpuFrequencyGovernor(absl::string_view sysfs_root) {
  return ReadAttr(absl::StrCat(sysfs_root,
                               "/devices/system/cpu/cpu0/cpufreq/"
                               "scaling_governor"));
}

namespace {

// ResourceExhausted unless `size` more bytes on the file system of `fd`
// leave kCreateReservePercent of it free. A file system that reports no
// size (f_blocks 0, some FUSE ones) is not judged.
absl::Status CheckFreeSpace(int fd, uint64_t size, absl::string_view path) {
  struct statvfs vfs;
  if (fstatvfs(fd, &vfs) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("statvfs ", path));
  }
  const unsigned __int128 unit = vfs.f_frsize != 0 ? vfs.f_frsize : vfs.f_bsize;
  const unsigned __int128 total = unit * vfs.f_blocks;
  if (total == 0) return absl::OkStatus();
  const unsigned __int128 available = unit * vfs.f_bavail;
  const unsigned __int128 reserve = total * kCreateReservePercent / 100;
  if (static_cast<unsigned __int128>(size) + reserve <= available) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "create ", path, ": create_size ", size, " bytes does not fit: its file "
      "system has ", static_cast<uint64_t>(available),
      " bytes available and blkperf leaves ", kCreateReservePercent, "% of its ",
      static_cast<uint64_t>(total), " bytes (",
      static_cast<uint64_t>(reserve), ") free; nothing was written"));
}

// Writes the pattern of `seed` over [0, size) of `fd`, then fsyncs.
absl::Status FillWithPattern(int fd, uint64_t size, uint64_t seed,
                             absl::string_view path, FillProgress* progress) {
  // Written in chunks this large: few syscalls, modest memory.
  constexpr size_t kChunk = 1 << 20;
  std::vector<unsigned char> chunk(kChunk);
  for (uint64_t offset = 0; offset < size;) {
    if (progress != nullptr) {
      progress->filled_bytes.store(offset, std::memory_order_relaxed);
      if (progress->cancel.load(std::memory_order_relaxed)) {
        return absl::CancelledError(absl::StrCat(
            "create ", path, ": the fill was cancelled after ", offset, " of ",
            size, " bytes; the unnamed file was discarded"));
      }
    }
    const size_t len =
        static_cast<size_t>(std::min<uint64_t>(kChunk, size - offset));
    // The pattern is defined on whole words; a ragged final length still
    // fits in the chunk because kChunk is a multiple of 8.
    FillPattern(seed, offset, chunk.data(), (len + 7) / 8 * 8);
    BLKPERF_RETURN_IF_ERROR(WriteAll(fd, chunk.data(), len, offset, path));
    offset += len;
  }
  if (fsync(fd) != 0)
    return absl::ErrnoToStatus(errno, absl::StrCat("fsync ", path));
  return absl::OkStatus();
}

}  // namespace

NewFile::NewFile(int dir_fd, int fd, std::string name, std::string path)
    : dir_fd_(dir_fd), fd_(fd), name_(std::move(name)), path_(std::move(path)) {}

NewFile::NewFile(NewFile&& other) noexcept
    : dir_fd_(std::exchange(other.dir_fd_, -1)),
      fd_(std::exchange(other.fd_, -1)),
      name_(std::move(other.name_)),
      path_(std::move(other.path_)) {}

NewFile::~NewFile() {
  if (fd_ >= 0) close(fd_);
  if (dir_fd_ >= 0) close(dir_fd_);
}

absl::StatusOr<NewFile> NewFile::Create(int dir_fd, absl::string_view name,
                                        uint64_t size, uint64_t seed,
                                        absl::string_view path,
                                        FillProgress* progress) {
  const int fd = openat(dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error_number = errno;
    if (error_number == EOPNOTSUPP || error_number == EISDIR) {
      return absl::FailedPreconditionError(absl::StrCat(
          "create ", path, ": the file system does not support unnamed "
          "files (O_TMPFILE), which create_size needs so that a failed fill "
          "leaves nothing behind; create the file beforehand"));
    }
    return absl::ErrnoToStatus(error_number, absl::StrCat("create ", path));
  }
  const int dir = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  NewFile file(dir, fd, std::string(name), std::string(path));
  if (dir < 0) return absl::ErrnoToStatus(errno, absl::StrCat("dup for ", path));
  if (progress != nullptr) progress->total_bytes.store(size);
  BLKPERF_RETURN_IF_ERROR(CheckFreeSpace(fd, size, path));
  BLKPERF_RETURN_IF_ERROR(FillWithPattern(fd, size, seed, path, progress));
  if (progress != nullptr) progress->filled_bytes.store(size);
  return file;
}

absl::Status NewFile::Publish() {
  // linkat through /proc names the open inode; no capability needed (unlike
  // AT_EMPTY_PATH), and it never replaces an existing name.
  if (linkat(AT_FDCWD, FdPath(fd_).c_str(), dir_fd_, name_.c_str(),
             AT_SYMLINK_FOLLOW) != 0) {
    const int error_number = errno;
    if (error_number == EEXIST) {
      return absl::AlreadyExistsError(absl::StrCat(
          "create ", path_, ": the name was taken while the file was being "
          "filled; the new file was discarded"));
    }
    return absl::ErrnoToStatus(error_number, absl::StrCat("link ", path_));
  }
  return absl::OkStatus();
}

absl::Status CreateAndPrefillFile(absl::string_view path, uint64_t size,
                                  uint64_t seed) {
  const std::string file(path);
  const size_t slash = file.rfind('/');
  const std::string dir_name = slash == std::string::npos ? "."
                               : slash == 0               ? "/"
                                             : file.substr(0, slash);
  const std::string name(Basename(file));
  UniqueFd dir(open(dir_name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0)
    return absl::ErrnoToStatus(errno, absl::StrCat("create ", path));
  struct stat st;
  if (fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT)
      return absl::ErrnoToStatus(errno, absl::StrCat("stat target path ", path));
    BLKPERF_ASSIGN_OR_RETURN(NewFile created,
                             NewFile::Create(dir.get(), name, size, seed, path));
    return created.Publish();
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target path ", path, " is a ", FileTypeName(st.st_mode),
                     ", not a regular file; refusing to fill it"));
  }
  if (static_cast<uint64_t>(st.st_size) < size) {
    return absl::FailedPreconditionError(absl::StrCat(
        "target path ", path, " exists with ", st.st_size,
        " bytes, less than create_size ", size,
        "; blkperf never extends or fills an existing file (it may be "
        "partial or someone else's): remove it or give a size it holds"));
  }
  return absl::OkStatus();
}

}  // namespace blkperf
