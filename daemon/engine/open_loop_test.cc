// Open loop on real targets: the rate is held over 5 s (uniform and Poisson
// arrivals); a device that stalls shows in the intended-time tail however
// few I/Os were in flight (no coordinated omission); the SLO search
// converges on a device whose latency grows with load. The FUSE devices
// (testing/fuse_file_for_test.h) need root and /dev/fuse; those tests skip
// with the reason otherwise.
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/engine/testing/fuse_file_for_test.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gtest/gtest.h"
#include "tests/timing/pause_witness.h"

namespace blkperf {
namespace {

std::string TempFile(absl::string_view name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name, "_", getpid());
}

// A freshly written file is in the page cache: buffered reads of it
// complete inline, far faster than the rates asked here.
WorkloadSpec CachedFileSpec(const std::string& path) {
  WorkloadSpec spec;
  spec.targets.push_back(
      {.path = path, .create_size = 64 << 20, .allow_write = true});
  spec.direct = false;
  return spec;
}

class OpenLoopTest : public ::testing::Test {
 protected:
  void TearDown() override { unlink(path_.c_str()); }
  const std::string path_ = TempFile("open_loop");
};

// 20,000 IOPS with `arrivals` for 5 s: the rate within 2%.
void ExpectRateHeldOverFiveSeconds(const std::string& path,
                                   Arrivals arrivals) {
  WorkloadSpec spec = CachedFileSpec(path);
  spec.rate_iops = 20000;
  spec.arrivals = arrivals;
  spec.runtime = absl::Seconds(5);
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished);
  ASSERT_GT(s.total.ios, 0u);
  const double iops = s.total.Iops(s.elapsed);
  EXPECT_NEAR(iops, 20000, 20000 * 0.02) << "over " << s.elapsed;
  EXPECT_GE(s.elapsed, absl::Milliseconds(4990));
  // Every measured I/O has an intended-time latency, at least its service
  // time.
  EXPECT_EQ(s.total.intended_latency.Count(), s.total.ios);
  EXPECT_GE(s.total.intended_latency.Max(), s.total.latency.Min());
}

TEST_F(OpenLoopTest, PoissonRateIsHeldWithinTwoPercentOverFiveSeconds) {
  ExpectRateHeldOverFiveSeconds(path_, Arrivals::kPoisson);
}

TEST_F(OpenLoopTest, UniformRateIsHeldWithinTwoPercentOverFiveSeconds) {
  ExpectRateHeldOverFiveSeconds(path_, Arrivals::kUniform);
}

TEST_F(OpenLoopTest, ByteRateIsHeldWithMixedBlockSizes) {
  WorkloadSpec spec = CachedFileSpec(path_);
  spec.rate_bw = 64 << 20;  // 64 MiB/s of 4 KiB and 64 KiB reads
  spec.read_bssplit = {{4096, 50}, {65536, 50}};
  spec.runtime = absl::Seconds(2);
  const WorkloadSnapshot s = RunToEnd(spec);
  ASSERT_EQ(s.state, WorkloadState::kFinished);
  EXPECT_NEAR(s.total.BytesPerSecond(s.elapsed), 64 << 20, (64 << 20) * 0.02);
  const double mean = static_cast<double>(s.total.bytes) / s.total.ios;
  EXPECT_NEAR(mean, (4096 + 65536) / 2.0, 65536 * 0.05);
}

TEST_F(OpenLoopTest, ClosedLoopHasNoIntendedTimes) {
  WorkloadSpec spec = CachedFileSpec(path_);
  spec.distribution = {OffsetDistribution::Kind::kZipf, 1.2};  // shaped
  spec.io_count = 5000;
  spec.runtime = absl::ZeroDuration();
  const WorkloadSnapshot s = RunToEnd(spec);
  EXPECT_EQ(s.total.ios, 5000u);
  EXPECT_EQ(s.total.intended_latency.Count(), 0u);
  EXPECT_EQ(s.total.late_ios, 0u);
}

