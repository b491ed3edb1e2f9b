// Workload shapes end to end on real targets: block-size mixes per
// direction, trims (hole punches in a file, discards on a loop device, a
// clear refusal where the target cannot), fsync/fdatasync every N writes,
// and job groups reported per group and in total.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/engine/testing/loop_device_for_test.h"
#include "daemon/engine/testing/fuse_file_for_test.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

class ShapeWorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/shape_", getpid());
  }
  void TearDown() override { unlink(path_.c_str()); }

  WorkloadSpec FileSpec(Op op, uint64_t ios) const {
    WorkloadSpec spec;
    spec.targets.push_back(
        {.path = path_, .create_size = 16 << 20, .allow_write = true});
    spec.op = op;
    spec.direct = false;
    spec.queue_depth = 8;
    spec.io_count = ios;
    spec.runtime = absl::ZeroDuration();
    return spec;
  }

  std::string path_;
};

TEST_F(ShapeWorkloadTest, BssplitRatiosHoldInARealRun) {
  WorkloadSpec spec = FileSpec(Op::kRandRead, 20000);
  spec.read_bssplit = {{4096, 70}, {65536, 30}};
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ASSERT_EQ(s.total.ios, 20000u);
  // The mean of 20000 draws of the mix: 22528 bytes, sd 199 (3 sd < 3%).
  const double mean = static_cast<double>(s.total.bytes) / s.total.ios;
  EXPECT_NEAR(mean, 0.7 * 4096 + 0.3 * 65536, 22528 * 0.03);
  // Every I/O is one of the two sizes: the byte count is 4 KiB a + 64 KiB b.
  const uint64_t large = (s.total.bytes - 4096 * s.total.ios) / (65536 - 4096);
  EXPECT_EQ(large * 65536 + (s.total.ios - large) * 4096, s.total.bytes);
  EXPECT_NEAR(large / 20000.0, 0.3, 0.01);
}

TEST_F(ShapeWorkloadTest, ReadsAndWritesHaveTheirOwnMixes) {
  WorkloadSpec spec = FileSpec(Op::kRandRW, 4000);
  spec.read_bssplit = {{4096, 100}};
  spec.write_bssplit = {{65536, 100}};
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ASSERT_GT(s.total.read_ios, 1000u);
  ASSERT_GT(s.total.write_ios, 1000u);
  EXPECT_EQ(s.total.read_bytes, s.total.read_ios * 4096);
  EXPECT_EQ(s.total.write_bytes, s.total.write_ios * 65536);
}

uint64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? uint64_t(st.st_blocks) * 512 : 0;
}

TEST_F(ShapeWorkloadTest, TrimsPunchHolesInAFile) {
  WorkloadSpec spec = FileSpec(Op::kTrim, 256);
  spec.block_size = 64 << 10;  // 256 x 64 KiB: the whole 16 MiB file
  {
    // Create and fill the file first (a read run with create_size).
    WorkloadSpec create = FileSpec(Op::kRead, 1);
    ASSERT_EQ(RunToEnd(create).state, WorkloadState::kFinished);
  }
  const uint64_t before = AllocatedBytes(path_);
  ASSERT_GE(before, uint64_t{15} << 20);
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_EQ(s.total.ios, 256u);
  EXPECT_EQ(s.total.trim_ios, 256u);
  EXPECT_EQ(s.total.trim_bytes, uint64_t{16} << 20);
  EXPECT_EQ(s.total.read_ios + s.total.write_ios, 0u);
  EXPECT_EQ(s.total.ErrorTotal(), 0u);
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 16 << 20);           // KEEP_SIZE
  EXPECT_LT(AllocatedBytes(path_), before / 8);  // the blocks are gone
}

// 512-byte sectors a block device discarded, from /sys/block/<dev>/stat
// (field 14, kernel >= 4.18; adjacent discards may merge into one request,
// so requests are not counted).
uint64_t DeviceDiscardedSectors(const std::string& dev) {
  std::ifstream in(absl::StrCat("/sys/block/", dev.substr(dev.rfind('/') + 1),
                                "/stat"));
  std::vector<uint64_t> fields;
  uint64_t v;
  while (in >> v) fields.push_back(v);
  return fields.size() > 13 ? fields[13] : 0;
}

