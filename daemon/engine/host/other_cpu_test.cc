#include "daemon/engine/host/other_cpu.h"

#include <cmath>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

constexpr char kBefore[] =
    "cpu  300 0 100 1000 0 0 0 0 0 0\n"
    "cpu0 100 0 50 500 0 0 0 0 0 0\n"
    "cpu1 200 0 50 500 0 0 0 0 0 0\n"
    "intr 12345\n";
// 100 ticks later on each CPU: cpu0 busy 80 (user 60, system 10, steal
// 10), cpu1 busy 100.
constexpr char kAfter[] =
    "cpu  460 0 160 1040 0 0 0 10 0 0\n"
    "cpu0 160 0 60 520 0 0 0 10 0 0\n"
    "cpu1 250 0 100 500 0 0 0 0 0 0\n";

TEST(OtherCpuTest, BusyTicksLessTheRunsOwnOverTheCpusTime) {
  const auto before = ParseCpuTicks(kBefore);
  const auto after = ParseCpuTicks(kAfter);
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_EQ(before->size(), 2u);
  EXPECT_EQ((*after)[0].busy - (*before)[0].busy, 80u);
  EXPECT_EQ((*after)[0].total - (*before)[0].total, 100u);
  // The run took 0.5 s of cpu0 at 100 ticks/s: 50 of its 80 busy ticks.
  // Less one tick for the readings' resolution: 29 of 100 certainly others'.
  EXPECT_DOUBLE_EQ(OtherCpuShare(*before, *after, {0}, 0.5, 100), 0.29);
  // Both CPUs: 180 busy of 200, less a tick each, the run's 1.5 s = 150
  // ticks.
  EXPECT_DOUBLE_EQ(OtherCpuShare(*before, *after, {0, 1}, 1.5, 100), 0.14);
  // More own time than busy ticks (a reading's rounding): 0, not negative.
  EXPECT_EQ(OtherCpuShare(*before, *after, {0}, 2, 100), 0);
  EXPECT_TRUE(std::isnan(OtherCpuShare(*before, *after, {}, 0, 100)));
  EXPECT_FALSE(ParseCpuTicks("intr 1\n").ok());
}

TEST(OtherCpuTest, ReadsThisHost) {
  const auto ticks = ReadCpuTicks();
  ASSERT_TRUE(ticks.ok()) << ticks.status();
  EXPECT_GE(ticks->size(), 1u);
  EXPECT_GE((*ticks)[0].total, (*ticks)[0].busy);
}

}  // namespace
}  // namespace blkperf
