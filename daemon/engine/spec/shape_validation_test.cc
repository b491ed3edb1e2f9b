// The shape fields through ResolveSpec: each impossible combination is
// refused with the exact code and a message naming the field; good specs
// resolve into the groups the submitters run.
#include "daemon/engine/spec/shape_validation.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/engine/spec/spec_validation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/workload_spec.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using Kind = OffsetDistribution::Kind;

class ShapeValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/shape_spec_",
                         getpid(), ".dat");
    const int fd = open(path_.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
    close(fd);
    spec_.targets.push_back({.path = path_, .allow_write = true});
    spec_.runtime = absl::Seconds(1);
    online_ = OnlineCpus();
  }
  void TearDown() override { unlink(path_.c_str()); }

  // Expects `code` and a message that names `field` and says `why`.
  void ExpectRejected(const std::string& field, const std::string& why,
                      absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
    absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
    ASSERT_FALSE(r.ok()) << "accepted a bad " << field;
    EXPECT_EQ(r.status().code(), code) << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(field));
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(why));
  }

  std::string path_;
  WorkloadSpec spec_;
  EngineLimits limits_;
  std::vector<int> online_;
};

TEST_F(ShapeValidationTest, DistributionsNeedRandomOps) {
  spec_.op = Op::kRead;
  spec_.distribution = {Kind::kZipf, 1.2};
  ExpectRejected("distribution zipf:1.2", "needs a random op");
  spec_.op = Op::kRandRead;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(ShapeValidationTest, RandomPercentIsForRandomOpsAndAPercentage) {
  spec_.random_percent = 101;
  ExpectRejected("random_percent", "101 is not in 0..100");
  spec_.random_percent = 50;
  spec_.op = Op::kWrite;
  ExpectRejected("random_percent", "applies to random ops; op write is "
                                   "sequential (use randwrite)");
}

TEST_F(ShapeValidationTest, BlockSizeMixesAreChecked) {
  spec_.read_bssplit = {{4096, 70}, {65536, 20}};
  ExpectRejected("read_bssplit", "percents add up to 90, not 100");
  spec_.read_bssplit = {{4096, 50}, {128 << 20, 50}};
  ExpectRejected("read_bssplit[1]", "exceeds the limit");
  spec_.read_bssplit = {{4096, 50}, {1000, 50}};
  ExpectRejected("read_bssplit[1]", "is not a multiple of");
  spec_.read_bssplit = {{4096, 50}, {2 << 20, 50}};
  ExpectRejected("read_bssplit[1]", "is larger than");
  spec_.read_bssplit = {{4096, 50}, {4096, 50}};
  ExpectRejected("read_bssplit[1]", "listed twice");
}

TEST_F(ShapeValidationTest, SequentialMixesMustKeepOffsetsAligned) {
  spec_.op = Op::kWrite;
  spec_.write_bssplit = {{4096, 50}, {65536, 50}};
  spec_.alignment = 8192;
  ExpectRejected("alignment", "8192 does not divide write_bssplit[0] 4096");
}

TEST_F(ShapeValidationTest, OneRateOneSyncAndSyncsNeedWrites) {
  spec_.rate_iops = 1000;
  spec_.rate_bw = 1 << 20;
  ExpectRejected("rate_bw", "and rate_iops are both set");
  spec_.rate_bw = 0;
  spec_.rate_iops = 2'000'000'000;
  ExpectRejected("rate_iops", "exceeds the limit");
  spec_.rate_iops = 0;
  spec_.fsync_every = 10;
  ExpectRejected("fsync_every", "op randread writes no data to sync");
  spec_.op = Op::kRandWrite;
  spec_.fdatasync_every = 5;
  ExpectRejected("fdatasync_every", "are both set");
}

TEST_F(ShapeValidationTest, TrimsAreWholeAndNeedPermission) {
  spec_.op = Op::kTrim;
  spec_.split = {SplitStrategy::Kind::kLimits, 0};
  ExpectRejected("split", "trims are issued whole");
  spec_.split = {};
  spec_.targets[0].allow_write = false;
  ExpectRejected("op trim writes", "allow_write",
                 absl::StatusCode::kPermissionDenied);
}

TEST_F(ShapeValidationTest, ADeviceThatCannotDiscardIsRefused) {
  spec_.op = Op::kRandTrim;
  TargetInfo device;
  device.path = "/dev/fake0";
  device.kind = TargetKind::kBlockDevice;
  device.size_bytes = 1 << 30;
  device.logical_block_size = 512;
  device.limits.discard_max_bytes = 0;
  absl::StatusOr<std::vector<GroupShape>> groups =
      internal::ResolveGroups(spec_, limits_, CurrentHostCpus());
  ASSERT_TRUE(groups.ok()) << groups.status();
  spec_.targets[0].path = "/dev/fake0";
  absl::Status s =
      internal::ValidateGroupsAgainstTarget(spec_, *groups, 0, device);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("op randtrim: /dev/fake0 does not "
                                     "support discard"));
  device.limits.discard_max_bytes = 1 << 30;
  EXPECT_TRUE(
      internal::ValidateGroupsAgainstTarget(spec_, *groups, 0, device).ok());
  // A discard on a device must be in logical blocks, buffered or not.
  spec_.direct = false;
  spec_.block_size = 1000;
  groups = internal::ResolveGroups(spec_, limits_, CurrentHostCpus());
  ASSERT_TRUE(groups.ok());
  s = internal::ValidateGroupsAgainstTarget(spec_, *groups, 0, device);
  EXPECT_THAT(s.message(), HasSubstr("required for discards"));
}

