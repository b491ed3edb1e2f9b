#include "fleet/merge.h"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf::fleet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The log-linear-64 layout, written out independently of the engine.
uint32_t IndexOf(uint64_t v) {
  if (v < 128) return static_cast<uint32_t>(v);
  const int msb = 63 - __builtin_clzll(v);
  const int shift = msb - 6;
  return static_cast<uint32_t>(64 * shift + (v >> shift));
}
uint64_t LowerOf(uint32_t i) {
  if (i < 128) return i;
  const int shift = static_cast<int>(i / 64) - 1;
  return uint64_t{i - 64u * shift} << shift;
}
uint64_t UpperOf(uint32_t i) {
  if (i < 128) return i;
  return LowerOf(i) + ((uint64_t{1} << (i / 64 - 1)) - 1);
}

v1::LatencyHistogram HistogramOf(const std::vector<uint64_t>& values) {
  std::map<uint32_t, uint64_t> counts;
  v1::LatencyHistogram h;
  h.mutable_layout()->set_name("log-linear-64");
  h.mutable_layout()->set_num_buckets(2368);
  for (uint64_t v : values) {
    ++counts[IndexOf(v)];
    h.set_sum_ns(h.sum_ns() + v);
  }
  for (const auto& [i, c] : counts) {
    v1::HistogramBucket* b = h.add_buckets();
    b->set_index(i);
    b->set_count(c);
    b->set_lower_bound_ns(LowerOf(i));
    b->set_upper_bound_ns(UpperOf(i));
  }
  h.set_count(values.size());
  if (!values.empty()) {
    h.set_min_ns(*std::min_element(values.begin(), values.end()));
    h.set_max_ns(*std::max_element(values.begin(), values.end()));
  }
  return h;
}

TEST(MergeTest, ExactMergeEqualsIndependentMerge) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> all;
  v1::ThreadStats merged;
  for (int host = 0; host < 50; ++host) {
    std::lognormal_distribution<double> lat(10 + host % 5, 0.6 + host * 0.01);
    std::vector<uint64_t> values(1000 + host * 37);
    for (uint64_t& v : values) v = 1 + static_cast<uint64_t>(lat(rng));
    v1::ThreadStats t;
    t.set_ios(values.size());
    t.set_bytes(values.size() * 4096);
    t.set_enter_calls(values.size() / 8);
    *t.mutable_histogram() = HistogramOf(values);
    ASSERT_TRUE(MergeInto(t, merged).ok());
    all.insert(all.end(), values.begin(), values.end());
  }
  const v1::LatencyHistogram expected = HistogramOf(all);
  const v1::LatencyHistogram& got = merged.histogram();
  ASSERT_EQ(got.buckets_size(), expected.buckets_size());
  for (int i = 0; i < got.buckets_size(); ++i) {
    EXPECT_EQ(got.buckets(i).index(), expected.buckets(i).index());
    EXPECT_EQ(got.buckets(i).count(), expected.buckets(i).count());
  }
  EXPECT_EQ(got.count(), all.size());
  EXPECT_EQ(got.sum_ns(), expected.sum_ns());
  EXPECT_EQ(got.min_ns(), expected.min_ns());
  EXPECT_EQ(got.max_ns(), expected.max_ns());
  EXPECT_EQ(merged.ios(), all.size());
  EXPECT_EQ(merged.bytes(), all.size() * 4096);
  // Percentiles of the merge: the bucket midpoint of the true rank-th value.
  std::sort(all.begin(), all.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    const size_t rank = static_cast<size_t>(std::ceil(p * all.size() / 100.0));
    const uint32_t i = IndexOf(all[rank - 1]);
    const uint64_t mid = LowerOf(i) + (UpperOf(i) - LowerOf(i)) / 2;
    EXPECT_EQ(Percentile(got, p),
              std::clamp(mid, got.min_ns(), got.max_ns()))
        << p;
  }
  EXPECT_EQ(Percentile(got, 100), all.back());
  const v1::LatencyPercentiles pct = PercentilesOf(got);
  EXPECT_EQ(pct.count(), all.size());
  EXPECT_DOUBLE_EQ(pct.mean_ns(), static_cast<double>(expected.sum_ns()) /
                                      static_cast<double>(all.size()));
}

