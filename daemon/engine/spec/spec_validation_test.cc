#include "daemon/engine/spec/spec_validation.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

class SpecValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/spec_target_",
                         getpid(), ".dat");
    const int fd = open(path_.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
    close(fd);
    spec_.targets.push_back({.path = path_});
    spec_.runtime = absl::Seconds(1);
  }
  void TearDown() override { unlink(path_.c_str()); }

  // Expects `code` with a message that starts with (names) `field`.
  void ExpectRejected(absl::StatusCode code, const std::string& field) {
    absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
    ASSERT_FALSE(r.ok()) << "accepted a bad " << field;
    EXPECT_EQ(r.status().code(), code) << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(field));
  }

  std::string path_;
  WorkloadSpec spec_;
  EngineLimits limits_;
};

TEST_F(SpecValidationTest, NopStandsInOneTargetOfItsOwn) {
  spec_.targets.clear();
  spec_.nop = true;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->targets.size(), 1u);
  EXPECT_EQ(r->targets[0].kind, TargetKind::kNop);
  EXPECT_EQ(r->targets[0].path, "nop");
  ASSERT_EQ(r->spec.targets.size(), 1u);
  EXPECT_EQ(r->spec.targets[0].path, "nop");
  EXPECT_GE(r->min_target_bytes, uint64_t{1} << 30);
}

TEST_F(SpecValidationTest, NopRefusesWhatNeedsADevice) {
  spec_.nop = true;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "targets");
  spec_.targets.clear();
  spec_.op = Op::kRandWrite;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "op");
  spec_.op = Op::kRandRead;
  spec_.verify = true;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "verify");
  spec_.verify = false;
  spec_.polled = PollMode::kOn;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "polled");
  spec_.polled = PollMode::kOff;
  spec_.split.kind = SplitStrategy::Kind::kLimits;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "split");
  spec_.split.kind = SplitStrategy::Kind::kNone;
  spec_.rate_iops = 1000;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "nop");
  spec_.rate_iops = 0;
  spec_.groups.push_back({.cpus = {OnlineCpus()[0]}});
  ExpectRejected(absl::StatusCode::kInvalidArgument, "groups");
}

TEST_F(SpecValidationTest, FillsDefaults) {
  spec_.queue_depth = 8;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.alignment, 4096u);
  EXPECT_EQ(r->spec.submit_batch, 8u);
  EXPECT_EQ(r->spec.complete_batch, 8u);
  EXPECT_EQ(r->spec.threads, 1u);
  ASSERT_EQ(r->spec.cpus.size(), 1u);
  EXPECT_EQ(r->spec.cpus[0], OnlineCpus()[0]);
  EXPECT_FALSE(r->writes);
  ASSERT_EQ(r->targets.size(), 1u);
  EXPECT_EQ(r->targets[0].size_bytes, 1u << 20);
}

// Threads without a cpus entry go round-robin over the CPUs the daemon was
// started on (host_cpus.h), however the resolving thread is pinned now (the
// daemon re-pins its control threads); an entry may name any online CPU.
TEST_F(SpecValidationTest, PlacesThreadsOnTheDaemonsStartupMask) {
  const std::vector<int> placement = CurrentHostCpus().placement;
  const std::vector<int> online = OnlineCpus();
  spec_.threads = 2;
  absl::StatusOr<ResolvedSpec> resolved = absl::InternalError("not run");
  const auto resolve_on_last_cpu = [&] {
    std::thread resolver([&] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(online.back(), &one);
      ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
      resolved = ResolveSpec(spec_, limits_);
    });
    resolver.join();
  };
  resolve_on_last_cpu();
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  const std::vector<int> expected = {placement[0],
                                     placement[1 % placement.size()]};
  EXPECT_EQ(resolved->spec.cpus, expected);
  ASSERT_EQ(resolved->groups.size(), 1u);
  EXPECT_EQ(resolved->groups[0].cpus, expected);

  spec_.threads = 0;
  spec_.cpus = {online.back()};
  resolve_on_last_cpu();
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->spec.cpus, std::vector<int>{online.back()});
}

