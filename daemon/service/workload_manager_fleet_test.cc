// The manager's side of fleet runs over the fake backend: run ids, Arm, Go,
// AbortRun, leases and the --max_armed limit.
#include <time.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/clock.h"
#include "daemon/service/fake_backend.h"
#include "daemon/service/workload_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class FleetManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(ManagerLimits{}); }

  void Make(ManagerLimits limits) {
    manager_.reset();
    auto backend = std::make_unique<FakeBackend>();
    fake_ = backend.get();
    fake_->AddFile("/data/a", 1 << 30);
    fake_->AddFile("/data/b", 1 << 30);
    manager_ = std::make_unique<WorkloadManager>(
        std::move(backend), limits,
        AccessPolicy::Create({"/data/"}, {"/data/"}, ""));
  }

  static WorkloadSpec Spec(const std::string& path, std::vector<int> cpus) {
    WorkloadSpec spec;
    spec.targets.push_back({.path = path});
    spec.cpus = std::move(cpus);
    return spec;
  }

  ArmResult ArmOrDie(const std::string& run_id, const std::string& path,
                     int cpu, absl::Duration lease = absl::ZeroDuration()) {
    absl::StatusOr<ArmResult> r = manager_->Arm(Spec(path, {cpu}), run_id, lease);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *std::move(r) : ArmResult{};
  }

  FakeBackend* fake_ = nullptr;
  std::unique_ptr<WorkloadManager> manager_;
};

TEST_F(FleetManagerTest, ArmWaitsArmedWithItsRunIdAndLease) {
  const absl::Time before = absl::Now();
  const ArmResult r = ArmOrDie("run-1", "/data/a", 0);
  EXPECT_FALSE(r.existing);
  EXPECT_EQ(r.view.snapshot.state, WorkloadState::kArmed);
  EXPECT_EQ(r.view.run_id, "run-1");
  EXPECT_GE(r.view.lease_end, before + kDefaultArmLease);
  EXPECT_LT(r.view.lease_end, absl::Now() + kDefaultArmLease);
  ASSERT_EQ(fake_->workloads().size(), 1u);
  EXPECT_TRUE(fake_->last()->armed());
  EXPECT_EQ(manager_->BusyCpus(), std::vector<int>{0});  // holds its CPU
}

// Run ids are per owner: the same run id of two owners names two runs;
// neither answers (existing) nor blocks the other, and Go, Abort and
// GetRun find only the given owner's.
TEST_F(FleetManagerTest, RunIdsArePerOwner) {
  absl::StatusOr<ArmResult> mallory = manager_->Arm(
      Spec("/data/b", {1}), "run-1", absl::ZeroDuration(), "mallory");
  ASSERT_TRUE(mallory.ok()) << mallory.status();
  absl::StatusOr<ArmResult> alice = manager_->Arm(
      Spec("/data/a", {0}), "run-1", absl::ZeroDuration(), "alice");
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_FALSE(alice->existing);
  EXPECT_NE(alice->view.id, mallory->view.id);
  // Alice's spec under mallory's name is mallory's run: it conflicts with
  // alice's workload (CPU 0) like any other, never answers with it.
  absl::StatusOr<ArmResult> copy =
      manager_->Start(Spec("/data/a", {0}), "run-1", "mallory");
  EXPECT_EQ(copy.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(copy.status().message()),
              Not(HasSubstr(alice->view.id + " with another spec")));

  EXPECT_EQ(manager_->GetRun("run-1", "alice")->id, alice->view.id);
  EXPECT_EQ(manager_->GetRun("run-1", "mallory")->id, mallory->view.id);
  EXPECT_EQ(manager_->GetRun("run-1", "eve").status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<WorkloadView> aborted =
      manager_->Abort("run-1", "mine", "mallory");
  ASSERT_TRUE(aborted.ok()) << aborted.status();
  EXPECT_EQ(aborted->id, mallory->view.id);
  EXPECT_EQ(manager_->GetRun("run-1", "alice")->snapshot.state,
            WorkloadState::kArmed);
  absl::StatusOr<WorkloadView> go =
      manager_->Go("run-1", MonotonicNowNs(), "alice");
  ASSERT_TRUE(go.ok()) << go.status();
  EXPECT_EQ(go->id, alice->view.id);
}

TEST_F(FleetManagerTest, RetriedArmOrStartReturnsTheSameWorkload) {
  const ArmResult first = ArmOrDie("run-1", "/data/a", 0);
  const ArmResult again = ArmOrDie("run-1", "/data/a", 0);
  EXPECT_TRUE(again.existing);
  EXPECT_EQ(again.view.id, first.view.id);
  absl::StatusOr<ArmResult> start = manager_->Start(Spec("/data/a", {0}), "run-1");
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_TRUE(start->existing);
  EXPECT_EQ(start->view.id, first.view.id);
  EXPECT_EQ(fake_->workloads().size(), 1u);  // never a second workload

  absl::StatusOr<ArmResult> other =
      manager_->Arm(Spec("/data/b", {1}), "run-1", absl::ZeroDuration());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("run_id \"run-1\" already names workload w1"));
  EXPECT_EQ(fake_->workloads().size(), 1u);
}