TEST(MergeTest, PercentilesAreNotAveraged) {
  // Host A: 99 fast I/Os, host B: 1 slow one. Averaging the hosts' p99
  // would give ~ (100 + 1,000,000) / 2; the merge's p99 is the fast bucket.
  std::vector<uint64_t> a(99, 100), b(1, 1000000);
  v1::ThreadStats merged;
  v1::ThreadStats ta, tb;
  *ta.mutable_histogram() = HistogramOf(a);
  *tb.mutable_histogram() = HistogramOf(b);
  ASSERT_TRUE(MergeInto(ta, merged).ok());
  ASSERT_TRUE(MergeInto(tb, merged).ok());
  EXPECT_EQ(Percentile(merged.histogram(), 99), 100u);
  EXPECT_EQ(Percentile(merged.histogram(), 100), 1000000u);
}

TEST(MergeTest, DifferentLayoutsRefused) {
  v1::LatencyHistogram a = HistogramOf({5, 6});
  v1::LatencyHistogram b = HistogramOf({5});
  b.mutable_layout()->set_name("log-linear-32");
  absl::Status s = MergeHistogram(b, a);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("log-linear-32"));
}

TEST(MergeTest, SubtractGivesTheInterval) {
  std::vector<uint64_t> early = {100, 200, 300};
  std::vector<uint64_t> later = early;
  later.insert(later.end(), {200, 5000, 5000});
  absl::StatusOr<v1::LatencyHistogram> d =
      SubtractHistogram(HistogramOf(later), HistogramOf(early));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count(), 3u);
  EXPECT_EQ(d->sum_ns(), 10200u);
  ASSERT_EQ(d->buckets_size(), 2);
  EXPECT_EQ(d->buckets(1).count(), 2u);
  EXPECT_EQ(SubtractHistogram(HistogramOf(early), HistogramOf(later))
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(MergeTest, MadOutliers) {
  // Median 100, deviations {0,1,1,2,2,60,0} -> MAD 1: 160 and 97 flagged?
  // |97-100| = 3 is not > 3; |160-100| = 60 is.
  Outliers o = MadOutliers({100, 101, 99, 102, 98, 160, 100});
  EXPECT_DOUBLE_EQ(o.median, 100);
  EXPECT_DOUBLE_EQ(o.mad, 1);
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false, false, false, true, false));
  o = MadOutliers({100, 101, 99, 102, 98, 96, 100});
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false, false, false, true, false));
  o = MadOutliers({5, 5, 5});
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false));
  EXPECT_DOUBLE_EQ(Median({1, 2, 3, 4}), 2.5);
  EXPECT_TRUE(MadOutliers({}).flagged.empty());
}

TEST(MergeTest, OverlapWindowAndCounts) {
  // Host a: measuring from 0 for 10 s at 1000 IOPS, samples every 2 s.
  HostTimeline a{0, {}};
  for (int s = 2; s <= 10; s += 2) {
    a.samples.push_back({s * 1000000000LL, uint64_t(s) * 1000, uint64_t(s) * 4096000});
  }
  // Host b: starts 1 s later, 10 s at 500 IOPS, one final sample.
  HostTimeline b{1000000000, {{10000000000LL, 5000, 5000 * 4096}}};
  absl::StatusOr<Window> w = OverlapWindow({a, b});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->begin_ns, 1000000000);
  EXPECT_EQ(w->end_ns, 10000000000);
  const WindowCounts ca = CountsIn(a, *w);
  EXPECT_DOUBLE_EQ(ca.ios, 9000);
  const WindowCounts cb = CountsIn(b, *w);
  EXPECT_DOUBLE_EQ(cb.ios, 4500);
  HostTimeline late{20000000000LL, {{1000000000, 10, 10}}};
  EXPECT_EQ(OverlapWindow({a, late}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(OverlapWindow({}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace blkperf::fleet