TEST_F(SpecValidationTest, RejectsNoTargets) {
  spec_.targets.clear();
  ExpectRejected(absl::StatusCode::kInvalidArgument, "targets");
}

TEST_F(SpecValidationTest, RejectsMissingTarget) {
  spec_.targets[0].path = path_ + ".missing";
  ExpectRejected(absl::StatusCode::kInvalidArgument, "targets[0].path");
}

TEST_F(SpecValidationTest, RejectsDuplicateTarget) {
  spec_.targets.push_back({.path = path_});
  ExpectRejected(absl::StatusCode::kInvalidArgument, "targets[1].path");
}

TEST_F(SpecValidationTest, RejectsHardLinkToATargetListed) {
  const std::string hard_link = path_ + ".link";
  ASSERT_EQ(link(path_.c_str(), hard_link.c_str()), 0);
  spec_.targets.push_back({.path = hard_link});
  ExpectRejected(absl::StatusCode::kInvalidArgument, "targets[1].path");
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("same file"));
  unlink(hard_link.c_str());
}

// Validated once, resolved once: ResolveSpec takes the caller's probe of
// each target (made through the descriptor it opened) instead of probing
// the path again, and checks the spec against that probe.
TEST_F(SpecValidationTest, ResolvesAgainstTheProbeItIsGiven) {
  absl::StatusOr<ValidatedSpec> validated = ValidateSpec(spec_, limits_);
  ASSERT_TRUE(validated.ok()) << validated.status();
  absl::StatusOr<TargetInfo> probed = ProbeTarget(path_);
  ASSERT_TRUE(probed.ok()) << probed.status();
  ASSERT_EQ(probed->size_bytes, uint64_t{1} << 20);
  // What the opened descriptor showed: the file as it is now, 64 KiB.
  probed->size_bytes = 64 << 10;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(*validated, {*probed});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->targets.size(), 1u);
  EXPECT_EQ(r->targets[0].size_bytes, uint64_t{64} << 10);
  EXPECT_EQ(r->min_target_bytes, uint64_t{64} << 10);
  // And refuses what does not fit that probe, though the path's 1 MiB file
  // would take a 4 KiB block.
  probed->size_bytes = 2048;
  r = ResolveSpec(*validated, {*probed});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("larger than"));
}

// The CPU registry's pick reaches the spec and its one group alike.
TEST_F(SpecValidationTest, PlacedCpusReachTheSpecAndItsGroup) {
  absl::StatusOr<ValidatedSpec> validated = ValidateSpec(spec_, limits_);
  ASSERT_TRUE(validated.ok()) << validated.status();
  const int cpu = validated->host_cpus.placement.back();
  PlaceOnCpus({cpu}, &*validated);
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(*std::move(validated));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.cpus, std::vector<int>{cpu});
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_EQ(r->groups[0].cpus, std::vector<int>{cpu});
}

TEST_F(SpecValidationTest, RejectsDuplicateCpus) {
  spec_.cpus = {OnlineCpus()[0], OnlineCpus()[0]};
  ExpectRejected(absl::StatusCode::kInvalidArgument, "cpus[1]");
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("listed twice"));
}

TEST_F(SpecValidationTest, RejectsAlignmentLargerThanTarget) {
  spec_.alignment = 2 << 20;  // the target holds 1 MiB
  ExpectRejected(absl::StatusCode::kInvalidArgument, "alignment");
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("larger than"));
}

TEST_F(SpecValidationTest, RejectsReadPercentOver100) {
  spec_.op = Op::kRandRW;
  spec_.read_percent = 101;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "read_percent");
}

TEST_F(SpecValidationTest, RejectsZeroBlockSize) {
  spec_.block_size = 0;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "block_size");
}

TEST_F(SpecValidationTest, RejectsBlockSizeNotMultipleOfLogicalBlock) {
  spec_.block_size = 3000;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("block_size 3000 is not a multiple of"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(path_));
}

TEST_F(SpecValidationTest, BufferedIoNeedsNoAlignment) {
  spec_.block_size = 3000;
  spec_.direct = false;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, RejectsBlockSizeOverLimit) {
  spec_.block_size = limits_.max_block_size * 2;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "block_size");
}

