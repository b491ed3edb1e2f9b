// Fleet-run building blocks on a real file target: Arm (all set up, no I/O),
// Go at an instant of CLOCK_MONOTONIC, Abort, and switching the split
// strategy at an instant.
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "daemon/engine/host/process_threads.h"
#include "daemon/engine/host/realtime_priority.h"
#include "daemon/engine/ring/start_instant.h"
#include "daemon/engine/ring/submitter.h"
#include "daemon/engine/testing/drop_sys_nice.h"
#include "daemon/engine/workload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMs = 1'000'000;

class ArmedWorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/armed_", getpid(),
                         ".dat");
    unlink(path_.c_str());
  }
  void TearDown() override { unlink(path_.c_str()); }

  // Two threads (one per CPU where there are two) reading a fresh file.
  WorkloadSpec Spec(absl::Duration runtime) {
    WorkloadSpec spec;
    spec.targets.push_back(
        {.path = path_, .create_size = 16 << 20, .allow_write = true});
    spec.queue_depth = 8;
    spec.threads = 2;
    spec.cpus = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? std::vector<int>{0, 1}
                                                  : std::vector<int>{0, 0};
    spec.runtime = runtime;
    return spec;
  }

  std::unique_ptr<Workload> ArmOrDie(const WorkloadSpec& spec) {
    absl::StatusOr<std::unique_ptr<Workload>> w =
        Workload::Arm(spec, EngineLimits{});
    EXPECT_TRUE(w.ok()) << w.status();
    return w.ok() ? *std::move(w) : nullptr;
  }

  std::string path_;
};

TEST_F(ArmedWorkloadTest, ArmedWorkloadIssuesNoIo) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Seconds(1)));
  ASSERT_NE(w, nullptr);
  absl::SleepFor(absl::Milliseconds(300));
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kArmed);
  ASSERT_EQ(s.threads.size(), 2u);  // set up: every thread reports
  EXPECT_EQ(s.total.ios, 0u);
  EXPECT_EQ(s.total.sqes, 0u);
  EXPECT_EQ(s.total.enter_calls, 0u);
  EXPECT_EQ(s.total.inflight, 0u);
  EXPECT_EQ(s.start.threads_started, 0);
  EXPECT_EQ(s.start.measure_start_monotonic_ns, 0);
  EXPECT_EQ(s.elapsed, absl::ZeroDuration());
  EXPECT_FALSE(w->Finished());
  EXPECT_FALSE(w->Released());
}

TEST_F(ArmedWorkloadTest, GoReleasesEveryThreadAtTheInstant) {
  const absl::Duration runtime = absl::Milliseconds(300);
  std::unique_ptr<Workload> w = ArmOrDie(Spec(runtime));
  ASSERT_NE(w, nullptr);
  const int64_t at = MonotonicNowNs() + 200 * kMs;
  ASSERT_TRUE(w->Go(at).ok());
  EXPECT_TRUE(w->Released());
  EXPECT_EQ(w->Snapshot().state, WorkloadState::kArmed);  // until the instant
  EXPECT_EQ(w->Go(at).code(), absl::StatusCode::kFailedPrecondition);
  w->Wait();
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFinished);
  ASSERT_GT(s.total.ios, 0u);
  ASSERT_EQ(s.start.threads_started, 2);
  EXPECT_EQ(s.start.scheduled_monotonic_ns, at);
  // Never early, and released by the instant's own wake-up: neither at Arm
  // nor a polling period (100 ms) late. How close to the instant it lands
  // is a scheduling figure (printed below; the fleet tests measure skew
  // across hosts), not asserted to the microsecond here: this test shares
  // its CPUs with whatever else runs.
  EXPECT_GE(s.start.first_monotonic_ns, at);
  EXPECT_LT(s.start.first_monotonic_ns - at, 50 * kMs)
      << "first submit " << (s.start.first_monotonic_ns - at) << " ns late";
  // Both threads leave the gate on one futex wake.
  EXPECT_LT(s.start.last_monotonic_ns - s.start.first_monotonic_ns, 50 * kMs);
  std::cout << "first submit " << (s.start.first_monotonic_ns - at)
            << " ns after the instant, threads spread "
            << (s.start.last_monotonic_ns - s.start.first_monotonic_ns)
            << " ns\n";
  // The realtime stamp is the same instant in the other clock.
  timespec real, mono;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  const int64_t offset = (real.tv_sec - mono.tv_sec) * 1'000'000'000 +
                         (real.tv_nsec - mono.tv_nsec);
  EXPECT_NEAR(static_cast<double>(s.start.first_realtime_ns -
                                  s.start.first_monotonic_ns),
              static_cast<double>(offset), 20e6);
  // The measured window began at the instant itself, not at Arm nor at
  // whenever a thread woke.
  EXPECT_EQ(s.start.measure_start_monotonic_ns, at);
  EXPECT_GE(s.elapsed, runtime - absl::Milliseconds(5));
  EXPECT_LT(s.elapsed, runtime + absl::Milliseconds(150));
}

