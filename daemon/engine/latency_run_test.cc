#include "daemon/engine/latency_run.h"

#include <cstdint>
#include <random>
#include <vector>

#include "daemon/engine/histogram.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

struct Stamps {
  int64_t submit_ns;
  int64_t issued_ns;
};

// The naive twin: three Records per I/O, as the loop did before runs.
void RecordEach(const std::vector<Stamps>& ios, int64_t reap_ns,
                LatencyHistogram* total, LatencyHistogram* slat,
                LatencyHistogram* clat) {
  for (const Stamps& s : ios) {
    total->Record(static_cast<uint64_t>(reap_ns - s.submit_ns));
    slat->Record(static_cast<uint64_t>(s.issued_ns - s.submit_ns));
    clat->Record(static_cast<uint64_t>(reap_ns - s.issued_ns));
  }
}

void RecordRuns(const std::vector<Stamps>& ios, int64_t reap_ns,
                LatencyHistogram* total, LatencyHistogram* slat,
                LatencyHistogram* clat) {
  LatencyRun<LatencyHistogram> run(total, slat, clat, reap_ns);
  for (const Stamps& s : ios) run.Add(s.submit_ns, s.issued_ns);
  run.Flush();
}

TEST(LatencyRunTest, OneRunIsRecordedAsItsCount) {
  LatencyHistogram total, slat, clat;
  std::vector<Stamps> ios(32, Stamps{1000, 1500});
  RecordRuns(ios, 4000, &total, &slat, &clat);
  ASSERT_EQ(total.Count(), 32u);
  EXPECT_EQ(total.Sum(), 32u * 3000);
  EXPECT_EQ(slat.Sum(), 32u * 500);
  EXPECT_EQ(clat.Sum(), 32u * 2500);
  EXPECT_EQ(clat.Min(), 2500u);
  EXPECT_EQ(clat.Max(), 2500u);
}

TEST(LatencyRunTest, NothingAddedRecordsNothing) {
  LatencyHistogram total, slat, clat;
  RecordRuns({}, 4000, &total, &slat, &clat);
  EXPECT_EQ(total.Count(), 0u);
  EXPECT_EQ(slat.Count(), 0u);
  EXPECT_EQ(clat.Count(), 0u);
}

// Batches of I/Os from a few submit turns, interleaved as completions can be
// (runs broken and resumed), equal the per-I/O records exactly.
TEST(LatencyRunTest, MatchesPerIoRecordsOnInterleavedBatches) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t reap_ns = 10'000'000 + static_cast<int64_t>(rng() % 1000);
    std::vector<Stamps> turns;
    for (int t = 0, n = 1 + rng() % 5; t < n; ++t) {
      const int64_t submit = static_cast<int64_t>(rng() % 9'000'000);
      turns.push_back({submit, submit + static_cast<int64_t>(rng() % 500'000)});
    }
    std::vector<Stamps> ios;
    for (int i = 0, n = rng() % 300; i < n; ++i) {
      // Mostly the same turn as the previous I/O, sometimes another.
      const size_t turn = (rng() % 4 == 0 || ios.empty())
                              ? rng() % turns.size()
                              : i % 7 == 0 ? 0 : turns.size() - 1;
      ios.push_back(turns[turn]);
    }
    LatencyHistogram each_total, each_slat, each_clat;
    LatencyHistogram run_total, run_slat, run_clat;
    RecordEach(ios, reap_ns, &each_total, &each_slat, &each_clat);
    RecordRuns(ios, reap_ns, &run_total, &run_slat, &run_clat);
    ASSERT_EQ(run_total.Count(), ios.size());
    ASSERT_EQ(run_total, each_total) << "trial " << trial;
    ASSERT_EQ(run_slat, each_slat) << "trial " << trial;
    ASSERT_EQ(run_clat, each_clat) << "trial " << trial;
  }
}

}  // namespace
}  // namespace blkperf::internal