TEST_F(SpecValidationTest, RejectsBlockSizeLargerThanTarget) {
  spec_.block_size = 2 << 20;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "block_size");
}

TEST_F(SpecValidationTest, RejectsMisalignedAlignment) {
  spec_.alignment = 1000;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "alignment");
}

TEST_F(SpecValidationTest, RejectsQueueDepthZeroAndOverLimit) {
  spec_.queue_depth = 0;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "queue_depth");
  spec_.queue_depth = limits_.max_queue_depth + 1;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "queue_depth");
}

TEST_F(SpecValidationTest, RejectsBatchesOverQueueDepth) {
  spec_.queue_depth = 16;
  spec_.submit_batch = 17;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "submit_batch");
  spec_.submit_batch = 0;
  spec_.complete_batch = 17;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "complete_batch");
}

TEST_F(SpecValidationTest, RejectsOfflineCpu) {
  spec_.cpus = {100000};
  ExpectRejected(absl::StatusCode::kInvalidArgument, "cpus[0]");
}

// More threads than CPUs to place them on is refused in the user's words
// (threads), not as a duplicate of a `cpus` list they did not write.
TEST_F(SpecValidationTest, RejectsMoreThreadsThanPlacementCpus) {
  const size_t placement = CurrentHostCpus().placement.size();
  spec_.threads = static_cast<uint32_t>(placement + 1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "threads");
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("one submitter thread per CPU"));
  spec_.threads = static_cast<uint32_t>(placement);
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, RejectsThreadsNotMatchingCpus) {
  spec_.cpus = {OnlineCpus()[0]};
  spec_.threads = 2;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "threads");
}

TEST_F(SpecValidationTest, RejectsRuntimes) {
  spec_.runtime = absl::Seconds(-1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "runtime");
  spec_.runtime = absl::ZeroDuration();
  spec_.io_count = 0;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "runtime");
  spec_.runtime = absl::ZeroDuration();
  spec_.slo.enabled = true;  // p99 < 1ms: a search ends after its steps
  absl::StatusOr<ResolvedSpec> search = ResolveSpec(spec_, limits_);
  EXPECT_TRUE(search.ok()) << search.status();
  spec_.slo = SloSpec();
  spec_.runtime = limits_.max_runtime + absl::Seconds(1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "runtime");
  spec_.runtime = absl::Seconds(1);
  spec_.ramp_time = absl::Seconds(-1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "ramp_time");
  spec_.ramp_time = absl::ZeroDuration();
  spec_.series_interval = absl::Milliseconds(1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "series_interval");
}

TEST_F(SpecValidationTest, SteadyStateFieldsAreCheckedNamingTheField) {
  spec_.runtime = absl::Seconds(10);
  spec_.steady_state.enabled = true;
  spec_.steady_state.criterion = *ParseSteadyStateCriterion("iops:5%");
  spec_.steady_state.window = absl::Seconds(3);
  ASSERT_TRUE(ResolveSpec(spec_, limits_).ok());
  spec_.steady_state.window = absl::Milliseconds(1500);  // not whole seconds
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.window");
  spec_.steady_state.window = absl::Seconds(1);  // one sample
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.window");
  spec_.steady_state.window = absl::Seconds(11);  // longer than runtime
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.window");
  spec_.runtime = absl::Hours(1);
  spec_.steady_state.window = absl::Seconds(1001);  // 1001 samples
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.window");
  spec_.steady_state.window = absl::Seconds(1000);
  ASSERT_TRUE(ResolveSpec(spec_, limits_).ok());
  spec_.runtime = absl::Seconds(10);
  spec_.steady_state.window = absl::Seconds(3);
  spec_.steady_state.check = absl::Milliseconds(2500);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.check");
  spec_.steady_state.check = absl::Seconds(2);
  ASSERT_TRUE(ResolveSpec(spec_, limits_).ok());
  spec_.steady_state.criterion.limit = 0;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.criterion");
  spec_.steady_state.criterion = *ParseSteadyStateCriterion("p99:10%");
  spec_.latency_tracking = false;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state.criterion");
  spec_.latency_tracking = true;
  spec_.io_count = 1000;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state");
  spec_.io_count = 0;
  spec_.slo.enabled = true;
  spec_.slo.target = *ParseSloTarget("p99<1ms", "slo");
  ExpectRejected(absl::StatusCode::kInvalidArgument, "steady_state");
}