// The scheduling policy of every submitter thread ("blkperf-sub*").
std::vector<int> SubmitterPolicies() {
  std::vector<int> policies;
  ForEachProcessThread([&](pid_t tid, const std::string& name) {
    if (absl::StartsWith(name, "blkperf-sub")) {
      policies.push_back(sched_getscheduler(tid));
    }
  });
  return policies;
}

TEST_F(ArmedWorkloadTest, ArmedThreadsWaitAtRealTimeAndRunTheirIoAtTheNormalPolicy) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (CAP_SYS_NICE)";
  // Armed, each thread sleeps on the gate at SCHED_FIFO (woken at the
  // normal policy, threads were 23-343 ms late behind another process's
  // busy threads on their CPU); the gate opens a few ms before the instant, then
  // each thread sleeps until just before it. Looked at 2 ms before the spin
  // window by a thread that sleeps at a higher real-time priority (so it
  // wakes on time, and sleeps while the submitters run). A look that
  // ended after the threads' sleep tells nothing (a loaded CI host, an
  // ASan build reading /proc, once woke it 2.8 ms late): that workload
  // is aborted and the look repeated, three times at most.
  std::unique_ptr<Workload> w;
  std::vector<int> waiting;
  int64_t looked_at = 0, at = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (w != nullptr) {
      w->Abort();
      w->Wait();
    }
    w = ArmOrDie(Spec(absl::Milliseconds(400)));
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(SubmitterPolicies(), std::vector<int>(2, SCHED_FIFO));  // armed
    at = MonotonicNowNs() + 300 * kMs;
    ASSERT_TRUE(w->Go(at).ok());
    std::thread([&] {
      const sched_param above{.sched_priority = kRealtimeWaitPriority + 1};
      ASSERT_EQ(sched_setscheduler(0, SCHED_FIFO, &above), 0);
      const int64_t when = at - kStartSpinWindowNs - 2 * kMs;
      const timespec until{.tv_sec = when / 1'000'000'000,
                           .tv_nsec = when % 1'000'000'000};
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
      waiting = SubmitterPolicies();
      looked_at = MonotonicNowNs();
    }).join();
    if (looked_at < at - kStartSpinWindowNs) break;
  }
  ASSERT_LT(looked_at, at - kStartSpinWindowNs) << "looked too late 3 times";
  EXPECT_EQ(waiting, std::vector<int>(2, SCHED_FIFO));
  // After their first turn they run their I/O at the normal policy.
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(SubmitterPolicies(), std::vector<int>(2, SCHED_OTHER));
  w->Wait();
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.start.threads_started, 2);
  EXPECT_EQ(s.start.realtime_wait_threads, 2);
  EXPECT_EQ(s.start.realtime_wait_error, "");
}

TEST_F(ArmedWorkloadTest, AStartedWorkloadRunsAtTheNormalPolicy) {
  absl::StatusOr<std::unique_ptr<Workload>> w =
      Workload::Start(Spec(absl::Milliseconds(200)), EngineLimits{});
  ASSERT_TRUE(w.ok()) << w.status();
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(SubmitterPolicies(), std::vector<int>(2, SCHED_OTHER));
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  EXPECT_EQ(s.start.threads_started, 2);
  EXPECT_EQ(s.start.realtime_wait_threads, 0);  // no instant to wait for
  EXPECT_EQ(s.start.realtime_wait_error, "");
}

