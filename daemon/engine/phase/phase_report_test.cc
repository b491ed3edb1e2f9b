#include "daemon/engine/phase/phase_report.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kStart = 1'000'000'000;
constexpr int64_t kPhaseNs = 10'000'000;  // 10 ms a phase

// Cumulative totals after `phases` phases of 100 I/Os, 4 KiB each, at
// 1 us (even phases) or 3 us (odd ones).
ThreadSnapshot TotalsAfter(size_t phases) {
  ThreadSnapshot t;
  for (size_t p = 0; p < phases; ++p) {
    t.ios += 100;
    t.bytes += 100 * 4096;
    t.sqes += 100;
    t.latency.RecordN(p % 2 == 0 ? 1000 : 3000, 100);
  }
  return t;
}

SplitStrategy StrategyOf(size_t phase) {
  return phase % 2 == 0 ? SplitStrategy{SplitStrategy::Kind::kNone, 0}
                        : SplitStrategy{SplitStrategy::Kind::kLimits, 0};
}

// `n` boundaries as the engine makes them, 10 ms apart.
PhaseBoundaries Boundaries(size_t n) {
  PhaseBoundaries b;
  for (size_t i = 0; i < n; ++i) {
    b.push_back(MakePhaseBoundary(i, kStart + int64_t(i) * kPhaseNs,
                                  StrategyOf(i), TotalsAfter(i), {}));
  }
  return b;
}

TEST(PhaseReportTest, FewPhasesAreEachReported) {
  const PhaseBoundaries b = Boundaries(5);
  WorkloadSnapshot s;
  s.total = TotalsAfter(5);
  ReportPhases(b, kStart, kStart + 5 * kPhaseNs, {}, &s);
  ASSERT_EQ(s.phases.size(), 5u);
  EXPECT_EQ(s.phases_total, 5);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(s.phases[i].total.ios, 100u) << i;
    EXPECT_EQ(s.phases[i].total.latency.Count(), 100u) << i;
    EXPECT_EQ(s.phases[i].elapsed, absl::Milliseconds(10)) << i;
    EXPECT_EQ(s.phases[i].strategy, SplitStrategyName(StrategyOf(i)));
  }
  EXPECT_TRUE(s.notes.empty());
}

// Past kMaxReportedPhases the later boundaries keep no histograms and their
// phases are reported as one: memory and snapshot size are bounded, the
// phases still tile the time and add up to the totals, and every phase's
// rate is still there for A/B.
TEST(PhaseReportTest, LaterPhasesAreMergedAndKeepNoHistograms) {
  constexpr size_t kPhases = 1024;
  const PhaseBoundaries b = Boundaries(kPhases);
  size_t with_histograms = 0;
  for (const auto& boundary : b) with_histograms += boundary->totals != nullptr;
  EXPECT_EQ(with_histograms, kMaxReportedPhases);

  WorkloadSnapshot s;
  s.total = TotalsAfter(kPhases);
  const int64_t end = kStart + int64_t{kPhases} * kPhaseNs;
  ReportPhases(b, kStart, end, {}, &s);
  ASSERT_EQ(s.phases.size(), kMaxReportedPhases);
  EXPECT_EQ(s.phases_total, static_cast<int>(kPhases));
  const PhaseSnapshot& merged = s.phases.back();
  EXPECT_EQ(merged.strategy, "merged: limits, none");
  EXPECT_EQ(merged.total.ios, (kPhases - kMaxReportedPhases + 1) * 100);
  EXPECT_EQ(merged.total.latency.Count(), merged.total.ios);
  uint64_t ios = 0;
  absl::Duration time;
  for (size_t i = 0; i < s.phases.size(); ++i) {
    ios += s.phases[i].total.ios;
    time += s.phases[i].elapsed;
    if (i > 0) EXPECT_EQ(s.phases[i].start, s.phases[i - 1].end) << i;
  }
  EXPECT_EQ(ios, s.total.ios);
  EXPECT_EQ(time, absl::Nanoseconds(end - kStart));
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_THAT(s.notes[0], HasSubstr("phases 63..1023 (961 phases)"));

  const std::vector<PhaseRate> rates =
      PhaseRates(b, kStart, end, s.total);
  ASSERT_EQ(rates.size(), kPhases);
  for (size_t i = 0; i < kPhases; ++i) {
    EXPECT_EQ(rates[i].ios, 100u) << i;
    EXPECT_EQ(rates[i].bytes, 100u * 4096) << i;
    EXPECT_DOUBLE_EQ(rates[i].Iops(), 10000.0) << i;
    EXPECT_EQ(rates[i].strategy, SplitStrategyName(StrategyOf(i))) << i;
  }
}

// A snapshot while running reads the totals now: the last phase is open.
TEST(PhaseReportTest, PhasesAreClampedToTheMeasuredWindow) {
  const PhaseBoundaries b = Boundaries(3);
  WorkloadSnapshot s;
  s.total = TotalsAfter(3);
  // Ends 5 ms into the third phase; a boundary before the window's start
  // counts from the start.
  ReportPhases(b, kStart + 2'000'000, kStart + 25'000'000, {}, &s);
  ASSERT_EQ(s.phases.size(), 3u);
  EXPECT_EQ(s.phases[0].start, absl::ZeroDuration());
  EXPECT_EQ(s.phases[0].elapsed, absl::Milliseconds(8));
  EXPECT_EQ(s.phases[2].elapsed, absl::Milliseconds(5));
}

}  // namespace
}  // namespace blkperf
