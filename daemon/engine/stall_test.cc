// A device that really stops completing: a FUSE file whose reads are never
// answered once its server gets SIGUSR1 (testing/fuse_file_for_test.h).
// The workload on it must end FAILED within io_timeout (plus a check
// interval), naming target, offset and age, while its snapshots stay
// prompt and another workload keeps running. Needs root and /dev/fuse (to
// mount); skips with the reason otherwise. Mounts and unmounts its own
// file system in TEST_TMPDIR.
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/engine/testing/fuse_file_for_test.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/timing/pause_witness.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kFuseFileBytes = StallingFuseFile::kDefaultBytes;

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// Both request caches: the stall check finds the stalled I/O in each's own
// way (the thread's requests not in its cache; the shared one's slots).
class StallTest : public ::testing::TestWithParam<RequestCacheMode> {
 protected:
  void SetUp() override {
    if (!fuse_.ok()) GTEST_SKIP() << fuse_.why();
    other_path_ = absl::StrCat(TempDir(), "/stall_other_", getpid(), ".dat");
  }
  void TearDown() override { unlink(other_path_.c_str()); }

  StallingFuseFile fuse_;
  std::string other_path_;
};

TEST_P(StallTest, StalledDeviceFailsTheWorkloadAndNothingElse) {
  WorkloadSpec stalled;
  stalled.request_cache = GetParam();
  stalled.targets.push_back({.path = fuse_.path()});
  stalled.direct = false;  // direct_io is the server's; no O_DIRECT on FUSE
  stalled.queue_depth = 4;
  stalled.runtime = absl::Seconds(60);
  stalled.io_timeout = absl::Milliseconds(300);
  absl::StatusOr<std::unique_ptr<Workload>> a = StartWorkload(stalled);
  ASSERT_TRUE(a.ok()) << a.status();

  WorkloadSpec other;
  other.targets.push_back(
      {.path = other_path_, .create_size = 4 << 20, .allow_write = true});
  other.queue_depth = 4;
  other.runtime = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<Workload>> b = StartWorkload(other);
  ASSERT_TRUE(b.ok()) << b.status();

  absl::SleepFor(absl::Milliseconds(200));
  const uint64_t before_stall = (*a)->Snapshot().total.ios;
  ASSERT_GT(before_stall, 0u) << "the FUSE file never completed a read";
  fuse_.Stall();
  const absl::Time stalled_at = absl::Now();

  // Snapshots of the stalled workload answer promptly the whole time.
  bool finished = false;
  while (!finished && absl::Now() - stalled_at < absl::Seconds(10)) {
    const absl::Time t0 = absl::Now();
    const WorkloadSnapshot s = (*a)->Snapshot();
    EXPECT_LT(absl::Now() - t0, absl::Milliseconds(500));
    finished = IsTerminal(s.state);
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(finished) << "a stalled device held the workload";
  // Reported within io_timeout plus a check interval plus a wait tick;
  // the bound here only catches "never".
  EXPECT_LT(absl::Now() - stalled_at, absl::Seconds(5));

  const WorkloadSnapshot s = (*a)->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFailed);
  ASSERT_TRUE(s.has_error);
  EXPECT_EQ(s.error.errno_value, ETIMEDOUT);
  EXPECT_EQ(s.error.target, fuse_.path());
  EXPECT_LT(s.error.offset, kFuseFileBytes);
  EXPECT_THAT(s.error.message, HasSubstr("I/O timeout: read of 4096 bytes at "));
  EXPECT_THAT(s.error.message, HasSubstr(absl::StrCat("offset ", s.error.offset)));
  EXPECT_THAT(s.error.message, HasSubstr("outstanding for "));
  EXPECT_THAT(s.error.message, HasSubstr("io_timeout 300ms"));
  ASSERT_FALSE(s.error_sites.empty());
  EXPECT_EQ(s.error_sites[0].errno_value, ETIMEDOUT);
  EXPECT_GE(s.total.ErrorTotal(), 1u);

  // The other workload never noticed.
  const uint64_t other_before = (*b)->Snapshot().total.ios;
  absl::SleepFor(absl::Milliseconds(200));
  const WorkloadSnapshot other_now = (*b)->Snapshot();
  EXPECT_EQ(other_now.state, WorkloadState::kRunning);
  EXPECT_GT(other_now.total.ios, other_before);
  (*b)->RequestStop();
  (*b)->Wait();
  // Its submitters wait out the stalled reads after it is gone.
  a->reset();
}

TEST_P(StallTest, StopIsHonouredWhileTheDeviceIsSilent) {
  WorkloadSpec spec;
  spec.request_cache = GetParam();
  spec.targets.push_back({.path = fuse_.path()});
  spec.direct = false;
  spec.queue_depth = 2;
  spec.runtime = absl::Seconds(60);
  spec.io_timeout = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  absl::SleepFor(absl::Milliseconds(100));
  fuse_.Stall();
  absl::SleepFor(absl::Milliseconds(100));
  const absl::Time asked = absl::Now();
  (*w)->RequestStop();
  // The loop sees the stop within a wait tick; the drain then gives up on
  // the stalled reads after io_timeout and reports them.
  ASSERT_TRUE((*w)->WaitFor(absl::Seconds(5)));
  EXPECT_LT(absl::Now() - asked, absl::Seconds(3));
  const WorkloadSnapshot s = (*w)->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFailed);
  EXPECT_EQ(s.error.errno_value, ETIMEDOUT);
}

INSTANTIATE_TEST_SUITE_P(
    RequestCaches, StallTest,
    ::testing::Values(RequestCacheMode::kPerCpu, RequestCacheMode::kShared),
    [](const ::testing::TestParamInfo<RequestCacheMode>& info) {
      return info.param == RequestCacheMode::kPerCpu ? "PerCpu" : "Shared";
    });

TEST(AbStallTest, SwitchesKeepTheirScheduleWhileAThreadCannotTakeThemUp) {
  // Every read held 300 ms: the thread waits for completions a tick
  // (50 ms) at a time and takes each switch up only between waits, so
  // with 20 ms slices the wait for it ends 15 ms into the slice, every
  // switch still begins on time (within 10 ms, and later only by as long
  // as the machine was seen paused in the slice before: this VM's vCPUs
  // stop for 10-50 ms at times; waits of 1 s made every switch 30-120 ms
  // late), and the report says whose counts were read late.
  testing::PauseWitness witness;
  StallingFuseFile fuse({"--stall_ms=300"});
  if (!fuse.ok()) GTEST_SKIP() << fuse.why();
  constexpr absl::Duration kSlice = absl::Milliseconds(20);
  WorkloadSpec spec;
  spec.targets.push_back({.path = fuse.path()});
  spec.direct = false;  // direct_io is the server's; no O_DIRECT on FUSE
  spec.queue_depth = 4;
  spec.block_size = 16 << 10;
  spec.runtime = absl::Milliseconds(800);
  spec.ab_strategies = {{SplitStrategy::Kind::kNone, 0},
                        {SplitStrategy::Kind::kFixed, 4096}};
  spec.ab_slice = kSlice;
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  absl::SleepFor(absl::Milliseconds(200));
  fuse.StallFor();
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  ASSERT_GE(s.phases.size(), 35u);
  ExpectPhasesOnTime(s, kSlice, absl::Milliseconds(10), witness);
  EXPECT_THAT(s.notes, ::testing::Contains(HasSubstr(
                           "thread 0 had not taken up split switch")));
}

}  // namespace
}  // namespace blkperf