TEST_F(ShapeValidationTest, SequentialThreadsNeedARangeEach) {
  spec_.op = Op::kRead;
  spec_.block_size = 768 << 10;  // two threads' 512 KiB ranges are smaller
  spec_.threads = 2;
  ExpectRejected("threads", "2 sequential threads each get their own range");
}

TEST_F(ShapeValidationTest, GroupsAreCheckedByIndex) {
  spec_.groups = {JobGroupSpec{.name = "a", .cpus = {online_[0]}},
                  JobGroupSpec{.name = "b"}};
  ExpectRejected("groups[1].cpus", "is empty");
  spec_.groups[1].cpus = {online_[0]};
  ExpectRejected("groups[1].cpus[0]", "is listed twice");
  spec_.groups[1].cpus = {9999};
  ExpectRejected("groups[1].cpus[0]", "9999 is not online");
  spec_.groups.resize(1);
  spec_.groups[0].name = "bad name";
  ExpectRejected("groups[0].name", "is not 1-32 characters");
  spec_.groups[0].name = "a";
  spec_.groups.push_back(spec_.groups[0]);
  spec_.groups[1].cpus.clear();
  ExpectRejected("groups[1].name", "a is used twice");
  spec_.groups.resize(1);
  spec_.cpus = {online_[0]};
  ExpectRejected("cpus", "is set with groups");
  spec_.cpus.clear();
  spec_.rate_iops = 100;
  ExpectRejected("rate_iops", "is set with groups");
  spec_.rate_iops = 0;
  spec_.groups[0].op = Op::kRead;
  spec_.groups[0].distribution = OffsetDistribution{Kind::kPareto, 0.2};
  ExpectRejected("groups[0].distribution", "needs a random op");
  spec_.groups[0].distribution.reset();
  spec_.groups[0].queue_depth = 4;
  spec_.submit_batch = 8;
  ExpectRejected("groups[0].queue_depth", "4 is below submit_batch 8");
  spec_.submit_batch = 0;
  spec_.verify = true;
  ExpectRejected("verify", "cannot be used with groups");
  spec_.verify = false;
  spec_.groups.assign(17, JobGroupSpec{});
  ExpectRejected("groups", "has 17 entries, more than 16");
}

