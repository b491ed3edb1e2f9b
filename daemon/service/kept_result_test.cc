#include "daemon/service/kept_result.h"

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

// An A/B result of `n` one-second slices alternating none / limits; slice i
// did i+1 I/Os of (i+1) microseconds each.
WorkloadSnapshot AbSnapshot(int n) {
  WorkloadSnapshot s;
  for (int i = 0; i < n; ++i) {
    PhaseSnapshot p;
    p.index = i;
    p.strategy = i % 2 == 0 ? "none" : "limits";
    p.start = absl::Seconds(i);
    p.end = absl::Seconds(i + 1);
    p.elapsed = absl::Seconds(1);
    p.total.ios = static_cast<uint64_t>(i + 1);
    p.total.sqes = p.total.ios;
    p.total.latency.RecordN(static_cast<uint64_t>(i + 1) * 1000, p.total.ios);
    p.device.available = true;
    p.device.requests = p.total.ios;
    s.total.Merge(p.total);
    s.phases.push_back(p);
  }
  return s;
}

TEST(KeptResultTest, PhasesPastTheCapAreMergedWithANote) {
  WorkloadSnapshot s = AbSnapshot(1024);
  BoundForKeeping(s);
  ASSERT_EQ(s.phases.size(), kMaxKeptPhases);
  // The memory goes too, not only the elements.
  EXPECT_LE(s.phases.capacity(), kMaxKeptPhases);
  uint64_t ios = 0;
  uint64_t recorded = 0;
  for (const PhaseSnapshot& p : s.phases) {
    ios += p.total.ios;
    recorded += p.total.latency.Count();
  }
  EXPECT_EQ(ios, s.total.ios);
  EXPECT_EQ(recorded, s.total.ios);
  const PhaseSnapshot& last = s.phases.back();
  EXPECT_EQ(last.strategy, "merged: limits, none");
  EXPECT_EQ(last.start, absl::Seconds(kMaxKeptPhases - 1));
  EXPECT_EQ(last.end, absl::Seconds(1024));
  EXPECT_EQ(last.elapsed, absl::Seconds(1024 - (kMaxKeptPhases - 1)));
  EXPECT_DOUBLE_EQ(last.device.requests_per_sqe, 1.0);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_THAT(s.notes[0], HasSubstr("phases 63..1023"));
  EXPECT_THAT(s.notes[0], HasSubstr("at most 64"));
  // Kept phases are untouched.
  EXPECT_EQ(s.phases[10].total.ios, 11u);
}

TEST(KeptResultTest, FewPhasesAreKeptAsTheyAre) {
  WorkloadSnapshot s = AbSnapshot(kMaxKeptPhases);
  BoundForKeeping(s);
  EXPECT_EQ(s.phases.size(), kMaxKeptPhases);
  EXPECT_TRUE(s.notes.empty());
}

}  // namespace
}  // namespace blkperf