TEST_F(ArmedWorkloadTest, ARefusedRealTimeWaitIsReportedWithItsReason) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (to drop CAP_SYS_NICE)";
  testing::ScopedZeroSoftLimit no_rtprio(RLIMIT_RTPRIO);  // till the end
  ASSERT_TRUE(no_rtprio.ok());
  // The threads try to raise themselves when armed, and report a refusal
  // when a Go() gives them an instant to wait for. The gate is opened by a thread at the normal
  // policy (its raise was refused too), which a loaded CI host once woke
  // 7 ms past the instant; then the report says that instead, and the
  // start is tried again, three times at most.
  WorkloadSnapshot s;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::thread([&] {
      ASSERT_TRUE(testing::DropSysNiceFromThisThread());
      std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Milliseconds(100)));
      ASSERT_NE(w, nullptr);
      ASSERT_TRUE(w->Go(MonotonicNowNs() + 50 * kMs).ok());
      w->Wait();
      s = w->Snapshot();
    }).join();
    if (!absl::StrContains(s.start.realtime_wait_error, "start gate opened")) {
      break;
    }
  }
  EXPECT_EQ(s.state, WorkloadState::kFinished);
  EXPECT_GT(s.total.ios, 0u);  // it still ran, at the normal policy
  EXPECT_EQ(s.start.threads_started, 2);
  EXPECT_EQ(s.start.realtime_wait_threads, 0);
  EXPECT_THAT(s.start.realtime_wait_error,
              HasSubstr("sched_setscheduler(SCHED_FIFO, 1)"));
  EXPECT_THAT(s.start.realtime_wait_error, HasSubstr("CAP_SYS_NICE"));
}

TEST_F(ArmedWorkloadTest, GoInThePastStartsAtOnce) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Milliseconds(100)));
  ASSERT_NE(w, nullptr);
  const int64_t at = MonotonicNowNs() - 5000 * kMs;
  ASSERT_TRUE(w->Go(at).ok());
  w->Wait();
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFinished);
  EXPECT_GT(s.total.ios, 0u);
  EXPECT_GE(s.start.first_monotonic_ns - at, 5000 * kMs);  // how late it was
  // Measuring began at the release, before the first submission.
  EXPECT_GE(s.start.measure_start_monotonic_ns - at, 5000 * kMs);
  EXPECT_LE(s.start.measure_start_monotonic_ns, s.start.first_monotonic_ns);
  // Nobody waited: the report says why instead of leaving it blank.
  EXPECT_EQ(s.start.realtime_wait_threads, 0);
  EXPECT_THAT(s.start.realtime_wait_error,
              HasSubstr("after the instant, so no thread waited"));
}

TEST_F(ArmedWorkloadTest, AbortWhileArmedEndsWithoutIo) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Seconds(1)));
  ASSERT_NE(w, nullptr);
  w->Abort();
  ASSERT_TRUE(w->WaitFor(absl::Seconds(10)));
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kAborted);
  EXPECT_EQ(s.total.ios, 0u);
  EXPECT_EQ(s.total.sqes, 0u);
  EXPECT_EQ(s.start.threads_started, 0);
  EXPECT_EQ(s.start.measure_start_monotonic_ns, 0);
  EXPECT_EQ(w->Go(MonotonicNowNs()).code(),
            absl::StatusCode::kFailedPrecondition);
  w->Abort();  // idempotent
  EXPECT_EQ(w->Snapshot().state, WorkloadState::kAborted);
}

TEST_F(ArmedWorkloadTest, AbortBeforeTheInstantCancelsTheStart) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Seconds(1)));
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->Go(MonotonicNowNs() + 2000 * kMs).ok());
  w->Abort();
  ASSERT_TRUE(w->WaitFor(absl::Seconds(1)));  // not after the 2 s instant
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kAborted);
  EXPECT_EQ(s.total.ios, 0u);
}