TEST(ShapeDeviceTest, RandomTrimsDiscardOnALoopDevice) {
  LoopDeviceForTest loop(32 << 20);
  if (!loop.ok()) GTEST_SKIP() << loop.why();
  WorkloadSpec spec;
  spec.targets.push_back({.path = loop.path(), .allow_write = true});
  spec.op = Op::kRandTrim;
  spec.block_size = 1 << 20;
  spec.queue_depth = 4;
  spec.io_count = 64;
  spec.runtime = absl::ZeroDuration();
  const uint64_t before = DeviceDiscardedSectors(loop.path());
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_EQ(s.total.trim_ios, 64u);
  EXPECT_EQ(s.total.ErrorTotal(), 0u);
  EXPECT_EQ(DeviceDiscardedSectors(loop.path()) - before, 64u * 2048);
}

// (A device whose queue cannot discard is refused by validation:
// shape_validation_test.)
TEST(ShapeDeviceTest, TrimsAreRefusedWhereAFileCannotPunchHoles) {
  // A FUSE file whose server implements no fallocate cannot punch holes.
  StallingFuseFile fuse;
  if (!fuse.ok()) GTEST_SKIP() << fuse.why();
  WorkloadSpec file;
  file.targets.push_back({.path = fuse.path(), .allow_write = true});
  file.op = Op::kRandTrim;
  file.direct = false;
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(file);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(w.status().message(), HasSubstr("cannot punch holes"));
}

TEST_F(ShapeWorkloadTest, FsyncAndFdatasyncEveryNWrites) {
  for (const bool datasync : {false, true}) {
    WorkloadSpec spec = FileSpec(Op::kRandWrite, 1000);
    (datasync ? spec.fdatasync_every : spec.fsync_every) = 10;
    const WorkloadSnapshot s = RunToEnd(spec);
    ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
    EXPECT_EQ(s.total.write_ios, 1000u);
    EXPECT_EQ(s.total.ios, 1000u);  // syncs are not I/Os
    // One after each 10th write; the run may end before the last one.
    EXPECT_GE(s.total.sync_ios, 99u) << datasync;
    EXPECT_LE(s.total.sync_ios, 100u) << datasync;
    EXPECT_EQ(s.total.latency.Count(), 1000u);
  }
}

TEST_F(ShapeWorkloadTest, JobGroupsAreReportedPerGroupAndInTotal) {
  const std::vector<int> online = OnlineCpus();
  if (online.size() < 2) GTEST_SKIP() << "needs 2 online CPUs";
  WorkloadSpec spec = FileSpec(Op::kRandRead, 0);
  spec.io_count = 0;
  spec.runtime = absl::Milliseconds(600);
  JobGroupSpec reads{.name = "reads", .cpus = {online[0]}};
  reads.distribution = OffsetDistribution{OffsetDistribution::Kind::kZipf, 1.2};
  JobGroupSpec writes{.name = "writes", .cpus = {online[1]}};
  writes.op = Op::kWrite;
  writes.block_size = 64 << 10;
  writes.queue_depth = 2;
  writes.rate_iops = 500;
  spec.groups = {reads, writes};
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ASSERT_EQ(s.groups.size(), 2u);
  ASSERT_EQ(s.threads.size(), 2u);
  const ThreadSnapshot& r = s.groups[0].total;
  const ThreadSnapshot& w = s.groups[1].total;
  EXPECT_EQ(s.groups[0].name, "reads");
  EXPECT_EQ(s.groups[1].name, "writes");
  EXPECT_EQ(s.groups[0].threads, std::vector<int>{0});
  EXPECT_EQ(s.groups[1].threads, std::vector<int>{1});
  EXPECT_GT(r.read_ios, 0u);
  EXPECT_EQ(r.write_ios, 0u);
  EXPECT_EQ(w.read_ios, 0u);
  EXPECT_GT(w.write_ios, 0u);
  EXPECT_EQ(w.write_bytes, w.write_ios * 65536);
  EXPECT_EQ(r.ios + w.ios, s.total.ios);
  EXPECT_EQ(r.bytes + w.bytes, s.total.bytes);
  // Only the writes ran open loop, at 500 a second.
  EXPECT_EQ(r.intended_latency.Count(), 0u);
  EXPECT_EQ(w.intended_latency.Count(), w.ios);
  EXPECT_NEAR(w.Iops(s.elapsed), 500, 50);
  EXPECT_EQ(s.threads[0].cpu, online[0]);
  EXPECT_EQ(s.threads[1].cpu, online[1]);
}

}  // namespace
}  // namespace blkperf
