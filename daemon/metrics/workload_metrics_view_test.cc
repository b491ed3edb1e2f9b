#include "daemon/metrics/workload_metrics_view.h"

#include "gtest/gtest.h"

namespace blkperf {
namespace {

WorkloadSpec Spec() {
  WorkloadSpec spec;
  spec.targets = {{.path = "/dev/zram0"}, {.path = "/dev/zram1"}};
  spec.op = Op::kRandRW;
  spec.read_percent = 70;
  spec.block_size = 65536;
  spec.queue_depth = 64;
  spec.threads = 2;
  spec.split = {.kind = SplitStrategy::Kind::kFixed, .fixed_bytes = 16384};
  return spec;
}

TEST(WorkloadMetricsViewTest, SpecSummaryNamesWhatTellsWorkloadsApart) {
  EXPECT_EQ(MetricsSpecSummary(Spec()),
            "randrw read_percent=70 bs=65536 qd=64 threads=2 "
            "targets=/dev/zram0,/dev/zram1");
  WorkloadSpec spec = Spec();
  spec.op = Op::kRead;
  spec.polled = PollMode::kOn;
  spec.sqpoll = true;
  spec.direct = false;
  EXPECT_EQ(MetricsSpecSummary(spec),
            "read bs=65536 qd=64 threads=2 polled=on sqpoll buffered "
            "targets=/dev/zram0,/dev/zram1");
}

TEST(WorkloadMetricsViewTest, StrategyFromSnapshotWhenTheEngineReportsOne) {
  WorkloadSnapshot snapshot;
  snapshot.state = WorkloadState::kFinished;
  const absl::Time end = absl::FromUnixSeconds(100);
  WorkloadMetricsView v = MakeWorkloadMetricsView("w3", Spec(), snapshot, end);
  EXPECT_EQ(v.id, "w3");
  EXPECT_EQ(v.op, "randrw");
  EXPECT_EQ(v.split_strategy, "fixed:16384");
  EXPECT_EQ(v.targets, (std::vector<std::string>{"/dev/zram0", "/dev/zram1"}));
  EXPECT_EQ(v.finished_at, end);
  EXPECT_EQ(v.snapshot.state, WorkloadState::kFinished);

  snapshot.split_strategy = "limits";
  v = MakeWorkloadMetricsView("w3", Spec(), snapshot, absl::InfinitePast());
  EXPECT_EQ(v.split_strategy, "limits");
}

TEST(WorkloadMetricsViewTest, VerifyAndSyncsFromTheSpecAndItsGroups) {
  WorkloadMetricsView v = MakeWorkloadMetricsView("w1", Spec(), {},
                                                  absl::InfinitePast());
  EXPECT_FALSE(v.verify);
  EXPECT_FALSE(v.syncs);
  WorkloadSpec spec = Spec();
  spec.verify = true;
  spec.fdatasync_every = 8;
  v = MakeWorkloadMetricsView("w1", spec, {}, absl::InfinitePast());
  EXPECT_TRUE(v.verify);
  EXPECT_TRUE(v.syncs);
  spec = Spec();
  spec.groups.emplace_back().fsync_every = 4;
  v = MakeWorkloadMetricsView("w1", spec, {}, absl::InfinitePast());
  EXPECT_TRUE(v.syncs);
}

TEST(WorkloadMetricsViewTest, AbArmsAndDirectFromTheSpec) {
  WorkloadMetricsView v = MakeWorkloadMetricsView("w1", Spec(), {},
                                                  absl::InfinitePast());
  EXPECT_TRUE(v.ab_strategies.empty());
  EXPECT_TRUE(v.direct);
  WorkloadSpec spec = Spec();
  spec.direct = false;
  spec.ab_strategies = {{.kind = SplitStrategy::Kind::kNone},
                        {.kind = SplitStrategy::Kind::kFixed,
                         .fixed_bytes = 1024}};
  v = MakeWorkloadMetricsView("w1", spec, {}, absl::InfinitePast());
  EXPECT_EQ(v.ab_strategies, (std::vector<std::string>{"none", "fixed:1024"}));
  EXPECT_FALSE(v.direct);
}

}  // namespace
}  // namespace blkperf
