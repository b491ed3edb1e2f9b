// Steady state on real workloads: an open-loop rate on a page-cache file
// (completions far faster than the rates asked) that the test changes
// while it runs (Workload::SetOpenLoopRate), so the series starts
// unsteady, settles, or leaves steady state when the test says. Stop mode
// ends the run at attainment; gate mode measures from attainment only,
// and nothing when never attained; a later change warns.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kInterval = absl::Milliseconds(250);
constexpr double kSettledIops = 20000;

std::string TempFile(absl::string_view name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name, "_", getpid());
}

class SteadyStateWorkloadTest : public ::testing::Test {
 protected:
  void TearDown() override { unlink(path_.c_str()); }

  // Buffered reads of a freshly written (cached) file at an open-loop
  // rate, checked for iops:10% over `window`.
  WorkloadSpec Spec(SteadyStateMode mode, absl::Duration window,
                    absl::Duration runtime) const {
    WorkloadSpec spec;
    spec.targets.push_back(
        {.path = path_, .create_size = 16 << 20, .allow_write = true});
    spec.direct = false;
    spec.rate_iops = 4000;
    spec.runtime = runtime;
    spec.series_interval = kInterval;
    spec.steady_state.enabled = true;
    spec.steady_state.criterion = *ParseSteadyStateCriterion("iops:10%");
    spec.steady_state.window = window;
    spec.steady_state.mode = mode;
    return spec;
  }

  const std::string path_ = TempFile("steady_state");
};

// 4,000 IOPS rising to 20,000 in four steps a series interval apart: no
// window that spans a step is within 10%.
void RampToSettledRate(Workload* w) {
  for (double iops : {6000.0, 9000.0, 13000.0, kSettledIops}) {
    absl::SleepFor(kInterval);
    ASSERT_TRUE(w->SetOpenLoopRate(iops).ok());
  }
}

double PointIops(const SeriesPoint& p) { return p.ReadIops() + p.WriteIops(); }

// The mean IOPS of the series' points within [from, to).
double MeanIops(const Series& series, absl::Duration from, absl::Duration to) {
  double sum = 0;
  int n = 0;
  for (const SeriesPoint& p : series.points) {
    if (p.start >= from && p.start + p.length <= to) {
      sum += PointIops(p);
      ++n;
    }
  }
  return n == 0 ? 0 : sum / n;
}

TEST_F(SteadyStateWorkloadTest, StopEndsTheRunOnceTheRateSettles) {
  const absl::Duration window = absl::Seconds(2);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(
      Spec(SteadyStateMode::kStop, window, absl::Seconds(30)));
  ASSERT_TRUE(w.ok()) << w.status();
  RampToSettledRate(w->get());
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  ASSERT_EQ(s.state, WorkloadState::kFinished);
  const SteadyStateResult& ss = s.steady_state;
  ASSERT_TRUE(ss.enabled);
  ASSERT_TRUE(ss.attained) << SteadyFiguresText(
      *ParseSteadyStateCriterion("iops:10%"), ss.figures);
  EXPECT_EQ(ss.criterion, "iops:10%");
  EXPECT_EQ(ss.mode, "stop");
  // Attained at the settled rate, on a window after the ramp ...
  EXPECT_NEAR(ss.figures.mean, kSettledIops, kSettledIops * 0.1);
  EXPECT_EQ(ss.figures.samples, 8);
  EXPECT_TRUE(ss.figures.met);
  EXPECT_GE(ss.attained_at, window + absl::Seconds(1));
  EXPECT_GT(ss.checks, 1);
  // ... whose figures are the series' own intervals ...
  EXPECT_NEAR(MeanIops(s.series, ss.attained_at - window, ss.attained_at),
              ss.figures.mean, 1e-6 * ss.figures.mean);
  // ... and the series before it rose: the ramp was not steady.
  EXPECT_LT(MeanIops(s.series, absl::ZeroDuration(), kInterval),
            0.5 * kSettledIops);
  // The run ended there, long before its 30 s.
  EXPECT_LT(s.elapsed, ss.attained_at + absl::Seconds(1));
  EXPECT_GE(s.elapsed, ss.attained_at);
}

