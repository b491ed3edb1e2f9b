#include "wire/merge.h"

#include <map>

#include "daemon/engine/histogram.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "wire/snapshot_convert.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

// Host `k`'s latencies: a different spread per host.
void RecordHost(int k, LatencyHistogram* h) {
  for (uint64_t v = 1; v <= 2000; ++v) h->Record(v * (150 + 97 * k));
  h->RecordN(4'000'000 + k, static_cast<uint64_t>(k + 1));
}

v1::ThreadStats HostStats(int k) {
  ThreadSnapshot t;
  RecordHost(k, &t.latency);
  // Open loop: each I/O's intended-time latency, queueing included.
  RecordHost(k + 10, &t.intended_latency);
  t.late_ios = 7u + k;
  t.ios = t.latency.Count();
  t.bytes = t.ios * 4096;
  t.read_ios = t.ios;
  t.read_bytes = t.bytes;
  t.sqes = t.ios + k;
  t.enter_calls = 100 + k;
  t.errors.push_back({.errno_value = 5, .name = "EIO", .count = 1u + k});
  v1::ThreadStats proto;
  ThreadToProto(t, absl::Seconds(10), /*with_histogram=*/true, &proto);
  return proto;
}

TEST(MergeHistogramsTest, EqualsOneHistogramThatSawEveryValue) {
  LatencyHistogram all;
  std::vector<v1::LatencyHistogram> hosts;
  for (int k = 0; k < 5; ++k) {
    LatencyHistogram h;
    RecordHost(k, &h);
    RecordHost(k, &all);
    hosts.emplace_back();
    HistogramToProto(h, &hosts.back());
  }
  absl::StatusOr<v1::LatencyHistogram> merged = MergeHistograms(hosts, "hosts");
  ASSERT_TRUE(merged.ok()) << merged.status();
  absl::StatusOr<LatencyHistogram> back = HistogramFromProto(*merged);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->Count(), all.Count());
  EXPECT_EQ(*back, all);
  // Bucket by bucket: each merged count is the sum of the hosts' counts.
  std::map<uint32_t, uint64_t> sums;
  for (const v1::LatencyHistogram& h : hosts) {
    for (const v1::HistogramBucket& b : h.buckets()) sums[b.index()] += b.count();
  }
  ASSERT_EQ(static_cast<size_t>(merged->buckets_size()), sums.size());
  for (const v1::HistogramBucket& b : merged->buckets()) {
    EXPECT_EQ(b.count(), sums[b.index()]) << "bucket " << b.index();
  }
  EXPECT_EQ(back->Percentile(99), all.Percentile(99));
}

TEST(MergeThreadStatsTest, AddsCountersErrorsAndRecomputesRates) {
  const v1::ThreadStats a = HostStats(1), b = HostStats(2);
  absl::StatusOr<v1::ThreadStats> merged =
      MergeThreadStats({a, b}, absl::Seconds(4), "hosts");
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_GT(a.ios(), 0u);
  EXPECT_EQ(merged->ios(), a.ios() + b.ios());
  EXPECT_EQ(merged->bytes(), a.bytes() + b.bytes());
  EXPECT_EQ(merged->sqes(), a.sqes() + b.sqes());
  EXPECT_EQ(merged->enter_calls(), a.enter_calls() + b.enter_calls());
  EXPECT_EQ(merged->error_total(), 2u + 3u);
  ASSERT_EQ(merged->errors_size(), 1);
  EXPECT_EQ(merged->errors(0).count(), 5u);
  EXPECT_EQ(merged->thread_index(), -1);
  EXPECT_DOUBLE_EQ(merged->iops(), (a.ios() + b.ios()) / 4.0);
  EXPECT_EQ(merged->histogram().count(), a.ios() + b.ios());
  EXPECT_EQ(merged->latency().max_ns(), 4'000'002u);
  // Open-loop figures add up too: intended-time latency bucket by bucket.
  EXPECT_EQ(merged->late_ios(), a.late_ios() + b.late_ios());
  LatencyHistogram intended;
  RecordHost(11, &intended);
  RecordHost(12, &intended);
  ASSERT_EQ(merged->intended_histogram().count(), intended.Count());
  absl::StatusOr<LatencyHistogram> back =
      HistogramFromProto(merged->intended_histogram());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, intended);
  EXPECT_EQ(merged->intended_latency().count(), intended.Count());
  EXPECT_EQ(merged->intended_latency().p99_ns(), intended.Percentile(99));
}

TEST(MergeThreadStatsTest, RefusesWhatCannotMergeExactly) {
  v1::ThreadStats a = HostStats(0), b = HostStats(1);
  b.clear_histogram();
  absl::StatusOr<v1::ThreadStats> merged =
      MergeThreadStats({a, b}, absl::Seconds(1), "hosts");
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(merged.status().message()),
              HasSubstr("hosts[1].histogram"));
  b = HostStats(1);
  b.mutable_histogram()->mutable_layout()->set_name("hdr");
  merged = MergeThreadStats({a, b}, absl::Seconds(1), "hosts");
  EXPECT_THAT(std::string(merged.status().message()),
              HasSubstr("hosts[1].histogram.layout.name"));
  // Intended-time latencies without their histogram: not silently dropped.
  b = HostStats(1);
  ASSERT_GT(b.intended_latency().count(), 0u);
  b.clear_intended_histogram();
  merged = MergeThreadStats({a, b}, absl::Seconds(1), "hosts");
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(merged.status().message()),
              HasSubstr("hosts[1].intended_histogram"));
}

}  // namespace
}  // namespace blkperf