// Intended time vs service time on a device that stops answering for
// 250 ms. At 1000 I/Os a second with 2 slots, the stall holds 2 I/Os in
// flight (their service time is the stall) and pushes the other 250 that
// were due back; measured from their intended times they wait up to 250 ms,
// 50 of them 200 ms or more: about 3% of a 1.5 s run. A closed loop (or
// service time alone) sees 2 slow I/Os in 1500: coordinated omission hides
// the stall below p99.9. The stall is longer than 200 ms by more than 0.1%
// of the run so that p99.9 of the intended time must be >= 200 ms.
TEST(OpenLoopFuseTest, StalledDeviceShowsInTheIntendedTimeTail) {
  StallingFuseFile fuse({"--stall_ms=250"});
  if (!fuse.ok()) GTEST_SKIP() << fuse.why();
  WorkloadSpec spec;
  spec.targets.push_back({.path = fuse.path()});
  spec.direct = false;  // the server's direct_io; no O_DIRECT on FUSE
  spec.queue_depth = 2;
  spec.rate_iops = 1000;
  spec.runtime = absl::Milliseconds(1500);
  spec.io_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  absl::SleepFor(absl::Milliseconds(500));
  ASSERT_GT((*w)->Snapshot().total.ios, 100u) << "the FUSE file is too slow";
  fuse.StallFor();
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  const ThreadSnapshot& t = s.total;
  ASSERT_GT(t.ios, 1300u);
  ASSERT_EQ(t.intended_latency.Count(), t.ios);
  EXPECT_GE(t.intended_latency.Percentile(99.9), 200'000'000u);
  EXPECT_GE(t.intended_latency.Max(), 240'000'000u);
  EXPECT_GE(t.intended_latency.Percentile(99), 100'000'000u);
  // The service time from submission hides it at p99: only the I/Os in
  // flight when the device stopped waited for it.
  EXPECT_LT(t.latency.Percentile(99), 50'000'000u);
  // The I/Os due during the stall (about 248) found both slots taken, and
  // a few more while the backlog drained; far from all of them.
  EXPECT_GE(t.late_ios, 150u);
  EXPECT_LE(t.late_ios, t.ios / 2);
  // The stall's tail is issue lag (the wait for a slot), over the same
  // I/Os as the intended time.
  ASSERT_EQ(t.issue_lag.Count(), t.ios);
  EXPECT_GE(t.issue_lag.Percentile(99.9), 150'000'000u);
}

// Sustained overload: a device serving one read at a time in 500 us (about
// 2000 a second) asked for 4000 at QD 16. Every turn refills the slots its
// reap freed and waits with the queue full again, so nearly every I/O is
// due while all 16 slots are taken: late, though no turn ever waits
// without submitting. Per I/O, intended-time latency = issue lag + service
// latency, so their means add up (to the histograms' rounding of means:
// none, the sums are exact).
TEST(OpenLoopFuseTest, SustainedOverloadCountsNearlyEveryIoLate) {
  StallingFuseFile fuse({"--service_us=500"});
  if (!fuse.ok()) GTEST_SKIP() << fuse.why();
  WorkloadSpec spec;
  spec.targets.push_back({.path = fuse.path()});
  spec.direct = false;
  spec.queue_depth = 16;
  spec.rate_iops = 4000;
  spec.runtime = absl::Milliseconds(1500);
  spec.io_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  (*w)->Wait();
  const WorkloadSnapshot s = (*w)->Snapshot();
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  const ThreadSnapshot& t = s.total;
  ASSERT_GT(t.ios, 500u);
  EXPECT_LT(t.ios, 4000u * 3 / 2 * 3 / 4) << "the device kept up";
  EXPECT_GT(t.late_ios, t.ios * 3 / 4);
  ASSERT_EQ(t.issue_lag.Count(), t.intended_latency.Count());
  EXPECT_NEAR(t.issue_lag.Mean() + t.latency.Mean(),
              t.intended_latency.Mean(), 1e-6 * t.intended_latency.Mean());
  EXPECT_GT(t.issue_lag.Percentile(99), t.latency.Percentile(99));
}

