// The environment block checked against the kernel's own files: uname and
// /proc for the host, /sys/block/loopN for a loop device this test attaches
// (with a queue setting it changes, so a stale or guessed value fails), and
// /sys/block/zram0 sized for the test (a bio device: no scheduler nor
// nr_requests, which must say unknown rather than a guess).
#include "daemon/engine/host/environment.h"

#include <sys/utsname.h>

#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/engine/testing/loop_device_for_test.h"
#include "daemon/engine/testing/zram_for_test.h"
#include "daemon/engine/target/target.h"
#include "gtest/gtest.h"
#include "liburing.h"

namespace blkperf {
namespace {

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  return std::string(absl::StripAsciiWhitespace(text));
}

TEST(EnvironmentTest, HostFactsMatchUnameAndProc) {
  const Environment env = CollectEnvironment({}, "spec");
  struct utsname u;
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(env.kernel_release, u.release);
  EXPECT_EQ(env.hostname, u.nodename);
  EXPECT_EQ(env.boot_id, FileText("/proc/sys/kernel/random/boot_id"));
  EXPECT_EQ(env.online_cpus, FileText("/sys/devices/system/cpu/online"));
  EXPECT_NE(env.memory_bytes, kUnknownFact);
  EXPECT_NE(env.cpu_model, "");
  // Stamped by the build (tools/workspace_status.sh): a git checkout.
  EXPECT_NE(env.blkperf_version, kUnknownFact);
  EXPECT_NE(env.blkperf_commit, kUnknownFact);
  EXPECT_EQ(env.spec_hash, SpecHash("spec"));
  EXPECT_NE(SpecHash("spec"), SpecHash("spec2"));
  EXPECT_TRUE(env.targets.empty());
}

TEST(EnvironmentTest, LoopDeviceFactsMatchSysfs) {
  LoopDeviceForTest loop(16 << 20);
  if (!loop.ok()) GTEST_SKIP() << loop.why();
  loop.SetQueueLimit("nr_requests", 64);
  loop.SetQueueLimit("max_sectors_kb", 96);
  absl::StatusOr<TargetInfo> info = ProbeTarget(loop.path());
  ASSERT_TRUE(info.ok()) << info.status();
  const TargetEnvironment t = CollectTargetEnvironment(*info);
  const std::string queue = absl::StrCat("/sys/block/", info->device_name,
                                         "/queue/");
  EXPECT_EQ(t.path, loop.path());
  EXPECT_EQ(t.device, info->device_name);
  EXPECT_EQ(t.size_bytes, std::to_string(16 << 20));
  EXPECT_EQ(t.nr_requests, "64");
  EXPECT_EQ(t.max_sectors_kb, "96");
  EXPECT_EQ(t.logical_block_size, FileText(queue + "logical_block_size"));
  EXPECT_EQ(t.rotational, FileText(queue + "rotational"));
  EXPECT_EQ(t.write_cache, FileText(queue + "write_cache"));
  const std::string scheduler = FileText(queue + "scheduler");
  EXPECT_NE(scheduler.find(t.scheduler), std::string::npos);
  EXPECT_EQ(t.scheduler.find('['), std::string::npos);
  // A loop device has no model or firmware in sysfs: unknown, not a guess.
  EXPECT_EQ(t.model, kUnknownFact);
  EXPECT_EQ(t.firmware_rev, kUnknownFact);
}

// The kernel's value of queue setting `name`, or unknown where the device
// has no such file.
std::string QueueFact(const std::string& queue, const std::string& name) {
  std::ifstream in(queue + name);
  return in ? FileText(queue + name) : std::string(kUnknownFact);
}

TEST(EnvironmentTest, ZramFactsMatchSysfs) {
  ZramForTest zram(64 << 20);
  if (!zram.ok()) GTEST_SKIP() << zram.why();
  absl::StatusOr<TargetInfo> info = ProbeTarget(zram.path());
  ASSERT_TRUE(info.ok()) << info.status();
  const TargetEnvironment t = CollectTargetEnvironment(*info);
  const std::string queue = "/sys/block/zram0/queue/";
  EXPECT_EQ(t.path, "/dev/zram0");
  EXPECT_EQ(t.device, "zram0");
  EXPECT_EQ(t.size_bytes, std::to_string(64 << 20));
  EXPECT_EQ(t.logical_block_size, FileText(queue + "logical_block_size"));
  EXPECT_EQ(t.physical_block_size, FileText(queue + "physical_block_size"));
  EXPECT_EQ(t.rotational, FileText(queue + "rotational"));
  EXPECT_EQ(t.max_sectors_kb, FileText(queue + "max_sectors_kb"));
  EXPECT_EQ(t.write_cache, FileText(queue + "write_cache"));
  EXPECT_EQ(t.nomerges, QueueFact(queue, "nomerges"));
  EXPECT_EQ(t.nr_requests, QueueFact(queue, "nr_requests"));
  if (QueueFact(queue, "scheduler") == kUnknownFact) {
    EXPECT_EQ(t.scheduler, kUnknownFact);
  } else {
    EXPECT_NE(FileText(queue + "scheduler").find(t.scheduler),
              std::string::npos);
  }
  // No device model or firmware behind zram: unknown, not a guess.
  EXPECT_EQ(t.model, kUnknownFact);
  EXPECT_EQ(t.firmware_rev, kUnknownFact);
}

TEST(EnvironmentTest, FileOnAnAnonymousFileSystemHasOnlyItsOwnFacts) {
  TargetInfo info;
  info.path = "/dev/shm/x";
  info.size_bytes = 4096;
  const TargetEnvironment t = CollectTargetEnvironment(info);
  EXPECT_EQ(t.size_bytes, "4096");
  EXPECT_EQ(t.device, kUnknownFact);
  EXPECT_EQ(t.scheduler, kUnknownFact);
}

TEST(EnvironmentTest, IoUringFeaturesNameWhatTookEffect) {
  EXPECT_EQ(IoUringFeatures(RingSetup{}), kUnknownFact);
  RingSetup ring;
  ring.setup_flags = {"SINGLE_ISSUER"};
  ring.fixed_buffers = true;
  ring.io_mode = "fixed";
  EXPECT_EQ(IoUringFeatures(ring), "SINGLE_ISSUER|fixed_buffers|io_mode=fixed");
}

TEST(EnvironmentTest, LiburingVersionOfTheLoadedLibrary) {
  struct io_uring ring;  // so that liburing is loaded whatever the linker drops
  ASSERT_EQ(io_uring_queue_init(2, &ring, 0), 0);
  io_uring_queue_exit(&ring);
  const std::string v = LoadedLiburingVersion();
  EXPECT_NE(v, kUnknownFact);
  EXPECT_TRUE(absl::ascii_isdigit(v[0])) << v;
}

}  // namespace
}  // namespace blkperf
