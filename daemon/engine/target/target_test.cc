#include "daemon/engine/target/target.h"

#include <fcntl.h>
#include <linux/blkpg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/engine/verify/verify_pattern.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMiB = 1 << 20;

// A fresh path under the test's private temporary directory.
std::string TempPath(absl::string_view name) {
  static int counter = 0;
  return absl::StrCat(testing::TempDir(), "/target_test_", getpid(), "_",
                      counter++, "_", name);
}

void WriteFile(const std::string& path, const std::string& contents) {
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path << ": " << strerror(errno);
  ASSERT_EQ(fwrite(contents.data(), 1, contents.size(), f), contents.size());
  ASSERT_EQ(fclose(f), 0);
}

// Up to `max_size` bytes from the start of `path`.
std::string ReadFile(const std::string& path, size_t max_size = SIZE_MAX) {
  std::string contents;
  FILE* f = fopen(path.c_str(), "r");
  if (f == nullptr) return contents;
  char buf[65536];
  size_t n;
  while (contents.size() < max_size &&
         (n = fread(buf, 1, std::min(sizeof(buf), max_size - contents.size()),
                    f)) > 0) {
    contents.append(buf, n);
  }
  fclose(f);
  return contents;
}

// A sparse file of `size` bytes: reads back as zeroes.
void CreateSparseFile(const std::string& path, uint64_t size) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0) << path << ": " << strerror(errno);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0) << strerror(errno);
  close(fd);
}

// Runs a shell command; returns its exit status and its output in `*output`.
int RunCommand(const std::string& command, std::string* output) {
  output->clear();
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) output->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Expects `data` to be the pattern of `seed` at offset `offset`, including a
// final partial word.
void ExpectPattern(const std::string& data, uint64_t seed, uint64_t offset) {
  const size_t whole = data.size() / 8 * 8;
  EXPECT_EQ(FindPatternMismatch(seed, offset, data.data(), whole), -1);
  if (whole == data.size()) return;
  const uint64_t last = PatternWord(seed, offset + whole);
  EXPECT_EQ(std::memcmp(data.data() + whole, &last, data.size() - whole), 0)
      << "final partial word differs";
}

TEST(ProbeTargetTest, RegularFile) {
  const std::string path = TempPath("file");
  WriteFile(path, std::string(kMiB + 4096, 'x'));

  absl::StatusOr<TargetInfo> info = ProbeTarget(path);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, TargetKind::kRegularFile);
  EXPECT_EQ(info->path, path);
  char* real = realpath(path.c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  EXPECT_EQ(info->resolved_path, real);
  free(real);
  EXPECT_FALSE(info->path_is_symlink);
  EXPECT_EQ(info->size_bytes, kMiB + 4096);
  EXPECT_GE(info->logical_block_size, 512u);
  EXPECT_EQ(info->logical_block_size & (info->logical_block_size - 1), 0u)
      << "not a power of two: " << info->logical_block_size;
  EXPECT_GE(info->physical_block_size, info->logical_block_size);
  EXPECT_FALSE(info->mounted);
  EXPECT_FALSE(info->has_holders);
  EXPECT_FALSE(info->is_swap);
  EXPECT_EQ(info->backs_loop, "");

  // On a file system with a real device (the ext4 root here), the device
  // and its stat file are found.
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  if (major(st.st_dev) != 0) {
    EXPECT_NE(info->device_name, "");
    EXPECT_EQ(info->stat_path,
              absl::StrCat("/sys/block/", info->device_name, "/stat"));
    EXPECT_EQ(access(info->stat_path.c_str(), R_OK), 0) << info->stat_path;
    EXPECT_GT(info->limits.logical_block_size, 0u);
    EXPECT_GT(info->limits.max_sectors_kb, 0u);
  }
  unlink(path.c_str());
}