TEST_F(SteadyStateWorkloadTest, GateMeasuresOnlyFromAttainment) {
  const absl::Duration window = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(
      Spec(SteadyStateMode::kGate, window, absl::Seconds(5)));
  ASSERT_TRUE(w.ok()) << w.status();
  RampToSettledRate(w->get());
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  ASSERT_EQ(s.state, WorkloadState::kFinished);
  const SteadyStateResult& ss = s.steady_state;
  ASSERT_TRUE(ss.attained);
  EXPECT_EQ(ss.mode, "gate");
  EXPECT_GE(ss.attained_at, window + absl::Milliseconds(750));
  // The series covers the whole run; the totals only what followed
  // attainment, exactly: the gate's baseline is the tick's own reading.
  absl::Duration series_end;
  uint64_t after = 0, before = 0;
  for (const SeriesPoint& p : s.series.points) {
    (p.start >= ss.attained_at ? after : before) += p.read_ios;
    series_end = p.start + p.length;
  }
  ASSERT_GT(after, 0u);
  EXPECT_GT(before, 0u);
  EXPECT_EQ(s.total.ios, after);
  EXPECT_EQ(s.total.read_ios, after);
  EXPECT_EQ(s.total.latency.Count(), after);
  EXPECT_EQ(s.elapsed + ss.attained_at, series_end);
  // Measured at the settled rate: the ramp's slow start is not in it.
  EXPECT_NEAR(s.total.Iops(s.elapsed), kSettledIops, kSettledIops * 0.1);
  ASSERT_EQ(s.phases.size(), 1u);
  EXPECT_EQ(s.phases[0].total.ios, after);
  EXPECT_NE(s.start.measure_start_monotonic_ns, 0);
  EXPECT_FALSE(ss.left) << ss.warning;
}

TEST_F(SteadyStateWorkloadTest, GateNeverAttainedMeasuresNothing) {
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(
      Spec(SteadyStateMode::kGate, absl::Seconds(1), absl::Seconds(3)));
  ASSERT_TRUE(w.ok()) << w.status();
  // The rate swings between 4,000 and 12,000 every interval until the end.
  for (int k = 1; !(*w)->WaitFor(kInterval); ++k) {
    const absl::Status set = (*w)->SetOpenLoopRate(k % 2 ? 12000 : 4000);
    if (!set.ok()) break;  // ended meanwhile
  }
  const WorkloadSnapshot s = (*w)->Snapshot();
  ASSERT_EQ(s.state, WorkloadState::kFinished);
  const SteadyStateResult& ss = s.steady_state;
  EXPECT_FALSE(ss.attained);
  EXPECT_GT(ss.checks, 0);
  EXPECT_FALSE(ss.figures.met);
  uint64_t in_series = 0;
  for (const SeriesPoint& p : s.series.points) in_series += p.read_ios;
  EXPECT_GT(in_series, 0u);  // I/O ran; none of it is reported as measured
  EXPECT_EQ(s.total.ios, 0u);
  EXPECT_EQ(s.total.latency.Count(), 0u);
  EXPECT_EQ(s.elapsed, absl::ZeroDuration());
  EXPECT_TRUE(s.phases.empty());
}

TEST_F(SteadyStateWorkloadTest, LeavingSteadyStateAfterAttainmentWarns) {
  WorkloadSpec spec =
      Spec(SteadyStateMode::kGate, absl::Seconds(1), absl::Seconds(4));
  spec.rate_iops = 20000;
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  while (!(*w)->Snapshot().steady_state.attained) {
    ASSERT_FALSE((*w)->WaitFor(absl::Milliseconds(50)))
        << "never attained at a constant rate";
  }
  // An SLC cache runs out: the rate falls to a quarter.
  ASSERT_TRUE((*w)->SetOpenLoopRate(5000).ok());
  (*w)->Wait();
  const SteadyStateResult ss = (*w)->Snapshot().steady_state;
  ASSERT_TRUE(ss.attained);
  ASSERT_TRUE(ss.left);
  EXPECT_GT(ss.left_at, ss.attained_at);
  EXPECT_FALSE(ss.left_figures.met);
  EXPECT_GT(ss.left_figures.value, 10);
  EXPECT_THAT(ss.warning, HasSubstr(absl::StrCat(
                              "left steady state at t=",
                              absl::FormatDuration(ss.left_at), ": iops")));
}

TEST_F(SteadyStateWorkloadTest, OpenLoopRateChangesAreRefusedWhereNone) {
  WorkloadSpec spec =
      Spec(SteadyStateMode::kStop, absl::Seconds(1), absl::Seconds(2));
  absl::StatusOr<std::unique_ptr<Workload>> open = StartWorkload(spec);
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ((*open)->SetOpenLoopRate(0).code(),
            absl::StatusCode::kInvalidArgument);
  (*open)->RequestStop();
  (*open)->Wait();
  EXPECT_EQ((*open)->SetOpenLoopRate(1000).code(),
            absl::StatusCode::kFailedPrecondition);  // ended
  spec.rate_iops = 0;  // closed loop
  absl::StatusOr<std::unique_ptr<Workload>> closed = StartWorkload(spec);
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_EQ((*closed)->SetOpenLoopRate(1000).code(),
            absl::StatusCode::kFailedPrecondition);
  (*closed)->RequestStop();
  (*closed)->Wait();
}

}  // namespace
}  // namespace blkperf
