#include "model/histogram.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

using H = LatencyHistogram;

constexpr double kPercentiles[] = {50.0, 90.0, 99.0, 99.9, 99.99};

// The contract's rank: ceil(p / 100 * n), at least 1, 1-based.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double p) {
  const double rank = std::ceil(p * static_cast<double>(sorted.size()) / 100);
  const size_t r = std::max<size_t>(1, static_cast<size_t>(rank));
  return sorted[std::min(r, sorted.size()) - 1];
}

double RelativeError(uint64_t got, uint64_t want) {
  return std::abs(static_cast<double>(got) - static_cast<double>(want)) /
         static_cast<double>(want);
}

void ExpectSameBuckets(const H& a, const H& b) {
  for (int i = 0; i < H::kNumBuckets; ++i) {
    ASSERT_EQ(a.BucketCount(i), b.BucketCount(i)) << "bucket " << i;
  }
}

TEST(HistogramLayoutTest, ConstantsMatchTheContract) {
  EXPECT_EQ(H::kNumBuckets, 2304);
  EXPECT_EQ(H::kMaxTrackableNs, (uint64_t{1} << 41) - 1);
  EXPECT_EQ(H::BucketIndex(H::kMaxTrackableNs), H::kNumBuckets - 1);
  static_assert(H::BucketIndex(1000) == 64 * 3 + (1000 >> 3));
}

TEST(HistogramLayoutTest, LinearBucketsHoldOneValueEach) {
  for (uint64_t v = 0; v < 128; ++v) {
    const int i = H::BucketIndex(v);
    EXPECT_EQ(i, static_cast<int>(v));
    EXPECT_EQ(H::BucketLowerBound(i), v);
    EXPECT_EQ(H::BucketUpperBound(i), v);
  }
}

TEST(HistogramLayoutTest, EveryBucketRoundTripsAndBucketsTile) {
  for (int i = 0; i < H::kNumBuckets; ++i) {
    const uint64_t lo = H::BucketLowerBound(i);
    const uint64_t hi = H::BucketUpperBound(i);
    ASSERT_LE(lo, hi) << "bucket " << i;
    if (hi <= H::kMaxTrackableNs) {
      ASSERT_EQ(H::BucketIndex(lo), i) << "lower bound of bucket " << i;
      ASSERT_EQ(H::BucketIndex(hi), i) << "upper bound of bucket " << i;
      ASSERT_EQ(H::BucketIndex(H::BucketMidpoint(i)), i) << "bucket " << i;
    }
    if (i > 0) {
      // No gaps, no overlaps: each bucket starts right after the previous.
      ASSERT_EQ(lo, H::BucketUpperBound(i - 1) + 1) << "bucket " << i;
    }
  }
  // The top group continues the formula: it ends at 2^41 - 1.
  EXPECT_EQ(H::BucketUpperBound(H::kNumBuckets - 1), (uint64_t{1} << 41) - 1);
}

TEST(HistogramLayoutTest, AroundPowersOfTwo) {
  for (int b = 7; b < 40; ++b) {
    const uint64_t p = uint64_t{1} << b;
    const int shift = b - 6;
    EXPECT_EQ(H::BucketIndex(p), 64 * shift + 64) << "2^" << b;
    EXPECT_EQ(H::BucketIndex(p - 1), 64 * (shift - 1) + 127) << "2^" << b;
    EXPECT_EQ(H::BucketIndex(p + 1), H::BucketIndex(p)) << "2^" << b;
    EXPECT_EQ(H::BucketLowerBound(H::BucketIndex(p)), p) << "2^" << b;
    EXPECT_EQ(H::BucketUpperBound(H::BucketIndex(p - 1)), p - 1) << "2^" << b;
  }
}

TEST(HistogramLayoutTest, MidpointWithinOnePercentFrom100nsTo100s) {
  // Reporting a bucket's midpoint for any value in it errs by at most
  // (mid - lo) / lo or (hi - mid) / hi. (A bucket's full width is up to 1/64
  // of its lower bound; the midpoint halves that.)
  constexpr uint64_t kFrom = 100;
  constexpr uint64_t kTo = 100'000'000'000;
  double worst = 0;
  for (int i = H::BucketIndex(kFrom); i <= H::BucketIndex(kTo); ++i) {
    const double lo = static_cast<double>(H::BucketLowerBound(i));
    const double hi = static_cast<double>(H::BucketUpperBound(i));
    const double mid = static_cast<double>(H::BucketMidpoint(i));
    worst = std::max({worst, (mid - lo) / lo, (hi - mid) / hi});
    ASSERT_LE((hi - lo) / lo, 1.0 / 64) << "bucket " << i;
  }
  EXPECT_LE(worst, 0.01);
  EXPECT_LE(worst, 1.0 / 128);
}