TEST(ProbeTargetTest, RootFileSystemHasDevice) {
  struct stat st;
  ASSERT_EQ(stat("/", &st), 0);
  if (major(st.st_dev) == 0) {
    GTEST_SKIP() << "/ is on an anonymous device (overlay or tmpfs root)";
  }
  // Probe an existing file on / itself (the temp dir may be elsewhere).
  std::string path;
  for (const char* candidate : {"/etc/passwd", "/etc/os-release", "/bin/sh"}) {
    struct stat file_st;
    if (stat(candidate, &file_st) == 0 && S_ISREG(file_st.st_mode) &&
        file_st.st_dev == st.st_dev) {
      path = candidate;
      break;
    }
  }
  if (path.empty()) GTEST_SKIP() << "found no regular file on /";
  absl::StatusOr<TargetInfo> info = ProbeTarget(path);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_NE(info->device_name, "");
  EXPECT_FALSE(absl::StartsWith(info->device_name, "/"));
  EXPECT_NE(info->stat_path, "");
}

TEST(ProbeTargetTest, SymlinkIsFollowedAndReported) {
  const std::string file = TempPath("file");
  const std::string link = TempPath("link");
  WriteFile(file, std::string(8192, 'y'));
  ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0) << strerror(errno);

  absl::StatusOr<TargetInfo> info = ProbeTarget(link);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->path_is_symlink);
  EXPECT_EQ(info->path, link);
  char* real = realpath(file.c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  EXPECT_EQ(info->resolved_path, real);
  free(real);
  EXPECT_EQ(info->size_bytes, 8192u);
  unlink(link.c_str());
  unlink(file.c_str());
}

TEST(ProbeTargetTest, MissingPathIsNotFound) {
  const std::string path = TempPath("missing");
  absl::StatusOr<TargetInfo> info = ProbeTarget(path);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(info.status().message(), HasSubstr(path));
}

TEST(ProbeTargetTest, DanglingSymlinkIsNotFound) {
  const std::string link = TempPath("dangling");
  ASSERT_EQ(symlink(TempPath("nowhere").c_str(), link.c_str()), 0);
  absl::StatusOr<TargetInfo> info = ProbeTarget(link);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(info.status().message(), HasSubstr(link));
  unlink(link.c_str());
}

TEST(ProbeTargetTest, DirectoryIsInvalidArgument) {
  const std::string dir = TempPath("dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  absl::StatusOr<TargetInfo> info = ProbeTarget(dir);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr(dir));
  EXPECT_THAT(info.status().message(), HasSubstr("directory"));
  rmdir(dir.c_str());
}

TEST(ProbeTargetTest, CharacterDeviceIsInvalidArgument) {
  absl::StatusOr<TargetInfo> info = ProbeTarget("/dev/null");
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("/dev/null"));
  EXPECT_THAT(info.status().message(), HasSubstr("character device"));
}

TEST(ReadDeviceStatTest, ParsesAllSeventeenFields) {
  const std::string path = TempPath("stat");
  // The kernel pads each field to a width; parse must not care.
  WriteFile(path,
            "    1234       56    78900      432   987654        3 "
            "123456789      999        2     7777     8888      11       12"
            "       13       14       15       16\n");
  absl::StatusOr<DeviceStat> stat = ReadDeviceStat(path);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->read_ios, 1234u);
  EXPECT_EQ(stat->read_merges, 56u);
  EXPECT_EQ(stat->read_sectors, 78900u);
  EXPECT_EQ(stat->read_ticks, 432u);
  EXPECT_EQ(stat->write_ios, 987654u);
  EXPECT_EQ(stat->write_merges, 3u);
  EXPECT_EQ(stat->write_sectors, 123456789u);
  EXPECT_EQ(stat->write_ticks, 999u);
  EXPECT_EQ(stat->in_flight, 2u);
  EXPECT_EQ(stat->io_ticks, 7777u);
  EXPECT_EQ(stat->time_in_queue, 8888u);
  EXPECT_EQ(stat->discard_ios, 11u);
  EXPECT_EQ(stat->discard_merges, 12u);
  EXPECT_EQ(stat->discard_sectors, 13u);
  EXPECT_EQ(stat->discard_ticks, 14u);
  EXPECT_EQ(stat->flush_ios, 15u);
  EXPECT_EQ(stat->flush_ticks, 16u);
  unlink(path.c_str());
}

