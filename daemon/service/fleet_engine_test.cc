// Fleet runs through the manager over the real engine, on a temporary file:
// an expired arm lease gives the target and CPU back, a released run
// reports when its I/O began, and workload shapes run armed as they run
// started (an open-loop schedule that begins at the instant, an SLO search).
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/service/workload_backend.h"
#include "daemon/service/workload_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/workload_spec.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

class FleetEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/");
    path_ = absl::StrCat(dir_, "fleet_", getpid(), ".dat");
    unlink(path_.c_str());
    manager_ = std::make_unique<WorkloadManager>(
        NewEngineBackend(), ManagerLimits{},
        AccessPolicy::Create({dir_}, {dir_}, ""));
  }
  void TearDown() override {
    manager_.reset();
    unlink(path_.c_str());
  }

  WorkloadSpec Spec(absl::Duration runtime) const {
    WorkloadSpec spec;
    spec.targets.push_back(
        {.path = path_, .create_size = 8 << 20, .allow_write = true});
    spec.queue_depth = 4;
    spec.cpus = {0};
    spec.runtime = runtime;
    return spec;
  }

  // Arms `spec` as fleet run `run_id`, releases it `delay` after the arm,
  // and returns the workload once it has ended.
  WorkloadView ArmGoAndWait(const WorkloadSpec& spec, const std::string& run_id,
                            absl::Duration delay, int64_t* at_ns) {
    absl::StatusOr<ArmResult> armed =
        manager_->Arm(spec, run_id, absl::ZeroDuration());
    EXPECT_TRUE(armed.ok()) << armed.status();
    if (!armed.ok()) return {};
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *at_ns = int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec +
             absl::ToInt64Nanoseconds(delay);
    EXPECT_TRUE(manager_->Go(run_id, *at_ns).ok());
    absl::StatusOr<WorkloadView> v;
    for (int i = 0; i < 400; ++i) {
      v = manager_->Get(armed->view.id);
      EXPECT_TRUE(v.ok()) << v.status();
      if (!v.ok() || IsTerminal(v->snapshot.state)) break;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return v.ok() ? *std::move(v) : WorkloadView{};
  }

  std::string dir_, path_;
  std::unique_ptr<WorkloadManager> manager_;
};

TEST_F(FleetEngineTest, ExpiredLeaseReleasesTheTargetForTheNextWorkload) {
  absl::StatusOr<ArmResult> armed =
      manager_->Arm(Spec(absl::Seconds(1)), "lease-run", absl::Seconds(1));
  ASSERT_TRUE(armed.ok()) << armed.status();
  EXPECT_EQ(armed->view.snapshot.state, WorkloadState::kArmed);
  absl::StatusOr<WorkloadView> blocked =
      manager_->Start(Spec(absl::Milliseconds(100)));
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(blocked.status().message()), HasSubstr("in use"));

  absl::SleepFor(absl::Milliseconds(1500));
  absl::StatusOr<WorkloadView> expired = manager_->Get(armed->view.id);
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(expired->snapshot.state, WorkloadState::kAborted);
  EXPECT_THAT(expired->end_reason, HasSubstr("lease"));
  EXPECT_EQ(expired->snapshot.total.ios, 0u);  // it never issued I/O

  absl::StatusOr<WorkloadView> next =
      manager_->Start(Spec(absl::Milliseconds(100)));
  ASSERT_TRUE(next.ok()) << next.status();
}