TEST_F(FleetManagerTest, StartWithARunIdIsIdempotentToo) {
  absl::StatusOr<ArmResult> a = manager_->Start(Spec("/data/a", {0}), "s-1");
  absl::StatusOr<ArmResult> b = manager_->Start(Spec("/data/a", {0}), "s-1");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->existing);
  EXPECT_TRUE(b->existing);
  EXPECT_EQ(a->view.snapshot.state, WorkloadState::kRunning);
  EXPECT_EQ(fake_->workloads().size(), 1u);
  // A started (not armed) run cannot be released.
  EXPECT_EQ(manager_->Go("s-1", MonotonicNowNs()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(FleetManagerTest, BadRunIdsAndLeasesNameTheField) {
  for (const std::string& bad : {std::string(""), std::string("a b"),
                                 std::string("x/y"), std::string(65, 'r')}) {
    absl::StatusOr<ArmResult> r =
        manager_->Arm(Spec("/data/a", {0}), bad, absl::ZeroDuration());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("run_id \""));
  }
  // Never echoes more than 64 bytes of it.
  absl::StatusOr<ArmResult> huge = manager_->Arm(
      Spec("/data/a", {0}), std::string(100000, 'z'), absl::ZeroDuration());
  EXPECT_LT(huge.status().message().size(), 200u);
  EXPECT_EQ(manager_->Start(Spec("/data/a", {0}), "no spaces").status().code(),
            absl::StatusCode::kInvalidArgument);
  for (absl::Duration lease : {absl::Milliseconds(999), absl::Hours(2)}) {
    absl::StatusOr<ArmResult> r =
        manager_->Arm(Spec("/data/a", {0}), "run-1", lease);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("lease "));
  }
  EXPECT_TRUE(fake_->workloads().empty());
}