TEST(ReadDeviceStatTest, OldKernelElevenFieldsLeaveTheRestZero) {
  const std::string path = TempPath("stat");
  WriteFile(path, "1 2 3 4 5 6 7 8 9 10 18446744073709551615\n");
  absl::StatusOr<DeviceStat> stat = ReadDeviceStat(path);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->read_ios, 1u);
  EXPECT_EQ(stat->io_ticks, 10u);
  EXPECT_EQ(stat->time_in_queue, UINT64_MAX);
  EXPECT_EQ(stat->discard_ios, 0u);
  EXPECT_EQ(stat->flush_ticks, 0u);
  unlink(path.c_str());
}

TEST(ReadDeviceStatTest, MalformedFileIsInvalidArgumentNamingPath) {
  const std::string short_path = TempPath("short");
  WriteFile(short_path, "1 2 3\n");
  absl::StatusOr<DeviceStat> stat = ReadDeviceStat(short_path);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr(short_path));

  const std::string bad_path = TempPath("bad");
  WriteFile(bad_path, "1 2 3 4 five 6 7 8 9 10 11\n");
  stat = ReadDeviceStat(bad_path);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr(bad_path));
  EXPECT_THAT(stat.status().message(), HasSubstr("'five'"));
  unlink(short_path.c_str());
  unlink(bad_path.c_str());
}

TEST(ReadDeviceStatTest, MissingFileIsNotFound) {
  const std::string path = TempPath("missing_stat");
  absl::StatusOr<DeviceStat> stat = ReadDeviceStat(path);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(stat.status().message(), HasSubstr(path));
}

TEST(ReadDeviceStatTest, ReadsTheDeviceUnderTheTempDir) {
  const std::string path = TempPath("file");
  WriteFile(path, "z");
  absl::StatusOr<TargetInfo> info = ProbeTarget(path);
  unlink(path.c_str());
  ASSERT_TRUE(info.ok()) << info.status();
  if (info->stat_path.empty()) {
    GTEST_SKIP() << "the temp dir is on a file system without a block device";
  }
  absl::StatusOr<DeviceStat> stat = ReadDeviceStat(info->stat_path);
  ASSERT_TRUE(stat.ok()) << stat.status();
  // The disk holding the test's own files has served I/O since boot.
  EXPECT_GT(stat->read_ios + stat->write_ios, 0u);
  EXPECT_GE(stat->read_sectors, stat->read_ios);
}

// A sysfs tree of the test's own: cpu0's cpufreq directory, with a
// scaling_governor file holding `governor` unless it is null.
std::string FakeSysfs(const char* governor) {
  const std::string root = TempPath("sysfs");
  std::string dir = root;
  for (const char* part :
       {"", "/devices", "/system", "/cpu", "/cpu0", "/cpufreq"}) {
    dir += part;
    EXPECT_EQ(mkdir(dir.c_str(), 0755), 0) << dir << ": " << strerror(errno);
  }
  if (governor != nullptr) WriteFile(dir + "/scaling_governor", governor);
  return root;
}

TEST(CpuFrequencyGovernorTest, ReadsCpu0sGovernorTrimmed) {
  EXPECT_EQ(CpuFrequencyGovernor(FakeSysfs("schedutil\n")), "schedutil");
  EXPECT_EQ(CpuFrequencyGovernor(FakeSysfs("  performance \n")),
            "performance");
}

TEST(CpuFrequencyGovernorTest, EmptyWithoutCpufreq) {
  EXPECT_EQ(CpuFrequencyGovernor(FakeSysfs(nullptr)), "");
  EXPECT_EQ(CpuFrequencyGovernor(TempPath("no_such_root")), "");
}

TEST(CreateAndPrefillFileTest, CreatesFileHoldingThePattern) {
  const std::string path = TempPath("prefill");
  // Several chunks and a ragged end, to cover the partial final word.
  constexpr uint64_t kSize = 3 * kMiB + 100;
  ASSERT_TRUE(CreateAndPrefillFile(path, kSize, 77).ok());

  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), kSize);
  const mode_t mask = umask(0);
  umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0644 & ~mask);
  ExpectPattern(ReadFile(path), 77, 0);
  unlink(path.c_str());
}

