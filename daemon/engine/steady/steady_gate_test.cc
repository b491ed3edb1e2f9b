#include "daemon/engine/steady/steady_gate.h"

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

ThreadSnapshot Reads(uint64_t ios, uint64_t ns, double cpu) {
  ThreadSnapshot t;
  t.ios = t.read_ios = ios;
  t.bytes = t.read_bytes = ios * 4096;
  t.latency.RecordN(ns, ios);
  t.user_cpu_seconds = cpu;
  return t;
}

WorkloadSnapshot TwoThreads(const ThreadSnapshot& a, const ThreadSnapshot& b) {
  WorkloadSnapshot s;
  s.threads = {a, b};
  s.total.Merge(a);
  s.total.Merge(b);
  s.elapsed = absl::Seconds(10);
  return s;
}

TEST(SteadyGateTest, TotalsBeginAtAttainment) {
  SteadyGate gate;
  // At attainment (t=4s): thread 0 had 400 slow reads, thread 1 200.
  gate.Attain(4'000'000'000, {Reads(400, 5'000'000, 1.0),
                              Reads(200, 5'000'000, 0.5)});
  ThreadSnapshot a = Reads(400, 5'000'000, 1.0);
  a.Merge(Reads(600, 100'000, 1.5));
  ThreadSnapshot b = Reads(200, 5'000'000, 0.5);
  b.Merge(Reads(300, 100'000, 0.75));
  WorkloadSnapshot s = TwoThreads(a, b);
  ApplySteadyGate(gate, 10'000'000'000, &s);
  EXPECT_EQ(s.elapsed, absl::Seconds(6));
  EXPECT_EQ(s.threads[0].ios, 600u);
  EXPECT_EQ(s.threads[1].ios, 300u);
  EXPECT_EQ(s.total.ios, 900u);
  EXPECT_EQ(s.total.read_bytes, 900u * 4096);
  EXPECT_DOUBLE_EQ(s.total.user_cpu_seconds, 2.25);
  // Only the steady reads' latencies are left: none of the 5 ms ones.
  EXPECT_EQ(s.total.latency.Count(), 900u);
  EXPECT_LT(s.total.latency.Percentile(100), 1'000'000u);
  EXPECT_EQ(s.start.measure_start_monotonic_ns, 4'000'000'000);
}

TEST(SteadyGateTest, NotAttainedMeasuresNothing) {
  SteadyGate gate;
  WorkloadSnapshot s = TwoThreads(Reads(400, 5'000'000, 1.0),
                                  Reads(200, 5'000'000, 0.5));
  ApplySteadyGate(gate, 10'000'000'000, &s);
  EXPECT_EQ(s.elapsed, absl::ZeroDuration());
  EXPECT_EQ(s.total.ios, 0u);
  EXPECT_EQ(s.total.latency.Count(), 0u);
  EXPECT_EQ(s.threads[0].ios, 0u);
  EXPECT_DOUBLE_EQ(s.total.user_cpu_seconds, 0);
}

}  // namespace
}  // namespace blkperf
