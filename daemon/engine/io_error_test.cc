// Real I/O errors from a real block device: a loop device shrunk under a
// running workload. Reads that start past its new end transfer nothing (a
// short transfer); those already in flight when it shrank fail with EIO. Needs root
// (loop setup); skips with the reason otherwise. Touches only the loop
// device and the file it creates.
#include <string>

#include "daemon/engine/testing/loop_device_for_test.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kDeviceBytes = 64 << 20;

class IoErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!loop_.ok()) GTEST_SKIP() << loop_.why();
  }

  WorkloadSpec Spec(bool continue_on_error) const {
    WorkloadSpec spec;
    spec.targets.push_back({.path = loop_.path()});
    spec.queue_depth = 8;
    spec.runtime = absl::Seconds(continue_on_error ? 1 : 30);
    spec.continue_on_error = continue_on_error;
    return spec;
  }

  LoopDeviceForTest loop_{kDeviceBytes};
};

TEST_F(IoErrorTest, FirstEioStopsTheWorkloadNamingTargetAndOffset) {
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(Spec(false));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(loop_.Shrink(kDeviceBytes / 4));
  ASSERT_TRUE((*w)->WaitFor(absl::Seconds(10)));
  const WorkloadSnapshot s = (*w)->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFailed);
  ASSERT_TRUE(s.has_error);
  EXPECT_THAT(s.error.errno_value,
              ::testing::AnyOf(EIO, kShortTransferErrno));
  EXPECT_EQ(s.error.target, loop_.path());
  EXPECT_GE(s.error.offset, kDeviceBytes / 4);
  EXPECT_THAT(s.error.message,
              ::testing::AnyOf(HasSubstr("EIO (Input/output error) at "),
                               HasSubstr("short transfer: 0 of 4096 bytes at ")));
  EXPECT_THAT(s.error.message, HasSubstr(loop_.path()));
  EXPECT_GE(s.total.ErrorTotal(), 1u);
  EXPECT_EQ(s.total.inflight, 0u) << "in-flight I/O was not drained";
}

TEST_F(IoErrorTest, ContinueOnErrorCountsEachKindOfError) {
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(Spec(true));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(loop_.Shrink(kDeviceBytes / 4));
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  // Errors were counted: not a clean finish, with the first sites kept.
  EXPECT_EQ(s.state, WorkloadState::kFinishedWithErrors);
  ASSERT_EQ(s.error_sites.size(), static_cast<size_t>(kMaxErrorSites));
  for (const ErrorSite& site : s.error_sites) {
    EXPECT_EQ(site.target, loop_.path());
    EXPECT_GE(site.offset, kDeviceBytes / 4) << "a readable block failed";
    EXPECT_THAT(site.errno_value, ::testing::AnyOf(EIO, kShortTransferErrno));
  }
  uint64_t short_transfers = 0;
  for (const ErrorCount& e : s.total.errors) {
    if (e.errno_value == kShortTransferErrno) {
      EXPECT_EQ(e.name, "short transfer");
      short_transfers = e.count;
    } else {
      EXPECT_EQ(e.errno_value, EIO) << e.name;
      EXPECT_EQ(e.name, "EIO");
    }
  }
  EXPECT_GT(short_transfers, 10u);
  // A quarter of the device still reads fine.
  EXPECT_GT(s.total.ios, 10u);
  EXPECT_EQ(s.total.bytes, s.total.ios * 4096);
}

}  // namespace
}  // namespace blkperf