TEST_F(FleetEngineTest, ReleasedRunReportsItsStart) {
  absl::StatusOr<ArmResult> armed = manager_->Arm(
      Spec(absl::Milliseconds(200)), "go-run", absl::ZeroDuration());
  ASSERT_TRUE(armed.ok()) << armed.status();
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const int64_t at =
      int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec + 100'000'000;
  ASSERT_TRUE(manager_->Go("go-run", at).ok());
  absl::StatusOr<WorkloadView> v;
  for (int i = 0; i < 100; ++i) {
    v = manager_->Get(armed->view.id);
    ASSERT_TRUE(v.ok());
    if (IsTerminal(v->snapshot.state)) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(v->snapshot.state, WorkloadState::kFinished);
  EXPECT_GT(v->snapshot.total.ios, 0u);
  EXPECT_EQ(v->snapshot.start.scheduled_monotonic_ns, at);
  EXPECT_GE(v->snapshot.start.first_monotonic_ns, at);
  EXPECT_GT(v->snapshot.start.first_realtime_ns, 0);
  EXPECT_EQ(v->run_id, "go-run");
}

// An armed open-loop run with zipf offsets and a block-size mix: its
// schedule starts with its first I/O after the instant, not at the arm, so
// the 400 ms between them shows nowhere (a schedule begun at the arm would
// put 800 I/Os 400 ms behind it at the start).
TEST_F(FleetEngineTest, ArmedOpenLoopShapeStartsItsScheduleAtTheInstant) {
  WorkloadSpec spec = Spec(absl::Seconds(1));
  spec.direct = false;  // the filled file is in the page cache
  spec.rate_iops = 2000;
  spec.arrivals = Arrivals::kPoisson;
  spec.distribution = {OffsetDistribution::Kind::kZipf, 1.2};
  spec.read_bssplit = {{4096, 70}, {65536, 30}};
  int64_t at = 0;
  const WorkloadView v =
      ArmGoAndWait(spec, "shaped-run", absl::Milliseconds(400), &at);
  ASSERT_EQ(v.snapshot.state, WorkloadState::kFinished)
      << v.snapshot.error.message;
  EXPECT_EQ(v.run_id, "shaped-run");
  EXPECT_GE(v.snapshot.start.first_monotonic_ns, at);
  const ThreadSnapshot& t = v.snapshot.total;
  ASSERT_GT(t.ios, 1000u);
  EXPECT_NEAR(t.Iops(v.snapshot.elapsed), 2000, 2000 * 0.1);
  EXPECT_EQ(t.intended_latency.Count(), t.ios);
  EXPECT_LT(t.intended_latency.Percentile(99), 100'000'000u)
      << "intended times from before the instant";
  // Only the two sizes of the mix.
  const uint64_t large = (t.bytes - 4096 * t.ios) / (65536 - 4096);
  EXPECT_EQ(large * 65536 + (t.ios - large) * 4096, t.bytes);
}

// An armed SLO search (as `blkperf fleet run --slo=...` arms one on every
// host) runs its steps from the instant and ends finished with its answer.
TEST_F(FleetEngineTest, ArmedSloSearchFinishesWithItsCurve) {
  WorkloadSpec spec = Spec(absl::Seconds(10));  // a search ignores runtime
  spec.direct = false;
  spec.slo.enabled = true;
  spec.slo.target = {.percentile = 99, .bound = absl::Seconds(1)};
  spec.slo.precision = 0.5;  // a closed-loop step and one bisection
  spec.slo.step = absl::Milliseconds(200);
  spec.slo.settle = absl::Milliseconds(50);
  int64_t at = 0;
  const WorkloadView v =
      ArmGoAndWait(spec, "slo-run", absl::Milliseconds(200), &at);
  ASSERT_EQ(v.snapshot.state, WorkloadState::kFinished)
      << v.snapshot.error.message;
  EXPECT_GE(v.snapshot.start.first_monotonic_ns, at);
  const SloSummary& slo = v.snapshot.slo;
  ASSERT_TRUE(slo.done) << slo.note;
  // The closed-loop step, one bisection, and the re-tests of the final
  // bracket (SloSteps(0.5) at most).
  ASSERT_GE(slo.steps.size(), 2u);
  ASSERT_LE(slo.steps.size(), static_cast<size_t>(SloSteps(0.5)));
  EXPECT_EQ(slo.steps[0].asked_iops, 0);  // the closed-loop step
  EXPECT_GT(slo.max_iops, 0);
  EXPECT_GT(slo.steps[1].ios, 0u);
  EXPECT_GT(slo.best_iops, 0) << slo.note;
}

}  // namespace
}  // namespace blkperf
