#include "model/series_builder.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

int Bucket(uint64_t ns) { return LatencyHistogram::BucketIndex(ns); }

// Cumulative totals after `reads` reads of `ns` each on top of `t`.
void AddReads(uint64_t reads, uint64_t ns, ThreadSnapshot* t) {
  t->read_ios += reads;
  t->ios += reads;
  t->read_bytes += reads * 4096;
  t->bytes += reads * 4096;
  t->latency.RecordN(ns, reads);
}

TEST(SeriesBuilderTest, EachPointIsItsIntervalsDelta) {
  SeriesBuilder b(absl::Seconds(1));
  ThreadSnapshot t;
  AddReads(1000, 100'000, &t);
  t.user_cpu_seconds = 0.25;
  b.Add(absl::Seconds(1), t);
  AddReads(3000, 5'000'000, &t);  // a slow second second
  t.user_cpu_seconds = 1.0;
  t.errors.push_back({.errno_value = 5, .name = "EIO", .count = 2});
  b.Add(absl::Seconds(2), t);
  const Series s = b.Get(absl::Seconds(2), t);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_FALSE(s.downsampled);
  EXPECT_EQ(s.points[0].read_ios, 1000u);
  EXPECT_DOUBLE_EQ(s.points[0].ReadIops(), 1000);
  EXPECT_DOUBLE_EQ(s.points[0].ReadBytesPerSecond(), 1000 * 4096);
  EXPECT_EQ(s.points[1].read_ios, 3000u);
  EXPECT_EQ(s.points[1].start, absl::Seconds(1));
  EXPECT_EQ(s.points[1].errors, 2u);
  EXPECT_DOUBLE_EQ(s.points[1].user_cpu_seconds, 0.75);
  // The interval's own histogram: the first second's fast I/Os are not in
  // the second's p50, which the cumulative histogram would move.
  // (A delta's min and max are its buckets' bounds: the same bucket.)
  EXPECT_EQ(Bucket(s.points[1].p50_ns), Bucket(5'000'000));
  EXPECT_LT(s.points[0].p99_ns, 200'000u);  // The point carries that histogram itself (sparse), with its exact sum:
  // what a fleet's merge of the hosts' intervals adds up.
  using Buckets = std::vector<std::pair<int, uint64_t>>;
  EXPECT_EQ(s.points[0].latency_buckets, (Buckets{{Bucket(100'000), 1000}}));
  EXPECT_EQ(s.points[1].latency_buckets, (Buckets{{Bucket(5'000'000), 3000}}));
  EXPECT_EQ(s.points[1].latency_sum_ns, uint64_t{3000} * 5'000'000);
}

TEST(SeriesBuilderTest, MergeSparseBucketsAddsBucketByBucket) {
  using Buckets = std::vector<std::pair<int, uint64_t>>;
  EXPECT_EQ(MergeSparseBuckets({{1, 2}, {5, 1}}, {{0, 4}, {5, 3}, {9, 1}}),
            (Buckets{{0, 4}, {1, 2}, {5, 4}, {9, 1}}));
  EXPECT_EQ(MergeSparseBuckets({}, {{3, 1}}), (Buckets{{3, 1}}));
}

TEST(SeriesBuilderTest, GetAddsThePartialTailSoCountsAddUp) {
  SeriesBuilder b(absl::Seconds(1));
  ThreadSnapshot t;
  AddReads(10, 1000, &t);
  b.Add(absl::Seconds(1), t);
  AddReads(5, 1000, &t);
  const Series s = b.Get(absl::Milliseconds(1500), t);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[1].length, absl::Milliseconds(500));
  EXPECT_EQ(s.points[0].read_ios + s.points[1].read_ios, t.read_ios);
  EXPECT_DOUBLE_EQ(s.points[1].ReadIops(), 10);
}

TEST(SeriesBuilderTest, BeyondTheCapPointsMergeExactlyAndSaySo) {
  SeriesBuilder b(absl::Seconds(1), /*max_points=*/4);
  ThreadSnapshot t;
  for (int i = 1; i <= 5; ++i) {
    AddReads(100, static_cast<uint64_t>(i) * 1000, &t);
    b.Add(absl::Seconds(i), t);
  }
  const Series s = b.Get(absl::Seconds(5), t);
  EXPECT_TRUE(s.downsampled);
  EXPECT_EQ(s.ticks_per_point, 2);
  ASSERT_EQ(s.points.size(), 3u);  // [1,2] [3,4] [5]
  EXPECT_EQ(s.points[0].length, absl::Seconds(2));
  EXPECT_EQ(s.points[0].read_ios, 200u);
  EXPECT_EQ(s.points[2].read_ios, 100u);
  // Ticks 3 and 4 merged: half their I/Os took 3 us, half 4 us.
  EXPECT_EQ(Bucket(s.points[1].p50_ns), Bucket(3000));
  EXPECT_EQ(Bucket(s.points[1].p99_ns), Bucket(4000));
  // The next tick joins the open point until it spans two ticks.
  AddReads(100, 6000, &t);
  b.Add(absl::Seconds(6), t);
  const Series later = b.Get(absl::Seconds(6), t);
  ASSERT_EQ(later.points.size(), 3u);
  EXPECT_EQ(later.points[2].read_ios, 200u);
  uint64_t sum = 0;
  for (const SeriesPoint& p : later.points) sum += p.read_ios;
  EXPECT_EQ(sum, t.read_ios);
}

TEST(SeriesBuilderTest, AddReturnsTheTicksOwnIntervalEvenOnceDownsampled) {
  SeriesBuilder b(absl::Seconds(1), /*max_points=*/2);
  ThreadSnapshot t;
  for (int k = 1; k <= 5; ++k) {
    AddReads(100 * k, 1000 * k, &t);
    const SeriesPoint p = b.Add(absl::Seconds(k), t);
    EXPECT_EQ(p.read_ios, 100u * k);
    EXPECT_EQ(p.start, absl::Seconds(k - 1));
    EXPECT_EQ(p.length, absl::Seconds(1));
  }
  EXPECT_TRUE(b.Get(absl::Seconds(5), t).downsampled);
  EXPECT_EQ(b.Add(absl::Seconds(5), t).length, absl::ZeroDuration());
}

}  // namespace
}  // namespace blkperf