TEST_F(FleetManagerTest, LeaseExpiryAbortsAndReleasesTheClaims) {
  ArmOrDie("run-1", "/data/a", 0, absl::Seconds(1));
  absl::StatusOr<WorkloadView> blocked = manager_->Start(Spec("/data/a", {3}));
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kFailedPrecondition);
  absl::SleepFor(absl::Milliseconds(1300));  // lease + the 100 ms reaper
  absl::StatusOr<WorkloadView> v = manager_->Get("w1");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->snapshot.state, WorkloadState::kAborted);
  EXPECT_THAT(v->end_reason, HasSubstr("arm lease of 1s ran out"));
  EXPECT_TRUE(fake_->workloads()[0]->aborted());
  EXPECT_EQ(manager_->Go("run-1", MonotonicNowNs()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // Its CPU and target are free again.
  absl::StatusOr<WorkloadView> next = manager_->Start(Spec("/data/a", {0}));
  EXPECT_TRUE(next.ok()) << next.status();
}

TEST_F(FleetManagerTest, GoReleasesOnceAndChecksTheInstant) {
  ArmOrDie("run-1", "/data/a", 0, absl::Seconds(10));
  EXPECT_EQ(manager_->Go("run-2", MonotonicNowNs()).status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<WorkloadView> zero = manager_->Go("run-1", 0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero.status().message()),
              HasSubstr("start_monotonic_ns 0"));
  absl::StatusOr<WorkloadView> late =
      manager_->Go("run-1", MonotonicNowNs() + 20'000'000'000);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(late.status().message()),
              HasSubstr("after the arm lease ends"));
  EXPECT_TRUE(fake_->last()->armed());

  const int64_t at = MonotonicNowNs() + 500'000'000;
  absl::StatusOr<WorkloadView> go = manager_->Go("run-1", at);
  ASSERT_TRUE(go.ok()) << go.status();
  EXPECT_EQ(fake_->last()->go_at(), at);
  EXPECT_FALSE(fake_->last()->armed());
  EXPECT_EQ(go->lease_end, absl::InfiniteFuture());  // no lease once released
  absl::StatusOr<WorkloadView> retry = manager_->Go("run-1", at + 1);
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(fake_->last()->go_at(), at);  // unchanged
  // Released: the lease no longer applies.
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_FALSE(fake_->last()->aborted());
}

TEST_F(FleetManagerTest, GoInThePastIsAccepted) {
  ArmOrDie("run-1", "/data/a", 0);
  absl::StatusOr<WorkloadView> go = manager_->Go("run-1", 1);
  ASSERT_TRUE(go.ok()) << go.status();
  EXPECT_EQ(fake_->last()->go_at(), 1);
}

TEST_F(FleetManagerTest, AbortEndsArmedOrRunningAndIsIdempotent) {
  ArmOrDie("run-1", "/data/a", 0);
  absl::StatusOr<WorkloadView> aborted = manager_->Abort("run-1", "ctrl-c");
  ASSERT_TRUE(aborted.ok()) << aborted.status();
  EXPECT_EQ(aborted->snapshot.state, WorkloadState::kAborted);
  EXPECT_EQ(aborted->end_reason, "aborted by AbortRun: ctrl-c");
  absl::StatusOr<WorkloadView> again = manager_->Abort("run-1", "other");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->end_reason, "aborted by AbortRun: ctrl-c");
  EXPECT_EQ(manager_->Go("run-1", MonotonicNowNs()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(manager_->Abort("nope", "x").status().code(),
            absl::StatusCode::kNotFound);

  ArmOrDie("run-2", "/data/b", 1);
  ASSERT_TRUE(manager_->Go("run-2", MonotonicNowNs()).ok());
  aborted = manager_->Abort("run-2", "host lost");
  ASSERT_TRUE(aborted.ok());
  EXPECT_EQ(aborted->snapshot.state, WorkloadState::kAborted);
}

TEST_F(FleetManagerTest, AbortReasonIsCutOnACharacterBoundary) {
  ArmOrDie("run-1", "/data/a", 0);
  std::string reason;
  while (reason.size() < 1000) reason += "\xC3\xA9";  // "é", 2 bytes each
  reason = "x" + reason;  // odd offset: byte 256 falls inside a character
  absl::StatusOr<WorkloadView> v = manager_->Abort("run-1", reason);
  ASSERT_TRUE(v.ok());
  const std::string kept =
      v->end_reason.substr(std::string("aborted by AbortRun: ").size());
  EXPECT_EQ(kept.size(), 255u);
  EXPECT_EQ(kept, reason.substr(0, 255));
}

TEST_F(FleetManagerTest, MaxArmedBoundsWaitingWorkloads) {
  ManagerLimits limits;
  limits.max_armed = 1;
  Make(limits);
  ArmOrDie("run-1", "/data/a", 0);
  absl::StatusOr<ArmResult> second =
      manager_->Arm(Spec("/data/b", {1}), "run-2", absl::ZeroDuration());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("--max_armed=1"));
  ASSERT_TRUE(manager_->Go("run-1", MonotonicNowNs()).ok());
  second = manager_->Arm(Spec("/data/b", {1}), "run-2", absl::ZeroDuration());
  EXPECT_TRUE(second.ok()) << second.status();
}

TEST_F(FleetManagerTest, ScheduledSplitSwitchGoesToTheWorkload) {
  absl::StatusOr<WorkloadView> w = manager_->Start(Spec("/data/a", {0}));
  ASSERT_TRUE(w.ok());
  const int64_t at = MonotonicNowNs() + 1'000'000'000;
  absl::StatusOr<std::string> split =
      manager_->SetSplitStrategy(w->id, "fixed:4k", at);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(*split, "fixed:4096");
  EXPECT_EQ(fake_->last()->split_at(), at);
  absl::StatusOr<std::string> bad = manager_->SetSplitStrategy(w->id, "none", -5);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("at_monotonic_ns -5"));
}

}  // namespace
}  // namespace blkperf
