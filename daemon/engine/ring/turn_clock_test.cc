#include "daemon/engine/ring/turn_clock.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "base/clock.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

// 3 GHz: a third of a nanosecond per tick.
constexpr uint64_t kThirdQ32 = (uint64_t{1} << 32) / 3;
constexpr uint64_t kTicksPerSecond = 3'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

TEST(TickScaleTest, MapsTicksLinearly) {
  const TickScale scale(1000, 5'000, kThirdQ32);
  EXPECT_EQ(scale.ToNs(1000), 5'000);
  EXPECT_NEAR(scale.ToNs(1000 + kTicksPerSecond), 5'000 + kSecond, 2);
  EXPECT_NEAR(scale.ToNs(1000 + 3000), 5'000 + 1000, 1);
}

TEST(TickScaleTest, ACountBelowTheBaseReadsAsTheBase) {
  const TickScale scale(1'000'000, 5'000, kThirdQ32);
  EXPECT_EQ(scale.ToNs(999'000), 5'000);
  EXPECT_EQ(scale.ToNs(0), 5'000);
}

TEST(TickScaleTest, SteerKeepsTheReadingAndMeetsTheReferenceAHorizonLater) {
  TickScale scale(0, 0, kThirdQ32);
  // 5 ms in: too soon to re-measure the rate (kCalibrationNs).
  const uint64_t at = kTicksPerSecond / 200;
  const int64_t reading = scale.ToNs(at);
  scale.Steer(at, reading + 2'000, kSecond);  // the clock is 2 us behind
  EXPECT_EQ(scale.last_error_ns(), -2'000);
  EXPECT_EQ(scale.ToNs(at), reading);  // no step
  EXPECT_NEAR(scale.ToNs(at + kTicksPerSecond), reading + 2'000 + kSecond, 2);
}

TEST(TickScaleTest, AClockAheadSlowsAtMostTheSlewLimitAndNeverGoesBack) {
  TickScale scale(0, 0, kThirdQ32);
  const uint64_t at = kTicksPerSecond / 100;
  const int64_t reading = scale.ToNs(at);
  scale.Steer(at, reading - 1'000'000, kSecond);  // 1 ms ahead
  const int64_t max_slew = kSecond / 1'000'000 * TickScale::kMaxSlewPpm;
  EXPECT_NEAR(scale.ToNs(at + kTicksPerSecond), reading + kSecond - max_slew,
              2);
  int64_t last = scale.ToNs(at);
  for (uint64_t t = at; t < at + kTicksPerSecond; t += kTicksPerSecond / 1000) {
    const int64_t now = scale.ToNs(t);
    EXPECT_GE(now, last) << t;
    last = now;
  }
}

TEST(TickScaleTest, AClockFarBehindStepsForward) {
  TickScale scale(0, 0, kThirdQ32);
  const uint64_t at = kTicksPerSecond;
  const int64_t reference = scale.ToNs(at) + TickScale::kStepNs + 1;
  scale.Steer(at, reference, kSecond);
  EXPECT_EQ(scale.ToNs(at), reference);
}

TEST(TickScaleTest, RemeasuresTheRateOverTheWholeSpan) {
  // Calibrated 1 % fast: the first steer after 2 s finds the true rate,
  // and steering every second brings the 20 ms it gained back within the
  // slew limit, never stepping back.
  TickScale scale(0, 0, kThirdQ32 + kThirdQ32 / 100);
  int64_t last = 0;
  for (int64_t second = 2; second <= 50; ++second) {
    const uint64_t ticks = second * kTicksPerSecond;
    const int64_t reading = scale.ToNs(ticks);
    EXPECT_GE(reading, last) << second;
    last = reading;
    scale.Steer(ticks, second * kSecond, kSecond);
    if (second == 2) {
      EXPECT_NEAR(static_cast<double>(scale.nominal_rate_q32()),
                  static_cast<double>(kThirdQ32), kThirdQ32 * 1e-6);
      EXPECT_NEAR(scale.last_error_ns(), 20'000'000, 1'000);
    }
  }
  EXPECT_NEAR(scale.last_error_ns(), 0, 1'000);
}

bool CpuinfoHasFlags(const std::string& a, const std::string& b) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool has_a = false, has_b = false;
    for (std::string w; words >> w;) {
      has_a |= w == a;
      has_b |= w == b;
    }
    return has_a && has_b;
  }
  return false;
}

TEST(TurnClockTest, ReadsTheTscWhereItIsInvariant) {
  const TurnClock clock = TurnClock::Create();
#if defined(__x86_64__)
  const bool invariant = CpuinfoHasFlags("constant_tsc", "nonstop_tsc");
  EXPECT_EQ(clock.source_name(), invariant ? "tsc" : "clock_monotonic");
#else
  EXPECT_EQ(clock.source_name(), "clock_monotonic");
#endif
}

TEST(TurnClockTest, StaysOnClockMonotonicAndNeverGoesBack) {
  TurnClock clock = TurnClock::Create();
  // Within 50 us of CLOCK_MONOTONIC (a read pair can be preempted: the
  // closest of several).
  auto closest = [&] {
    int64_t best = INT64_MAX;
    for (int i = 0; i < 20; ++i) {
      const int64_t before = MonotonicNowNs();
      const int64_t reading = clock();
      const int64_t after = MonotonicNowNs();
      const int64_t off = reading < before  ? before - reading
                          : reading > after ? reading - after
                                            : 0;
      best = std::min(best, off);
    }
    return best;
  };
  EXPECT_LT(closest(), 50'000);
  int64_t last = clock();
  const int64_t end = MonotonicNowNs() + 200'000'000;
  int64_t reads = 0;
  while (MonotonicNowNs() < end) {
    for (int i = 0; i < 1000; ++i, ++reads) {
      const int64_t now = clock();
      ASSERT_GE(now, last) << "after " << reads << " reads";
      last = now;
    }
    if (reads % 100'000 == 0) clock.Steer();
  }
  clock.Steer();
  EXPECT_LT(closest(), 50'000);
}

}  // namespace
}  // namespace blkperf::internal
