// Fleet runs through the manager over the real engine, on a temporary file:
// an expired arm lease gives the target and CPU back, and a released run
// reports when its I/O began.
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

}  // namespace
}  // namespace blkperf
