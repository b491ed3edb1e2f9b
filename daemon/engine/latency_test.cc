// Workload-level checks of what the numbers mean: latency parts that add up,
// both latency modes, offsets of sequential ops, phases that tile the
// measured time, and the note on thin A/B medians. Real io_uring on files.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kFileBytes = 8 << 20;

class LatencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/latency_", getpid(),
                         ".dat");
    unlink(path_.c_str());
  }
  void TearDown() override { unlink(path_.c_str()); }

  WorkloadSpec CountedSpec(uint64_t ios) {
    WorkloadSpec spec;
    spec.targets.push_back(
        {.path = path_, .create_size = kFileBytes, .allow_write = true});
    spec.queue_depth = 16;
    spec.runtime = absl::ZeroDuration();
    spec.io_count = ios;
    return spec;
  }

  // Per I/O, total = slat + clat exactly, so the histograms' sums and
  // counts must agree exactly too.
  static void ExpectPartsAddUp(const ThreadSnapshot& t) {
    ASSERT_GT(t.ios, 0u);
    EXPECT_EQ(t.latency.Count(), t.ios);
    EXPECT_EQ(t.submit_latency.Count(), t.ios);
    EXPECT_EQ(t.completion_latency.Count(), t.ios);
    EXPECT_EQ(t.latency.Sum(),
              t.submit_latency.Sum() + t.completion_latency.Sum());
    EXPECT_LE(t.submit_latency.Max(), t.latency.Max());
    EXPECT_LE(t.completion_latency.Max(), t.latency.Max());
  }

  std::string path_;
};

TEST_F(LatencyTest, BatchModeLatencyIsSubmissionPlusCompletion) {
  const WorkloadSnapshot s = RunToEnd(CountedSpec(4000));
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_EQ(s.total.ios, 4000u);
  ExpectPartsAddUp(s.total);
  for (const ThreadSnapshot& t : s.threads) ExpectPartsAddUp(t);
  // Batch turns: the parts are named batch_wait and after_wait (snapshot.h).
  EXPECT_TRUE(s.total.batch_turns);
  for (const ThreadSnapshot& t : s.threads) EXPECT_TRUE(t.batch_turns);
}

TEST_F(LatencyTest, PerIoModeLatencyIsSubmissionPlusCompletion) {
  WorkloadSpec spec = CountedSpec(4000);
  spec.latency_mode = LatencyMode::kPerIo;
  spec.direct = false;  // page cache: completes inline, the cheap case
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_EQ(s.total.ios, 4000u);
  ExpectPartsAddUp(s.total);
  EXPECT_FALSE(s.total.batch_turns);  // fio's slat and clat
}

// An open loop takes per_io turns whatever latency_mode says: its parts
// are fio's slat and clat, not batch turns'.
TEST_F(LatencyTest, OpenLoopInBatchModeTakesPerIoTurns) {
  WorkloadSpec spec = CountedSpec(2000);
  spec.latency_mode = LatencyMode::kBatch;
  spec.direct = false;
  spec.rate_iops = 20000;
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_GT(s.total.ios, 0u);
  EXPECT_FALSE(s.total.batch_turns);
  for (const std::string& note : s.notes) {
    EXPECT_EQ(note.find("batch_wait"), std::string::npos) << note;
  }
}

TEST_F(LatencyTest, PerIoModeNeverWaitsForABatch) {
  // With direct I/O, batch mode waits for complete_batch completions per
  // enter once the queue is full; per_io waits for one, so it makes at
  // least as many calls as batch mode's 1 per complete_batch I/Os.
  WorkloadSpec spec = CountedSpec(2000);
  spec.latency_mode = LatencyMode::kPerIo;
  spec.complete_batch = 16;
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ExpectPartsAddUp(s.total);
  EXPECT_GE(s.total.enter_calls, s.total.ios / 16);
}

// Fills the file with 0xff, so blocks a write did not reach are visible
// afterwards (what a write puts there is whatever its buffer held).
void FillWithOnes(const std::string& path, uint64_t bytes) {
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  std::vector<char> ones(1 << 20, static_cast<char>(0xff));
  for (uint64_t done = 0; done < bytes; done += ones.size()) {
    ASSERT_EQ(write(fd, ones.data(), ones.size()),
              static_cast<ssize_t>(ones.size()));
  }
  close(fd);
}