TEST_F(ShapeValidationTest, GroupsResolveToThreadsCpusAndShapes) {
  if (online_.size() < 2) GTEST_SKIP() << "needs 2 online CPUs";
  spec_.queue_depth = 64;
  spec_.distribution = {Kind::kZipf, 1.2};
  JobGroupSpec reads{.name = "reads", .cpus = {online_[1], online_[0]}};
  JobGroupSpec writes{.cpus = {}};
  writes.op = Op::kWrite;
  writes.queue_depth = 4;
  writes.write_bssplit = std::vector<BlockSizeShare>{{8192, 50}, {65536, 50}};
  writes.distribution = OffsetDistribution{};
  writes.rate_iops = 100;
  spec_.groups = {reads};
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.threads, 2u);
  EXPECT_EQ(r->spec.cpus, (std::vector<int>{online_[1], online_[0]}));
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_EQ(r->groups[0].name, "reads");
  EXPECT_EQ(r->groups[0].distribution.kind, Kind::kZipf);  // inherited
  EXPECT_EQ(r->groups[0].queue_depth, 64u);
  EXPECT_EQ(r->groups[0].submit_batch, 32u);
  EXPECT_TRUE(r->groups[0].shaped);
  EXPECT_FALSE(r->writes);

  // Two groups need two more CPUs than this machine may have: resolve the
  // shape alone.
  spec_.groups = {reads, writes};
  spec_.groups[0].cpus = {online_[0]};
  spec_.groups[1].cpus = {online_[1]};
  r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->thread_group, (std::vector<uint16_t>{0, 1}));
  const GroupShape& w = r->groups[1];
  EXPECT_EQ(w.name, "g1");
  EXPECT_EQ(w.first_thread, 1u);
  EXPECT_EQ(w.queue_depth, 4u);
  EXPECT_EQ(w.submit_batch, 4u);  // its own depth, not the workload's 32
  EXPECT_EQ(w.read_percent, 0u);
  EXPECT_EQ(w.random_percent, 0u);
  EXPECT_EQ(w.max_block_size, 65536u);
  EXPECT_EQ(w.alignment, 8192u);  // the smallest size of its mix
  EXPECT_EQ(w.rate_iops, 100u);
  EXPECT_TRUE(r->writes);
  EXPECT_EQ(r->max_block_size, 65536u);
  EXPECT_EQ(r->max_queue_depth, 64u);
  EXPECT_EQ(internal::GroupBufferBytes(r->groups),
            uint64_t{64} * 4096 + uint64_t{4} * 65536);
}

TEST_F(ShapeValidationTest, SloSearchesNeedAPlainWorkload) {
  spec_.slo.enabled = true;
  spec_.slo.precision = 0.7;
  ExpectRejected("slo.precision", "0.7 is not in (0, 0.5]");
  spec_.slo.precision = 0.05;
  spec_.slo.step = absl::Milliseconds(10);
  ExpectRejected("slo.step", "is not in [100ms, 1h]");
  spec_.slo.step = absl::Seconds(2);
  spec_.rate_iops = 5;
  ExpectRejected("rate_iops", "the search chooses the rates");
  spec_.rate_iops = 0;
  spec_.io_count = 10;
  ExpectRejected("io_count", "is set with slo");
  spec_.io_count = 0;
  limits_.max_runtime = absl::Seconds(10);
  // Every step the search may take (repeats and re-tests included,
  // SloSteps) counts against the limit.
  ExpectRejected("slo.step",
                 absl::StrCat(SloSteps(0.05),
                              " steps of 2.25s exceed the limit max_runtime"));
  limits_ = EngineLimits{};
  spec_.groups = {JobGroupSpec{.cpus = {online_[0]}}};
  ExpectRejected("slo", "cannot be used with groups");
  spec_.groups.clear();
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->shaped);
}

TEST_F(ShapeValidationTest, VerifyNeedsAPlainShape) {
  spec_.verify = true;
  spec_.op = Op::kRandRead;
  spec_.read_bssplit = {{4096, 100}};
  ExpectRejected("verify", "needs plain I/O shapes");
}

TEST_F(ShapeValidationTest, BufferMemoryCountsTheLargestBlockOfEachGroup) {
  limits_.max_buffer_bytes = 1 << 20;
  spec_.queue_depth = 32;
  spec_.read_bssplit = {{4096, 90}, {65536, 10}};  // 32 x 64 KiB = 2 MiB
  ExpectRejected("threads x queue_depth x block_size", "max_buffer_bytes",
                 absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace blkperf