TEST_F(SpecValidationTest, RejectsPolledWithoutDirect) {
  spec_.polled = PollMode::kOn;
  spec_.direct = false;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "polled");
}

TEST_F(SpecValidationTest, AutoPollingBecomesOffWhenBuffered) {
  spec_.polled = PollMode::kAuto;
  spec_.direct = false;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.polled, PollMode::kOff);
}

TEST_F(SpecValidationTest, RejectsSqpollCpuWithoutSqpoll) {
  spec_.sqpoll_cpu = 0;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "sqpoll_cpu");
  spec_.sqpoll = true;
  spec_.sqpoll_cpu = 100000;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "sqpoll_cpu");
}

TEST_F(SpecValidationTest, RejectsWritesWithoutPermission) {
  spec_.op = Op::kRandWrite;
  ExpectRejected(absl::StatusCode::kPermissionDenied, "targets[0]");
  spec_.op = Op::kRandRW;
  spec_.read_percent = 99;
  ExpectRejected(absl::StatusCode::kPermissionDenied, "allow_write");
  spec_.targets[0].allow_write = true;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, RejectsCreateWithoutPermission) {
  spec_.targets[0].create_size = 1 << 20;
  ExpectRejected(absl::StatusCode::kPermissionDenied, "targets[0].create_size");
}

TEST_F(SpecValidationTest, RejectsBufferMemoryOverLimit) {
  limits_.max_buffer_bytes = 1 << 20;
  spec_.queue_depth = 512;
  ExpectRejected(absl::StatusCode::kResourceExhausted, "max_buffer_bytes");
}

// A NOP maps no buffers for its queue depth (one page a thread), so the
// buffer limit does not refuse one (audit D13).
TEST_F(SpecValidationTest, NopBuffersDoNotCountAgainstTheLimit) {
  limits_.max_buffer_bytes = 1 << 20;
  spec_.targets.clear();
  spec_.nop = true;
  spec_.queue_depth = 4096;  // 16 MiB of 4 KiB slots if it had buffers
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_TRUE(r.ok()) << r.status();
}

TEST_F(SpecValidationTest, RejectsFixedSplitNotMultipleOfLogicalBlock) {
  spec_.split = {SplitStrategy::Kind::kFixed, 1000};
  ExpectRejected(absl::StatusCode::kInvalidArgument, "split");
}

TEST_F(SpecValidationTest, AcceptsVerifyWithRandrw) {
  spec_.op = Op::kRandRW;
  spec_.verify = true;
  spec_.targets[0].allow_write = true;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_TRUE(r.ok()) << r.status();
}

TEST_F(SpecValidationTest, RejectsVerifyWithWritesOnSeveralThreads) {
  spec_.op = Op::kRandRW;
  spec_.verify = true;
  spec_.threads = 2;
  spec_.targets[0].allow_write = true;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "threads");
}

TEST_F(SpecValidationTest, RejectsVerifyWithAlignmentOtherThanBlockSize) {
  spec_.verify = true;
  spec_.alignment = 512;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "alignment");
}

TEST_F(SpecValidationTest, RejectsVerifyWithQueueDepthOfEveryBlock) {
  spec_.op = Op::kWrite;
  spec_.verify = true;
  spec_.targets[0].allow_write = true;
  spec_.queue_depth = 256;  // the 1 MiB target has 256 blocks
  ExpectRejected(absl::StatusCode::kInvalidArgument, "queue_depth");
}

TEST_F(SpecValidationTest, RejectsVerifyPassWithoutVerifyOrOfWrites) {
  spec_.verify_pass = true;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "verify_pass");
  spec_.verify = true;
  spec_.op = Op::kRandRead;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "verify_pass");
  spec_.verify_pass = false;
  spec_.verify_dump = true;
  spec_.verify = false;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "verify_dump");
}