TEST(CreateAndPrefillFileTest, NeverExtendsOrFillsAnExistingFile) {
  const std::string path = TempPath("existing");
  WriteFile(path, std::string(5000, '\xab'));
  // Smaller than create_size: refused (it may be partial or someone
  // else's), and left exactly as it was.
  const absl::Status smaller = CreateAndPrefillFile(path, 10000, 5);
  EXPECT_EQ(smaller.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(smaller.message(), HasSubstr("5000 bytes"));
  EXPECT_THAT(smaller.message(), HasSubstr("create_size 10000"));
  EXPECT_EQ(ReadFile(path), std::string(5000, '\xab'));

  // Large enough already: used as it is, never truncated.
  ASSERT_TRUE(CreateAndPrefillFile(path, 2000, 6).ok());
  EXPECT_EQ(ReadFile(path), std::string(5000, '\xab'));
  unlink(path.c_str());
}

TEST(CreateAndPrefillFileTest, RefusesSymlinkAsLastComponent) {
  const std::string victim = TempPath("victim");
  const std::string link = TempPath("link");
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  const absl::Status status = CreateAndPrefillFile(link, 4096, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("symbolic link"));
  struct stat st;
  EXPECT_NE(stat(victim.c_str(), &st), 0) << "the link's target was created";
  unlink(link.c_str());
}

TEST(NewFileTest, InvisibleUntilPublishedAndGoneWhenDropped) {
  const std::string dir = TempPath("newfile_dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const int dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir_fd, 0);
  {
    absl::StatusOr<NewFile> dropped =
        NewFile::Create(dir_fd, "a", 64 * 1024, 3, dir + "/a");
    ASSERT_TRUE(dropped.ok()) << dropped.status();
    struct stat st;
    EXPECT_NE(stat((dir + "/a").c_str(), &st), 0);
  }
  absl::StatusOr<NewFile> kept =
      NewFile::Create(dir_fd, "b", 64 * 1024 + 3, 4, dir + "/b");
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_TRUE(kept->Publish().ok());
  ExpectPattern(ReadFile(dir + "/b"), 4, 0);
  // A second publish of another file under the taken name is refused.
  absl::StatusOr<NewFile> late = NewFile::Create(dir_fd, "b", 4096, 5, "b");
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_EQ(late->Publish().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(ReadFile(dir + "/b").size(), 64u * 1024 + 3);
  close(dir_fd);
  unlink((dir + "/b").c_str());
  EXPECT_EQ(rmdir(dir.c_str()), 0) << "a dropped file was left behind";
}

// A create_size no file system here holds is refused at once, before a
// byte is written, and leaves nothing.
TEST(NewFileTest, RefusesASizeItsFileSystemCannotHoldBeforeWriting) {
  const std::string dir = TempPath("newfile_huge");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const std::string path = dir + "/huge";
  const absl::Time start = absl::Now();
  const absl::Status status = CreateAndPrefillFile(path, 100ull << 40, 7);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("create_size 109951162777600"));
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_EQ(rmdir(dir.c_str()), 0) << "something was left in " << dir;
}

TEST(NewFileTest, FillReportsProgressAndStopsWhenCancelled) {
  const std::string dir = TempPath("newfile_cancel");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const int dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir_fd, 0);
  FillProgress done;
  absl::StatusOr<NewFile> whole =
      NewFile::Create(dir_fd, "a", 3 * kMiB, 1, dir + "/a", &done);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(done.total_bytes.load(), 3 * kMiB);
  EXPECT_EQ(done.filled_bytes.load(), 3 * kMiB);
  FillProgress stopped;
  stopped.cancel.store(true);
  absl::StatusOr<NewFile> cancelled =
      NewFile::Create(dir_fd, "b", 3 * kMiB, 1, dir + "/b", &stopped);
  EXPECT_EQ(cancelled.status().code(), absl::StatusCode::kCancelled)
      << cancelled.status();
  EXPECT_THAT(cancelled.status().message(), HasSubstr("after 0 of 3145728"));
  close(dir_fd);
  EXPECT_EQ(rmdir(dir.c_str()), 0) << "a fill left a file behind";
}

// ENOSPC in the middle of a fill, on a 1 MiB tmpfs this test mounts: the
// error says so and nothing is left, not even the space.
TEST(NewFileTest, FillOutOfSpaceLeavesNothing) {
  const std::string dir = TempPath("tmpfs");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  std::string output;
  ASSERT_EQ(RunCommand("mount -t tmpfs -o size=1m blkperf_test " + dir,
                       &output), 0)
      << "mounting a tmpfs needs root: " << output;
  const std::string path = dir + "/big.dat";
  const absl::Status status = CreateAndPrefillFile(path, 4 * kMiB, 7);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr(path));
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0) << "a partial file was left";
  RunCommand("df --output=used -B1 " + dir + " | tail -1", &output);
  EXPECT_EQ(std::string(absl::StripAsciiWhitespace(output)), "0");
  // One that fits but would leave less than 5 % free is refused unwritten.
  const absl::Status tight = CreateAndPrefillFile(path, kMiB - 8192, 7);
  EXPECT_EQ(tight.code(), absl::StatusCode::kResourceExhausted) << tight;
  EXPECT_THAT(tight.message(), HasSubstr("nothing was written"));
  EXPECT_NE(stat(path.c_str(), &st), 0) << "a refused file was left";
  // The space is back: a file that fits is created whole.
  EXPECT_TRUE(CreateAndPrefillFile(path, kMiB / 2, 7).ok());
  ExpectPattern(ReadFile(path), 7, 0);
  RunCommand("umount " + dir, &output);
  rmdir(dir.c_str());
}