TEST(LatencyHistogramTest, EmptyHistogram) {
  H h;
  EXPECT_EQ(h.Count(), 0);
  EXPECT_EQ(h.Sum(), 0);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), 0);
  EXPECT_EQ(h.Mean(), 0.0);
  for (double p : {0.0, 50.0, 100.0}) EXPECT_EQ(h.Percentile(p), 0);
  EXPECT_TRUE(h.NonEmptyBuckets().empty());
}

TEST(LatencyHistogramTest, RecordTracksCountSumMinMaxMean) {
  H h;
  h.Record(100);
  h.Record(300);
  h.RecordN(200, 2);
  h.RecordN(5, 0);  // no-op
  EXPECT_EQ(h.Count(), 4);
  EXPECT_EQ(h.Sum(), 800);
  EXPECT_EQ(h.Min(), 100);
  EXPECT_EQ(h.Max(), 300);
  EXPECT_DOUBLE_EQ(h.Mean(), 200.0);
  EXPECT_EQ(h.BucketCount(H::BucketIndex(200)), 2);
  h.Clear();
  EXPECT_EQ(h, H());
}

TEST(LatencyHistogramTest, PercentileRanksAndExtremes) {
  H h;
  for (uint64_t v = 1; v <= 100; ++v) h.Record(v);
  // Below 128 every bucket is exact.
  EXPECT_EQ(h.Percentile(0), 1);
  EXPECT_EQ(h.Percentile(1), 1);
  EXPECT_EQ(h.Percentile(1.5), 2);
  EXPECT_EQ(h.Percentile(50), 50);
  EXPECT_EQ(h.Percentile(99.5), 100);
  EXPECT_EQ(h.Percentile(100), 100);
  EXPECT_EQ(h.Percentile(-3), 1);
  EXPECT_EQ(h.Percentile(250), 100);
}

TEST(LatencyHistogramTest, PercentileClampsMidpointToMinMax) {
  H h;
  // Both in bucket 64 * 13 + 122 = [999'424, 1'007'615], midpoint 1'003'519.
  h.RecordN(1'000'001, 3);
  h.Record(1'000'002);
  const int i = H::BucketIndex(1'000'001);
  ASSERT_EQ(i, H::BucketIndex(1'000'002));
  ASSERT_GT(H::BucketMidpoint(i), 1'000'002);
  EXPECT_EQ(h.Percentile(50), 1'000'002);
}

struct Distribution {
  std::string name;
  std::vector<uint64_t> values;
};