// A device serving one read at a time, each in 500 us: a queue of capacity
// about 2000 reads a second (less the FUSE round trip) whose latency climbs
// as the rate nears it. The search must bracket the highest rate meeting
// p99 < 20 ms to its precision, below the closed-loop maximum.
TEST(OpenLoopFuseTest, SloSearchConvergesOnADeviceWhoseLatencyGrowsWithLoad) {
  StallingFuseFile fuse({"--service_us=500"});
  if (!fuse.ok()) GTEST_SKIP() << fuse.why();
  WorkloadSpec spec;
  spec.targets.push_back({.path = fuse.path()});
  spec.direct = false;
  spec.queue_depth = 16;
  spec.arrivals = Arrivals::kPoisson;
  spec.slo.enabled = true;
  spec.slo.target = {.percentile = 99, .bound = absl::Milliseconds(20)};
  spec.slo.precision = 0.1;
  spec.slo.step = absl::Milliseconds(700);
  spec.slo.settle = absl::Milliseconds(200);
  // A machine pause (this VM's vCPUs stop for 10-100 ms at times; with
  // this FUSE server busy, most searches see one over 5 ms) holds up the
  // I/Os due in it as a slow device would, and one as long as the SLO's
  // bound can make a step miss it at a rate the device meets: the search
  // runs again, at most 3 times in all, while a pause witness saw one of
  // 20 ms or more during it.
  WorkloadSnapshot s;
  absl::Duration pause;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    testing::PauseWitness witness;
    const int64_t from = testing::PauseWitness::MonotonicNowNs();
    s = RunToEnd(spec);
    pause = witness.LongestPauseWithin(
        from, testing::PauseWitness::MonotonicNowNs());
    if (pause < spec.slo.target.bound) break;
    std::cerr << "attempt " << attempt << ": the machine paused for " << pause
              << " (" << witness.status() << ")\n";
  }
  SCOPED_TRACE(absl::StrCat("longest machine pause in the search: ",
                            absl::FormatDuration(pause)));
  ASSERT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  const SloSummary& slo = s.slo;
  ASSERT_TRUE(slo.done) << slo.note;
  // 1 closed-loop step + ceil(log2(1 / 0.1)) = 4 bisections (each repeated
  // once when undecided) + the final bracket's re-tests.
  ASSERT_GE(slo.steps.size(), 6u);
  ASSERT_LE(static_cast<int>(slo.steps.size()), SloSteps(0.1));
  EXPECT_GT(slo.max_iops, 600);
  EXPECT_LT(slo.max_iops, 2100);
  EXPECT_GT(slo.best_iops, 0) << slo.note;
  EXPECT_LT(slo.best_iops, slo.failed_iops);
  EXPECT_LE(slo.failed_iops - slo.best_iops, 0.1 * slo.max_iops + 1e-6);
  EXPECT_GT(slo.best_iops, 0.25 * slo.max_iops);
  // A step that met the SLO served what arrived in it: Poisson arrivals,
  // so the rate measured lies within 4 standard deviations of the rate
  // asked (sqrt(rate x step) arrivals; by chance 1 step in 16,000 lies
  // outside). A fixed 10 % was 1.5 of them at 319/s, and failed CI.
  const double step_s = absl::ToDoubleSeconds(spec.slo.step);
  for (const SloStep& step : slo.steps) {
    if (step.asked_iops == 0) continue;
    // Verdicts by the percentile's 95% interval, never by the point alone.
    ASSERT_TRUE(step.interval_known);
    EXPECT_LE(step.value_low_ns, step.value_ns);
    EXPECT_GE(step.value_high_ns, step.value_ns);
    EXPECT_EQ(step.met, step.verdict == SloVerdict::kMet);
    if (step.met) {
      EXPECT_TRUE(step.value_bounded_above);
      EXPECT_LT(step.value_high_ns, 20'000'000u);
    } else if (step.verdict == SloVerdict::kMissed) {
      EXPECT_GE(step.value_low_ns, 20'000'000u);
    }
    const double sd = std::sqrt(step.asked_iops * step_s) / step_s;
    EXPECT_NEAR(step.iops, step.asked_iops,
                step.met ? 4 * sd : step.asked_iops);
  }
  // Latency grew with load: the best rate's p99 met the bound, the lowest
  // missed rate's did not.
  const SloStep* best = nullptr;
  const SloStep* failed = nullptr;
  for (const SloStep& step : slo.steps) {
    if (step.retest) continue;
    if (step.asked_iops == slo.best_iops) best = &step;
    if (step.asked_iops == slo.failed_iops) failed = &step;
  }
  ASSERT_NE(best, nullptr);
  if (failed != nullptr) {
    EXPECT_GT(failed->p99_ns, best->p99_ns);
  }
}

}  // namespace
}  // namespace blkperf