TEST_F(SpecValidationTest, VerifyPassReadsEveryBlockOnce) {
  spec_.op = Op::kRead;
  spec_.verify = true;
  spec_.verify_pass = true;
  spec_.block_size = 8192;
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.io_count, 128u);
  EXPECT_EQ(r->spec.runtime, absl::ZeroDuration());
}

TEST_F(SpecValidationTest, RejectsCharacterDevice) {
  spec_.targets[0].path = "/dev/null";
  ExpectRejected(absl::StatusCode::kInvalidArgument, "targets[0].path");
}

TEST_F(SpecValidationTest, SequentialAlignmentMustDivideBlockSize) {
  spec_.op = Op::kRead;
  spec_.direct = false;
  spec_.block_size = 8192;
  spec_.alignment = 3072;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "alignment 3072");
  spec_.alignment = 4096;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
  // Random offsets may use any alignment; sequential ones ignore it.
  spec_.op = Op::kRandRead;
  spec_.alignment = 3072;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, AbSliceHasALowerBound) {
  spec_.ab_strategies = {SplitStrategy{}, SplitStrategy{SplitStrategy::Kind::kLimits, 0}};
  spec_.ab_slice = absl::Nanoseconds(1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "ab_slice 1ns is below");
  spec_.ab_slice = kMinAbSlice;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, AbScheduleMustFitTheSwitchTable) {
  spec_.ab_strategies = {SplitStrategy{}, SplitStrategy{SplitStrategy::Kind::kLimits, 0}};
  spec_.ab_slice = absl::Seconds(1);
  spec_.runtime = absl::Seconds(kMaxAbSwitches + 1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "ab_slice 1s over runtime");
  spec_.runtime = absl::Seconds(kMaxAbSwitches);
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, IoTimeoutIsOffOrAtLeastTheMinimum) {
  spec_.io_timeout = absl::Milliseconds(1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "io_timeout 1ms");
  spec_.io_timeout = -absl::Seconds(1);
  ExpectRejected(absl::StatusCode::kInvalidArgument, "io_timeout -1s");
  spec_.io_timeout = absl::ZeroDuration();
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

}  // namespace
TEST_F(SpecValidationTest, VectoredNeedsPlainBuffers) {
  spec_.vectored = true;
  spec_.fixed_buffers = true;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "vectored");
  spec_.fixed_buffers = false;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
}

TEST_F(SpecValidationTest, OneRegionNeedsFixedBuffersAndFitsOneRegistration) {
  spec_.buffer_layout = BufferLayout::kOneRegion;
  spec_.fixed_buffers = false;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "buffer_layout");
  spec_.fixed_buffers = true;
  EXPECT_TRUE(ResolveSpec(spec_, limits_).ok());
  // 2048 x 1 MiB = 2 GiB: more than the kernel registers as one buffer.
  spec_.queue_depth = 2048;
  spec_.block_size = 1 << 20;
  limits_.max_buffer_bytes = uint64_t{8} << 30;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "buffer_layout");
}

// One buffer-bytes rule: a size mix's largest block is the slot size, for
// one_region as for the buffer limit (the region was queue_depth x
// block_size, 1024 x 4 KiB here, and the kernel refused 1 GiB slots later).
TEST_F(SpecValidationTest, OneRegionCountsTheLargestBlockOfAMix) {
  spec_.buffer_layout = BufferLayout::kOneRegion;
  spec_.fixed_buffers = true;
  spec_.queue_depth = 2048;
  spec_.read_bssplit = {{.block_size = 4096, .percent = 50},
                        {.block_size = 1 << 20, .percent = 50}};
  limits_.max_buffer_bytes = uint64_t{8} << 30;
  ExpectRejected(absl::StatusCode::kInvalidArgument, "buffer_layout");
  absl::StatusOr<ResolvedSpec> r = ResolveSpec(spec_, limits_);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr(absl::StrCat(uint64_t{2048} << 20)));
}

}  // namespace blkperf
