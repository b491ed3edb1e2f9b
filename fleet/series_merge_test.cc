#include "fleet/series_merge.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
#include "model/series.h"
#include "wire/context_convert.h"

namespace blkperf::fleet {
namespace {

using ::testing::HasSubstr;

// A point of `ios` reads, every one taking `latency_ns`.
SeriesPoint Point(int k, absl::Duration length, uint64_t ios,
                  uint64_t latency_ns) {
  SeriesPoint p;
  p.start = absl::Seconds(k);
  p.length = length;
  p.read_ios = ios;
  p.read_bytes = ios * 4096;
  p.errors = k;
  p.user_cpu_seconds = 0.25;
  LatencyHistogram h;
  h.RecordN(latency_ns, ios);
  p.latency_buckets = h.NonEmptyBuckets();
  p.latency_sum_ns = h.Sum();
  p.p99_ns = latency_ns;
  return p;
}

// A host's final series as GetWorkload sends it with histograms: `full`
// one-second intervals of `ios` each, then a partial one.
v1::Series HostSeries(int full, uint64_t ios, uint64_t latency_ns,
                      bool histograms = true) {
  Series s;
  s.interval = absl::Seconds(1);
  for (int k = 0; k < full; ++k) {
    s.points.push_back(Point(k, absl::Seconds(1), ios, latency_ns));
  }
  s.points.push_back(Point(full, absl::Milliseconds(300), ios, latency_ns));
  v1::Series proto;
  SeriesToProto(s, &proto, histograms);
  return proto;
}

TEST(SeriesMergerTest, IntervalsAddUpWithExactPercentilesOverCompleteIntervals) {
  SeriesMerger merger;
  v1::Series fast = HostSeries(3, 990, 100'000);       // 100 us
  v1::Series slow = HostSeries(4, 10, 10'000'000);     // 10 ms, one more second
  merger.Add("a:1", fast);
  merger.Add("b:1", slow);
  // Folded in, the hosts' own series drop their histograms.
  for (const v1::Series* s : {&fast, &slow}) {
    ASSERT_GT(s->points_size(), 0);
    for (const v1::SeriesPoint& p : s->points()) EXPECT_FALSE(p.has_histogram());
    EXPECT_GT(s->points(0).p99_ns(), 0u);  // their figures stay
    EXPECT_GT(s->points(0).read_ios(), 0u);
  }
  absl::StatusOr<v1::Series> fleet = merger.Result({"b:1", "a:1"});
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  EXPECT_EQ(fleet->hosts(), 2u);
  // The intervals both completed: 3 (a's partial 4th is not one).
  ASSERT_EQ(fleet->points_size(), 3);
  for (int k = 0; k < 3; ++k) {
    const v1::SeriesPoint& p = fleet->points(k);
    EXPECT_EQ(p.read_ios(), 1000u);
    EXPECT_EQ(p.read_bytes(), 1000u * 4096);
    EXPECT_EQ(p.errors(), 2u * k);
    EXPECT_DOUBLE_EQ(p.user_cpu_seconds(), 0.5);
    EXPECT_EQ(p.start().seconds(), k);
    EXPECT_EQ(p.length().seconds(), 1);
    // 1000 I/Os: 990 at 100 us, 10 at 10 ms. p99 is rank 990 (100 us),
    // p99.9 rank 999 (10 ms): the merged histogram's, not a mean of the
    // hosts' p99s (about 5 ms).
    EXPECT_EQ(p.p99_ns(), LatencyHistogram::BucketMidpoint(
                              LatencyHistogram::BucketIndex(100'000)));
    EXPECT_EQ(p.p99_9_ns(), LatencyHistogram::BucketMidpoint(
                                LatencyHistogram::BucketIndex(10'000'000)));
  }
}

TEST(SeriesMergerTest, AHostWithoutHistogramsMakesItUnmergeableSayingWho) {
  SeriesMerger merger;
  v1::Series a = HostSeries(2, 10, 1000);
  v1::Series old = HostSeries(2, 10, 1000, /*histograms=*/false);
  merger.Add("a:1", a);
  merger.Add("old:1", old);
  absl::StatusOr<v1::Series> fleet = merger.Result({"a:1", "old:1"});
  ASSERT_EQ(fleet.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fleet.status().message(), HasSubstr("old:1"));
}

TEST(SeriesMergerTest, TheReportsHostsMustBeThoseFoldedIn) {
  SeriesMerger merger;
  v1::Series a = HostSeries(2, 10, 1000);
  merger.Add("a:1", a);
  merger.Add("a:1", a);  // a second Add of a host is ignored
  ASSERT_TRUE(merger.Result({"a:1"}).ok());
  EXPECT_EQ(merger.Result({"a:1"})->points(0).read_ios(), 10u);
  absl::StatusOr<v1::Series> more = merger.Result({"a:1", "b:1"});
  ASSERT_EQ(more.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(more.status().message(), HasSubstr("b:1"));
  absl::StatusOr<v1::Series> fewer = merger.Result({});
  EXPECT_EQ(fewer.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SeriesMergerTest, UnlikeIntervalsAreNotMerged) {
  SeriesMerger merger;
  v1::Series a = HostSeries(2, 10, 1000);
  v1::Series b = HostSeries(2, 10, 1000);
  b.mutable_interval()->set_seconds(2);
  merger.Add("a:1", a);
  merger.Add("b:1", b);
  absl::StatusOr<v1::Series> fleet = merger.Result({"a:1", "b:1"});
  ASSERT_EQ(fleet.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fleet.status().message(), HasSubstr("b:1"));
}

}  // namespace
}  // namespace blkperf::fleet