TEST(CreateAndPrefillFileTest, RejectsDirectory) {
  const std::string dir = TempPath("dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const absl::Status status = CreateAndPrefillFile(dir, 4096, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(dir));
  rmdir(dir.c_str());
}

TEST(CreateAndPrefillFileTest, RejectsCharacterDevice) {
  const absl::Status status = CreateAndPrefillFile("/dev/null", 4096, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("/dev/null"));
}

TEST(CreateAndPrefillFileTest, MissingDirectoryIsNotFound) {
  const std::string path = TempPath("no_such_dir") + "/file";
  const absl::Status status = CreateAndPrefillFile(path, 4096, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(path));
}

// Tests on loop devices this fixture attaches over its own temp files, and
// detaches (after unmounting what it mounted) when the test ends. Nothing
// else on the machine is touched.
class LoopDeviceTest : public testing::Test {
 protected:
  static constexpr uint64_t kBackingSize = 64 * kMiB;
  static constexpr uint64_t kPartitionStart = 2048;
  static constexpr uint64_t kPartitionSectors = 32768;

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "loop devices need root";
    backing_ = TempPath("backing");
    CreateSparseFile(backing_, kBackingSize);
  }

  void TearDown() override {
    std::string output;
    for (auto it = mounts_.rbegin(); it != mounts_.rend(); ++it) {
      EXPECT_EQ(RunCommand("umount '" + *it + "'", &output), 0) << output;
      rmdir(it->c_str());
    }
    for (const std::string& device : loops_) {
      EXPECT_EQ(RunCommand("losetup -d " + device, &output), 0) << output;
    }
    if (!backing_.empty()) unlink(backing_.c_str());
  }

  // Attaches backing_ to a free loop device; returns "/dev/loopN", or "" with
  // the reason in error_.
  std::string AttachLoop(const std::string& options) {
    std::string output;
    if (RunCommand("losetup --find --show " + options + " '" + backing_ + "'",
                   &output) != 0) {
      error_ = "losetup " + options + " failed: " + output;
      return "";
    }
    const std::string device(absl::StripAsciiWhitespace(output));
    loops_.push_back(device);
    return device;
  }

  // Adds partition 1 over sectors [kPartitionStart, + kPartitionSectors) of
  // a loop device attached with --partscan, with BLKPG as addpart does: this
  // needs no partition-table support in the kernel and writes nothing to the
  // device. Returns "/dev/loopNp1", or "" with the reason in error_.
  std::string AddPartition(const std::string& device) {
    const int fd = open(device.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error_ = absl::StrCat("open ", device, ": ", strerror(errno));
      return "";
    }
    blkpg_partition part = {};
    part.start = static_cast<long long>(kPartitionStart * 512);
    part.length = static_cast<long long>(kPartitionSectors * 512);
    part.pno = 1;
    blkpg_ioctl_arg arg = {};
    arg.op = BLKPG_ADD_PARTITION;
    arg.datalen = sizeof(part);
    arg.data = &part;
    const int rc = ioctl(fd, BLKPG, &arg);
    const int saved_errno = errno;
    close(fd);
    if (rc != 0) {
      error_ = absl::StrCat("BLKPG_ADD_PARTITION on ", device, ": ",
                            strerror(saved_errno));
      return "";
    }
    // devtmpfs creates the node as the kernel adds the partition; allow a
    // moment anyway.
    const std::string partition = device + "p1";
    for (int i = 0; i < 100 && access(partition.c_str(), F_OK) != 0; ++i) {
      usleep(20000);
    }
    if (access(partition.c_str(), F_OK) != 0) {
      error_ = partition + " did not appear (no devtmpfs?)";
      return "";
    }
    return partition;
  }

  // Makes an ext4 file system on `device` (ours) and mounts it on a fresh
  // temp dir, unmounted by TearDown. Returns the mount point, or "" with the
  // reason in error_.
  std::string MakeFsAndMount(const std::string& device) {
    std::string output;
    if (RunCommand("mkfs.ext4 -q -F -b 4096 " + device, &output) != 0) {
      error_ = "mkfs.ext4 failed: " + output;
      return "";
    }
    const std::string mount_point = TempPath("mnt");
    if (mkdir(mount_point.c_str(), 0755) != 0) {
      error_ = absl::StrCat("mkdir ", mount_point, ": ", strerror(errno));
      return "";
    }
    if (RunCommand("mount -t ext4 " + device + " '" + mount_point + "'",
                   &output) != 0) {
      rmdir(mount_point.c_str());
      error_ = "mount failed: " + output;
      return "";
    }
    mounts_.push_back(mount_point);
    return mount_point;
  }

  std::string backing_;
  std::vector<std::string> loops_;
  std::vector<std::string> mounts_;
  std::string error_;
};

