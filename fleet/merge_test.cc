#include "fleet/merge.h"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
#include "wire/merge.h"
#include "wire/snapshot_convert.h"

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

// The fleet merges with //wire:merge; this pins the property the fleet
// report relies on: percentiles of the merge, never averaged percentiles.
TEST(MergeTest, FleetPercentilesAreNotAveraged) {
  // Host A: 99 fast I/Os, host B: 1 slow one. Averaging the hosts' p99
  // would give ~ (100 + 1,000,000) / 2; the merge's p99 is the fast bucket.
  v1::ThreadStats a, b;
  a.set_ios(99);
  *a.mutable_histogram() = HistogramOf(std::vector<uint64_t>(99, 100));
  b.set_ios(1);
  *b.mutable_histogram() = HistogramOf({1000000});
  absl::StatusOr<v1::ThreadStats> merged =
      MergeThreadStats({a, b}, absl::Seconds(1), "hosts");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->latency().p99_ns(), 100u);
  EXPECT_EQ(merged->latency().max_ns(), 1000000u);
  EXPECT_EQ(merged->ios(), 100u);
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
  // ...and is a valid histogram for the wire merge (interval p99s).
  v1::ThreadStats t;
  t.set_ios(d->count());
  *t.mutable_histogram() = *d;
  absl::StatusOr<v1::ThreadStats> merged =
      MergeThreadStats({t}, absl::Seconds(1), "intervals");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->latency().count(), 3u);
  EXPECT_EQ(SubtractHistogram(HistogramOf(early), HistogramOf(later))
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

// The fleet's interval is the engine's subtraction (one rule for the
// daemon's series and the fleet's), refused rather than saturated when the
// earlier histogram is not contained in the later one.
TEST(MergeTest, SubtractIsTheHistogramsOwn) {
  std::vector<uint64_t> early = {90, 700, 700, 40000};
  std::vector<uint64_t> later = early;
  later.insert(later.end(), {650, 800, 39000, 2'000'000});
  absl::StatusOr<LatencyHistogram> l = HistogramFromProto(HistogramOf(later));
  absl::StatusOr<LatencyHistogram> e = HistogramFromProto(HistogramOf(early));
  ASSERT_TRUE(l.ok() && e.ok());
  ASSERT_TRUE(l->Contains(*e));
  EXPECT_FALSE(e->Contains(*l));
  LatencyHistogram expected = *l;
  expected.Subtract(*e);
  v1::LatencyHistogram expected_proto;
  HistogramToProto(expected, &expected_proto);
  absl::StatusOr<v1::LatencyHistogram> d =
      SubtractHistogram(HistogramOf(later), HistogramOf(early));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->SerializeAsString(), expected_proto.SerializeAsString());
  EXPECT_EQ(d->count(), 4u);
  EXPECT_EQ(d->max_ns(), 2'000'000u) << "the later max lies in the delta";
  // A bucket of the earlier one that the later one lacks: refused.
  std::vector<uint64_t> other = later;
  other.erase(other.begin());  // no 90 ns I/O
  EXPECT_EQ(SubtractHistogram(HistogramOf(other), HistogramOf(early))
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
  // 96 is > 3 MAD but only 4% from the median: under the 5% floor.
  o = MadOutliers({100, 101, 99, 102, 98, 96, 100});
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false, false, false, false, false));
  o = MadOutliers({100, 101, 99, 102, 98, 96, 100}, 3.0, 0.03);
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false, false, false, true, false));
  EXPECT_EQ(o.rule, "> 3 MAD and > 3% from the median");
  // A uniform fleet: MAD 5 IOPS; hosts 0.2% off the median are not flagged
  // (they were, on MAD alone), a host 10% off is.
  o = MadOutliers({13400, 13405, 13395, 13400, 13372, 13428, 12060});
  EXPECT_DOUBLE_EQ(o.median, 13400);
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false, false, false, false, true));
  EXPECT_EQ(o.rule, "> 3 MAD and > 5% from the median");
  o = MadOutliers({5, 5, 5});
  EXPECT_THAT(o.flagged, ElementsAre(false, false, false));
  EXPECT_DOUBLE_EQ(Median({1, 2, 3, 4}), 2.5);
  EXPECT_TRUE(MadOutliers({}).flagged.empty());
}

TEST(MergeTest, SamplesKeepHeadAndTail) {
  std::vector<CountSample> samples;
  for (int64_t t = 1; t <= 1000; ++t) {
    AddSample(samples, {t, uint64_t(t), uint64_t(t)});
  }
  AddSample(samples, {1000, 5, 5});  // not later: ignored
  ASSERT_EQ(samples.size(), kKeptSamples);
  EXPECT_EQ(samples[0].elapsed_ns, 1);
  EXPECT_EQ(samples[kKeptSamples / 2 - 1].elapsed_ns, 32);
  EXPECT_EQ(samples[kKeptSamples / 2].elapsed_ns, 1000 - 31);
  EXPECT_EQ(samples.back().elapsed_ns, 1000);
  // Interpolation across the gap stays exact for a steady rate.
  HostTimeline h{0, samples};
  EXPECT_DOUBLE_EQ(CountsIn(h, {500, 600}).ios, 100);
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
