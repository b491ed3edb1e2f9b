// Kernel splitting, observed on a real block device: a loop device whose
// queue/max_sectors_kb the test lowers. Needs root (loop setup); skips with
// the reason otherwise. Touches only the loop device and file it creates.
#include <string>

#include "daemon/engine/testing/loop_device_for_test.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

constexpr int kMaxSectorsKb = 64;

class SplitDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!loop_.ok()) GTEST_SKIP() << loop_.why();
    loop_.SetQueueLimit("max_sectors_kb", kMaxSectorsKb);
  }

  WorkloadSpec Spec(SplitStrategy strategy) const {
    WorkloadSpec spec;
    spec.targets.push_back({.path = loop_.path()});
    spec.op = Op::kRandRead;
    spec.block_size = 1 << 20;
    spec.queue_depth = 4;
    spec.runtime = absl::ZeroDuration();
    spec.io_count = 200;
    spec.split = strategy;
    return spec;
  }


  LoopDeviceForTest loop_{64 << 20};
};

TEST_F(SplitDeviceTest, LimitsSendsRequestsTheKernelNeedNotSplit) {
  const WorkloadSnapshot s = RunToEnd(Spec({SplitStrategy::Kind::kLimits, 0}));
  EXPECT_EQ(s.state, WorkloadState::kFinished);
  EXPECT_EQ(s.total.ios, 200u);
  ASSERT_TRUE(s.device.available);
  EXPECT_EQ(s.total.sqes, 200u * (1024 / kMaxSectorsKb));
  EXPECT_DOUBLE_EQ(s.device.requests_per_sqe, 1.0);
}

TEST_F(SplitDeviceTest, NoneLeavesTheKernelToSplit) {
  const WorkloadSnapshot s = RunToEnd(Spec({SplitStrategy::Kind::kNone, 0}));
  EXPECT_EQ(s.total.sqes, 200u);
  ASSERT_TRUE(s.device.available);
  // 1 MiB / 64 KiB = 16 requests per SQE (merges could only lower it).
  EXPECT_NEAR(s.device.requests_per_sqe, 1024.0 / kMaxSectorsKb, 0.5);
}

TEST_F(SplitDeviceTest, SwitchingMidRunKeepsDeviceCountsConsistent) {
  WorkloadSpec spec = Spec({SplitStrategy::Kind::kNone, 0});
  spec.io_count = 0;
  spec.runtime = absl::Milliseconds(800);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  absl::SleepFor(absl::Milliseconds(400));
  ASSERT_TRUE((*w)->SetSplitStrategy({SplitStrategy::Kind::kLimits, 0}).ok());
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  ASSERT_EQ(s.phases.size(), 2u);
  uint64_t requests = 0, ios = 0, sqes = 0;
  for (const PhaseSnapshot& p : s.phases) {
    requests += p.device.requests;
    ios += p.total.ios;
    sqes += p.total.sqes;
  }
  EXPECT_EQ(requests, s.device.requests);
  EXPECT_EQ(ios, s.total.ios);
  EXPECT_EQ(sqes, s.total.sqes);
  EXPECT_GT(s.phases[0].device.requests_per_sqe, 8.0);
  EXPECT_NEAR(s.phases[1].device.requests_per_sqe, 1.0, 0.1);
}

TEST_F(SplitDeviceTest, FixedSizeMustBeAMultipleOfTheLogicalBlock) {
  WorkloadSpec spec = Spec({SplitStrategy::Kind::kFixed, 1000});
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(w.status().message()).find("split"), std::string::npos);
}

}  // namespace
}  // namespace blkperf