TEST_F(LoopDeviceTest, DescribesLoopDevice) {
  const std::string device = AttachLoop("");
  if (device.empty()) GTEST_SKIP() << error_;
  const std::string name = device.substr(strlen("/dev/"));

  absl::StatusOr<TargetInfo> info = ProbeTarget(device);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, TargetKind::kBlockDevice);
  EXPECT_EQ(info->resolved_path, device);
  EXPECT_EQ(info->size_bytes, kBackingSize);
  EXPECT_EQ(info->logical_block_size, 512u);
  EXPECT_EQ(info->limits.logical_block_size, 512u);
  EXPECT_GE(info->physical_block_size, 512u);
  EXPECT_GT(info->limits.max_sectors_kb, 0u);
  EXPECT_GT(info->limits.max_hw_sectors_kb, 0u);
  EXPECT_EQ(info->limits.poll_queues, -1);  // The loop driver has none.
  EXPECT_EQ(info->device_name, name);
  EXPECT_EQ(info->partition_name, "");
  EXPECT_EQ(info->stat_path, "/sys/block/" + name + "/stat");
  EXPECT_FALSE(info->mounted);
  EXPECT_FALSE(info->has_holders);
  EXPECT_FALSE(info->is_swap);
  EXPECT_EQ(info->backs_loop, "");

  absl::StatusOr<DeviceStat> stat = ReadDeviceStat(info->stat_path);
  EXPECT_TRUE(stat.ok()) << stat.status();

  // The backing file knows it backs the loop device.
  absl::StatusOr<TargetInfo> file = ProbeTarget(backing_);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->kind, TargetKind::kRegularFile);
  EXPECT_EQ(file->backs_loop, name);
}

TEST_F(LoopDeviceTest, ReportsLogicalBlockSize4096) {
  const std::string device = AttachLoop("--sector-size 4096");
  if (device.empty()) GTEST_SKIP() << error_;

  absl::StatusOr<TargetInfo> info = ProbeTarget(device);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->logical_block_size, 4096u);
  EXPECT_EQ(info->limits.logical_block_size, 4096u);
  EXPECT_GE(info->physical_block_size, 4096u);
  EXPECT_EQ(info->size_bytes, kBackingSize);
}