// Blocks of `block` bytes that are all 0xff still: never written.
uint64_t BlocksStillOnes(const std::string& path, uint32_t block) {
  const int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  std::vector<unsigned char> buffer(block);
  uint64_t untouched = 0;
  while (read(fd, buffer.data(), block) == static_cast<ssize_t>(block)) {
    bool all_ones = true;
    for (unsigned char c : buffer) all_ones = all_ones && c == 0xff;
    untouched += all_ones;
  }
  close(fd);
  return untouched;
}

TEST_F(LatencyTest, SequentialWritesAdvanceByBlockSizeNotAlignment) {
  FillWithOnes(path_, kFileBytes);
  WorkloadSpec spec;
  spec.targets.push_back({.path = path_, .allow_write = true});
  spec.op = Op::kWrite;
  spec.block_size = 64 << 10;
  spec.alignment = 4096;  // used to be the sequential step
  spec.queue_depth = 4;
  spec.runtime = absl::ZeroDuration();
  spec.io_count = kFileBytes / spec.block_size;  // exactly one pass
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_EQ(s.total.bytes, kFileBytes);
  EXPECT_EQ(BlocksStillOnes(path_, spec.block_size), 0u)
      << "a pass left blocks unwritten";
}

TEST_F(LatencyTest, PhasesTileTheMeasuredTime) {
  WorkloadSpec spec = CountedSpec(0);
  spec.io_count = 0;
  spec.runtime = absl::Milliseconds(400);
  spec.ab_strategies = {{SplitStrategy::Kind::kNone, 0},
                        {SplitStrategy::Kind::kLimits, 0}};
  spec.ab_slice = absl::Milliseconds(10);
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ASSERT_GE(s.phases.size(), 10u);
  absl::Duration sum;
  for (size_t i = 0; i < s.phases.size(); ++i) {
    const PhaseSnapshot& p = s.phases[i];
    EXPECT_EQ(p.end - p.start, p.elapsed) << i;
    if (i > 0) {
      EXPECT_EQ(p.start, s.phases[i - 1].end) << i;
    }
    sum += p.elapsed;
  }
  EXPECT_EQ(s.phases.front().start, absl::ZeroDuration());
  EXPECT_EQ(s.phases.back().end, s.elapsed);
  EXPECT_EQ(sum, s.elapsed);
}

// A workload's phases are bounded (phase_report.h): past 64 they are
// reported merged, while A/B medians still cover every slice.
TEST_F(LatencyTest, ManyPhasesAreReportedBoundedAndAbCoversEverySlice) {
  WorkloadSpec spec = CountedSpec(0);
  spec.io_count = 0;
  spec.runtime = absl::Seconds(1);
  spec.ab_strategies = {{SplitStrategy::Kind::kNone, 0},
                        {SplitStrategy::Kind::kLimits, 0}};
  spec.ab_slice = absl::Milliseconds(10);  // about 100 phases
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ASSERT_GT(s.phases_total, static_cast<int>(kMaxReportedPhases));
  ASSERT_EQ(s.phases.size(), kMaxReportedPhases);
  EXPECT_EQ(s.phases.back().strategy, "merged: limits, none");
  EXPECT_THAT(s.notes, ::testing::Contains(HasSubstr(
                           "reported merged into phase 63")));
  uint64_t ios = 0;
  absl::Duration time;
  for (const PhaseSnapshot& p : s.phases) {
    ios += p.total.ios;
    time += p.elapsed;
  }
  EXPECT_EQ(ios, s.total.ios);
  EXPECT_EQ(time, s.elapsed);
  int slices = 0;
  for (const AbStrategyResult& r : s.ab) slices += r.slices;
  EXPECT_GT(slices, static_cast<int>(kMaxReportedPhases));
}

TEST_F(LatencyTest, AbMedianOnTooFewSlicesCarriesANote) {
  WorkloadSpec spec = CountedSpec(0);
  spec.io_count = 0;
  spec.runtime = absl::Milliseconds(250);
  spec.ab_strategies = {{SplitStrategy::Kind::kNone, 0},
                        {SplitStrategy::Kind::kLimits, 0}};
  spec.ab_slice = absl::Milliseconds(100);  // at most 2 slices of "none"
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.ab.size(), 2u);
  for (const AbStrategyResult& r : s.ab) {
    ASSERT_LT(r.slices, kMinAbSlices);
    EXPECT_THAT(r.note, HasSubstr(absl::StrCat("rests on ", r.slices)));
  }
}

}  // namespace
}  // namespace blkperf