std::vector<Distribution> Distributions() {
  constexpr int kN = 200'000;
  std::mt19937_64 rng(42);
  std::vector<Distribution> out;

  Distribution uniform{"uniform 100ns..10ms", {}};
  std::uniform_int_distribution<uint64_t> u(100, 10'000'000);
  for (int i = 0; i < kN; ++i) uniform.values.push_back(u(rng));
  out.push_back(std::move(uniform));

  // Median ~50 us with a wide spread (sigma 1.5 spans decades).
  Distribution lognormal{"lognormal", {}};
  std::lognormal_distribution<double> ln(std::log(50'000.0), 1.5);
  for (int i = 0; i < kN; ++i) {
    const double v = std::clamp(ln(rng), 100.0, 1e11);
    lognormal.values.push_back(static_cast<uint64_t>(v));
  }
  out.push_back(std::move(lognormal));

  Distribution constant{"constant", std::vector<uint64_t>(kN, 123'456)};
  out.push_back(std::move(constant));

  // A fast mode plus a rare slow tail, as on a device with GC pauses.
  Distribution bimodal{"bimodal", {}};
  std::normal_distribution<double> fast(20'000, 2'000);
  std::uniform_int_distribution<uint64_t> slow(5'000'000, 80'000'000);
  std::bernoulli_distribution is_slow(0.003);
  for (int i = 0; i < kN; ++i) {
    bimodal.values.push_back(
        is_slow(rng) ? slow(rng)
                     : static_cast<uint64_t>(std::max(100.0, fast(rng))));
  }
  out.push_back(std::move(bimodal));
  return out;
}

TEST(LatencyHistogramTest, PercentilesWithinOnePercentOfExact) {
  for (Distribution& d : Distributions()) {
    H h;
    for (uint64_t v : d.values) h.Record(v);
    std::sort(d.values.begin(), d.values.end());
    EXPECT_EQ(h.Count(), d.values.size()) << d.name;
    EXPECT_EQ(h.Min(), d.values.front()) << d.name;
    EXPECT_EQ(h.Max(), d.values.back()) << d.name;
    for (double p : kPercentiles) {
      const uint64_t want = ExactPercentile(d.values, p);
      const uint64_t got = h.Percentile(p);
      EXPECT_LE(RelativeError(got, want), 0.01)
          << d.name << " p" << p << ": got " << got << ", exact " << want;
    }
  }
}

TEST(LatencyHistogramTest, MergeEqualsRecordingIntoOne) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> ln(std::log(80'000.0), 2.0);
  H a, b, all;
  for (int i = 0; i < 50'000; ++i) {
    const uint64_t v = static_cast<uint64_t>(ln(rng));
    (i % 3 == 0 ? a : b).Record(v);
    all.Record(v);
  }
  H merged = a;
  merged.Merge(b);
  ExpectSameBuckets(merged, all);
  EXPECT_EQ(merged, all);

  // Merging into or from an empty histogram is the identity.
  H empty;
  empty.Merge(all);
  EXPECT_EQ(empty, all);
  merged.Merge(H());
  EXPECT_EQ(merged, all);
}

TEST(LatencyHistogramTest, SubtractGivesTheIntervalDelta) {
  H earlier;
  earlier.Record(50);
  earlier.Record(1'000'000);
  H later = earlier;
  later.Record(2'000);
  later.RecordN(3'000, 2);
  later.Record(40);  // new overall min, inside the interval

  H delta = later;
  delta.Subtract(earlier);

  H want;
  want.Record(2'000);
  want.RecordN(3'000, 2);
  want.Record(40);
  ExpectSameBuckets(delta, want);
  EXPECT_EQ(delta.Count(), 4);
  EXPECT_EQ(delta.Sum(), 2'000 + 6'000 + 40);
  // Lowest bucket holds exactly 40, and 40 is the later histogram's min.
  EXPECT_EQ(delta.Min(), 40);
  // The later max (1'000'000) is outside the delta's highest bucket, so max
  // becomes that bucket's upper bound.
  EXPECT_EQ(delta.Max(), H::BucketUpperBound(H::BucketIndex(3'000)));
  EXPECT_GE(delta.Max(), 3'000);
}

TEST(LatencyHistogramTest, SubtractSelfIsEmpty) {
  H h;
  h.RecordN(777, 5);
  H delta = h;
  delta.Subtract(h);
  EXPECT_EQ(delta, H());
  EXPECT_EQ(delta.Percentile(50), 0);
}

TEST(LatencyHistogramTest, SubtractSaturatesInsteadOfWrapping) {
  H small, big;
  small.Record(10);
  big.RecordN(10, 3);
  big.Record(20);
  small.Subtract(big);  // contract violation: earlier has more
  EXPECT_EQ(small.Count(), 0);
  EXPECT_EQ(small.Sum(), 0);
  EXPECT_EQ(small.BucketCount(10), 0);
}

TEST(LatencyHistogramTest, ContainsAnEarlierSnapshotOnly) {
  H earlier;
  earlier.RecordN(10, 2);
  H later = earlier;
  later.Record(5'000);
  EXPECT_TRUE(later.Contains(earlier));
  EXPECT_TRUE(later.Contains(later));
  EXPECT_TRUE(later.Contains(H()));
  EXPECT_FALSE(earlier.Contains(later));
  // As many I/Os in all, but one bucket holds more: not an earlier one.
  H moved;
  moved.Record(10);
  moved.RecordN(7'000, 2);
  EXPECT_FALSE(later.Contains(moved));
}

TEST(LatencyHistogramTest, ValuesAboveMaxAreClampedIntoTheLastBucket) {
  H h;
  h.Record(H::kMaxTrackableNs + 1);
  h.Record(std::numeric_limits<uint64_t>::max());
  const int last = H::BucketIndex(H::kMaxTrackableNs);
  EXPECT_EQ(H::BucketIndex(std::numeric_limits<uint64_t>::max()), last);
  EXPECT_EQ(h.BucketCount(last), 2);
  EXPECT_EQ(h.Count(), 2);
  EXPECT_EQ(h.Max(), H::kMaxTrackableNs);
  EXPECT_EQ(h.Sum(), 2 * H::kMaxTrackableNs);
  EXPECT_EQ(h.Percentile(50), H::kMaxTrackableNs);
  for (int i = last + 1; i < H::kNumBuckets; ++i)
    EXPECT_EQ(h.BucketCount(i), 0);
}

TEST(LatencyHistogramTest, SparseRoundTrip) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> ln(std::log(30'000.0), 1.0);
  H h;
  for (int i = 0; i < 10'000; ++i) h.Record(static_cast<uint64_t>(ln(rng)));
  h.Record(7);

  const std::vector<std::pair<int, uint64_t>> sparse = h.NonEmptyBuckets();
  ASSERT_FALSE(sparse.empty());
  EXPECT_THAT(sparse.front(), Pair(7, 1));
  EXPECT_TRUE(std::is_sorted(sparse.begin(), sparse.end()));

  absl::StatusOr<H> rebuilt = H::FromBuckets(sparse, h.Sum(), h.Min(), h.Max());
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(*rebuilt, h);

  // The streaming form gives the same result.
  H streamed;
  for (const auto& [index, count] : sparse) {
    ASSERT_TRUE(streamed.AddBucket(index, count).ok());
  }
  streamed.SetSum(h.Sum());
  ASSERT_TRUE(streamed.SetMinMax(h.Min(), h.Max()).ok());
  EXPECT_EQ(streamed, h);
}

TEST(LatencyHistogramTest, AddBucketWithoutMinMaxUsesBucketBounds) {
  H h;
  ASSERT_TRUE(h.AddBucket(H::BucketIndex(5'000), 2).ok());
  ASSERT_TRUE(h.AddBucket(3, 1).ok());
  ASSERT_TRUE(h.AddBucket(100, 0).ok());  // empty bucket: no effect
  EXPECT_THAT(h.NonEmptyBuckets(),
              ElementsAre(Pair(3, 1), Pair(H::BucketIndex(5'000), 2)));
  EXPECT_EQ(h.Count(), 3);
  EXPECT_EQ(h.Min(), 3);
  EXPECT_EQ(h.Max(), H::BucketUpperBound(H::BucketIndex(5'000)));
}

TEST(LatencyHistogramTest, AddBucketRejectsOutOfRangeIndex) {
  H h;
  for (int bad : {-1, H::kNumBuckets, 1'000'000}) {
    absl::Status s = h.AddBucket(bad, 1);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("index " + std::to_string(bad)));
  }
  EXPECT_EQ(h, H());

  absl::StatusOr<H> r = H::FromBuckets({{5, 1}, {2304, 9}}, 5, 5, 5);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("2304"));
}

TEST(LatencyHistogramTest, SetMinMaxRejectsValuesOutsideExtremeBuckets) {
  absl::StatusOr<H> r = H::FromBuckets({{10, 1}, {500, 1}}, 0, 11, 500);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("min_ns 11"));

  r = H::FromBuckets({{10, 1}, {500, 1}}, 0, 10, 1);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("max_ns 1"));

  r = H::FromBuckets({}, 0, 0, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, H());
}

TEST(LiveLatencyHistogramTest, IsCacheLineAligned) {
  EXPECT_EQ(alignof(LiveLatencyHistogram), ABSL_CACHELINE_SIZE);
}

TEST(LiveLatencyHistogramTest, SnapshotMatchesPlainHistogram) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> ln(std::log(100'000.0), 2.0);
  LiveLatencyHistogram live;
  H plain;
  H snap;
  live.SnapshotTo(&snap);
  EXPECT_EQ(snap, H());

  for (int i = 0; i < 100'000; ++i) {
    const uint64_t v = static_cast<uint64_t>(ln(rng)) + (i % 5 == 0 ? 1 : 0);
    if (i % 10 == 0) {
      live.RecordN(v, 4);
      plain.RecordN(v, 4);
    } else {
      live.Record(v);
      plain.Record(v);
    }
  }
  live.Record(H::kMaxTrackableNs + 12345);
  plain.Record(H::kMaxTrackableNs + 12345);
  live.RecordN(1, 0);

  live.SnapshotTo(&snap);
  ExpectSameBuckets(snap, plain);
  EXPECT_EQ(snap, plain);
  for (double p : kPercentiles)
    EXPECT_EQ(snap.Percentile(p), plain.Percentile(p));
}

TEST(LiveLatencyHistogramTest, ConcurrentSnapshotsAreSelfConsistent) {
  LiveLatencyHistogram live;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<uint64_t> u(1'000, 1'000'000);
    for (int i = 0; i < 500'000; ++i) live.Record(u(rng));
    done.store(true, std::memory_order_release);
  });
  uint64_t last_count = 0;
  while (!done.load(std::memory_order_acquire)) {
    H snap;
    live.SnapshotTo(&snap);
    uint64_t total = 0;
    for (const auto& [index, count] : snap.NonEmptyBuckets()) total += count;
    ASSERT_EQ(snap.Count(), total);
    ASSERT_GE(snap.Count(), last_count);  // buckets only grow
    last_count = snap.Count();
    if (snap.Count() > 0) {
      ASSERT_LE(snap.Min(), snap.Max());
      ASSERT_GE(snap.Percentile(50), snap.Min());
      ASSERT_LE(snap.Percentile(50), snap.Max());
    }
  }
  writer.join();
  H snap;
  live.SnapshotTo(&snap);
  EXPECT_EQ(snap.Count(), 500'000);
}

}  // namespace
}  // namespace blkperf