TEST_F(ArmedWorkloadTest, AbortWhileRunningDrainsAndSaysAborted) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Seconds(30)));
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->Go(MonotonicNowNs()).ok());
  absl::SleepFor(absl::Milliseconds(200));
  w->Abort();
  ASSERT_TRUE(w->WaitFor(absl::Seconds(10)));
  const WorkloadSnapshot s = w->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kAborted);
  EXPECT_GT(s.total.ios, 0u);
  EXPECT_EQ(s.total.inflight, 0u);
}

TEST_F(ArmedWorkloadTest, StopWhileArmedIsStoppedWithoutIo) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Seconds(1)));
  ASSERT_NE(w, nullptr);
  w->RequestStop();
  ASSERT_TRUE(w->WaitFor(absl::Seconds(10)));
  EXPECT_EQ(w->Snapshot().state, WorkloadState::kStopped);
  EXPECT_EQ(w->Snapshot().total.ios, 0u);
}

TEST_F(ArmedWorkloadTest, ScheduledSplitSwitchHappensAtItsInstant) {
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Milliseconds(600)));
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->Go(MonotonicNowNs()).ok());
  const int64_t at = MonotonicNowNs() + 300 * kMs;
  const SplitStrategy fixed{SplitStrategy::Kind::kFixed, 512};
  ASSERT_TRUE(w->ScheduleSplitStrategy(fixed, at).ok());
  EXPECT_EQ(w->ScheduleSplitStrategy(fixed, at + kMs).code(),
            absl::StatusCode::kFailedPrecondition);  // one pending at a time
  EXPECT_EQ(w->Snapshot().split_strategy, "none");
  w->Wait();
  const WorkloadSnapshot s = w->Snapshot();
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[1].strategy, SplitStrategyName(fixed));
  // Phase times count from the release; the release was at or before the
  // first thread's stamp, so the switch is no earlier than this.
  EXPECT_GE(s.phases[1].start,
            absl::Nanoseconds(at - s.start.first_monotonic_ns));
  EXPECT_LT(s.phases[1].start,
            absl::Nanoseconds(at - s.start.first_monotonic_ns) +
                absl::Milliseconds(50));
  EXPECT_GT(s.phases[1].total.ios, 0u);
}

TEST_F(ArmedWorkloadTest, PhaseCountsSplitWhereEachThreadTookTheSwitchUp) {
  // Armed, there is no phase yet and the threads wait at the gate: a
  // switch waits for none of them, and the first phase, opened when they
  // are released, is all the new strategy's. Running, a switch waits
  // until both threads took it up, so each thread's SQEs and I/Os fall on
  // one side: 8 pieces per I/O of fixed:512, save what was in flight at a
  // boundary (at most queue_depth I/Os per thread).
  std::unique_ptr<Workload> w = ArmOrDie(Spec(absl::Milliseconds(600)));
  ASSERT_NE(w, nullptr);
  const absl::Time before_switch = absl::Now();
  ASSERT_TRUE(w->SetSplitStrategy({SplitStrategy::Kind::kFixed, 512}).ok());
  EXPECT_LT(absl::Now() - before_switch, absl::Milliseconds(500));
  ASSERT_TRUE(w->Go(MonotonicNowNs()).ok());
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_TRUE(w->SetSplitStrategy({SplitStrategy::Kind::kNone, 0}).ok());
  w->Wait();
  const WorkloadSnapshot s = w->Snapshot();
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].strategy, "fixed:512");
  const ThreadSnapshot& fixed = s.phases[0].total;
  const ThreadSnapshot& none = s.phases[1].total;
  const uint64_t in_flight = 8 * 2;  // queue_depth x threads
  ASSERT_GT(fixed.ios, in_flight);
  ASSERT_GT(none.ios, in_flight);
  EXPECT_GE(fixed.sqes, 8 * fixed.ios);
  EXPECT_LE(fixed.sqes, 8 * (fixed.ios + in_flight));
  EXPECT_LE(none.sqes, none.ios + in_flight);
  EXPECT_LE(none.ios, none.sqes + in_flight);
  for (const std::string& note : s.notes) {
    EXPECT_THAT(note, ::testing::Not(HasSubstr("phases:"))) << note;
  }
}

}  // namespace
}  // namespace blkperf