TEST_F(LoopDeviceTest, PrefillRefusesBlockDeviceAndWritesNothing) {
  const std::string device = AttachLoop("");
  if (device.empty()) GTEST_SKIP() << error_;

  const absl::Status status = CreateAndPrefillFile(device, kMiB, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(device));
  EXPECT_THAT(status.message(), HasSubstr("block device"));
  const std::string data = ReadFile(backing_, kMiB);
  EXPECT_EQ(data, std::string(kMiB, '\0'));
}

TEST_F(LoopDeviceTest, PartitionResolvesToWholeDisk) {
  const std::string device = AttachLoop("--partscan");
  if (device.empty()) GTEST_SKIP() << error_;
  const std::string name = device.substr(strlen("/dev/"));
  const std::string partition = AddPartition(device);
  if (partition.empty()) GTEST_SKIP() << error_;

  absl::StatusOr<TargetInfo> info = ProbeTarget(partition);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, TargetKind::kBlockDevice);
  EXPECT_EQ(info->device_name, name);
  EXPECT_EQ(info->partition_name, name + "p1");
  EXPECT_EQ(info->stat_path, "/sys/block/" + name + "/stat");
  EXPECT_EQ(info->size_bytes, kPartitionSectors * 512);
  EXPECT_EQ(info->logical_block_size, 512u);
  EXPECT_FALSE(info->mounted);

  absl::StatusOr<TargetInfo> disk = ProbeTarget(device);
  ASSERT_TRUE(disk.ok()) << disk.status();
  EXPECT_EQ(disk->partition_name, "");
  EXPECT_EQ(disk->size_bytes, kBackingSize);
}

TEST_F(LoopDeviceTest, MountedFileSystemAndFilesOnIt) {
  const std::string device = AttachLoop("--sector-size 4096");
  if (device.empty()) GTEST_SKIP() << error_;
  const std::string name = device.substr(strlen("/dev/"));
  const std::string mount_point = MakeFsAndMount(device);
  if (mount_point.empty()) GTEST_SKIP() << error_;

  absl::StatusOr<TargetInfo> disk = ProbeTarget(device);
  ASSERT_TRUE(disk.ok()) << disk.status();
  EXPECT_TRUE(disk->mounted);

  const std::string file = mount_point + "/data";
  ASSERT_TRUE(CreateAndPrefillFile(file, 2 * kMiB, 9).ok());
  absl::StatusOr<TargetInfo> info = ProbeTarget(file);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, TargetKind::kRegularFile);
  EXPECT_EQ(info->size_bytes, 2 * kMiB);
  EXPECT_EQ(info->device_name, name);
  EXPECT_EQ(info->partition_name, "");
  EXPECT_EQ(info->limits.logical_block_size, 4096u);
  // Direct I/O on the file must be 4096-aligned, whether statx says so or
  // the device's logical block size does.
  EXPECT_EQ(info->logical_block_size, 4096u);
  EXPECT_FALSE(info->mounted);
  ExpectPattern(ReadFile(file), 9, 0);
}

TEST_F(LoopDeviceTest, MountedPartitionMarksWholeDiskMounted) {
  const std::string device = AttachLoop("--partscan");
  if (device.empty()) GTEST_SKIP() << error_;
  const std::string partition = AddPartition(device);
  if (partition.empty()) GTEST_SKIP() << error_;
  const std::string mount_point = MakeFsAndMount(partition);
  if (mount_point.empty()) GTEST_SKIP() << error_;

  absl::StatusOr<TargetInfo> part = ProbeTarget(partition);
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_TRUE(part->mounted);
  // Writing the whole disk would overwrite the mounted partition.
  absl::StatusOr<TargetInfo> disk = ProbeTarget(device);
  ASSERT_TRUE(disk.ok()) << disk.status();
  EXPECT_TRUE(disk->mounted);

  // A file on the partition's file system names both.
  const std::string file = mount_point + "/data";
  ASSERT_TRUE(CreateAndPrefillFile(file, kMiB, 1).ok());
  absl::StatusOr<TargetInfo> info = ProbeTarget(file);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->device_name, device.substr(strlen("/dev/")));
  EXPECT_EQ(info->partition_name, partition.substr(strlen("/dev/")));
  EXPECT_EQ(info->stat_path, disk->stat_path);
}

}  // namespace
}  // namespace blkperf
