#include "wire/merge.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
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

// Host `k`'s snapshot of a workload with job groups "hot" (threads 0, 1) and
// "log" (thread 2), each group's figures different from the other's.
v1::Snapshot GroupsHost(int k) {
  v1::Snapshot s;
  const char* names[] = {"hot", "log"};
  for (int g = 0; g < 2; ++g) {
    v1::GroupResult* group = s.add_groups();
    group->set_name(names[g]);
    if (g == 0) {
      group->add_threads(0);
      group->add_threads(1);
    } else {
      group->add_threads(2);
    }
    *group->mutable_total() = HostStats(3 * k + g);
  }
  return s;
}

// Bucket index -> count summed over `histograms`.
std::map<uint32_t, uint64_t> BucketSums(
    const std::vector<const v1::LatencyHistogram*>& histograms) {
  std::map<uint32_t, uint64_t> sums;
  for (const v1::LatencyHistogram* h : histograms) {
    for (const v1::HistogramBucket& b : h->buckets()) sums[b.index()] += b.count();
  }
  return sums;
}

void ExpectBuckets(const v1::LatencyHistogram& merged,
                   const std::map<uint32_t, uint64_t>& sums) {
  ASSERT_EQ(static_cast<size_t>(merged.buckets_size()), sums.size());
  for (const v1::HistogramBucket& b : merged.buckets()) {
    EXPECT_EQ(b.count(), sums.at(b.index())) << "bucket " << b.index();
  }
}

TEST(MergeGroupsTest, MergesEachGroupExactlyKeepingNamesAndThreads) {
  const std::vector<v1::Snapshot> hosts = {GroupsHost(0), GroupsHost(1),
                                           GroupsHost(2)};
  absl::StatusOr<std::vector<v1::GroupResult>> merged = MergeGroups(
      {&hosts[0], &hosts[1], &hosts[2]}, absl::Seconds(5), "hosts");
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->size(), 2u);
  EXPECT_EQ((*merged)[0].name(), "hot");
  EXPECT_THAT((*merged)[0].threads(), ::testing::ElementsAre(0u, 1u));
  EXPECT_EQ((*merged)[1].name(), "log");
  EXPECT_THAT((*merged)[1].threads(), ::testing::ElementsAre(2u));
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    const v1::ThreadStats& t = (*merged)[g].total();
    uint64_t ios = 0, bytes = 0, late = 0, errors = 0;
    std::vector<const v1::LatencyHistogram*> histograms, intended;
    LatencyHistogram all;
    for (const v1::Snapshot& h : hosts) {
      const v1::ThreadStats& in = h.groups(g).total();
      ios += in.ios();
      bytes += in.bytes();
      late += in.late_ios();
      errors += in.error_total();
      histograms.push_back(&in.histogram());
      intended.push_back(&in.intended_histogram());
      absl::StatusOr<LatencyHistogram> one = HistogramFromProto(in.histogram());
      ASSERT_TRUE(one.ok()) << one.status();
      all.Merge(*one);
    }
    ASSERT_GT(ios, 0u);
    EXPECT_EQ(t.thread_index(), -1);
    EXPECT_EQ(t.ios(), ios);
    EXPECT_EQ(t.bytes(), bytes);
    EXPECT_EQ(t.late_ios(), late);
    EXPECT_EQ(t.error_total(), errors);
    EXPECT_DOUBLE_EQ(t.iops(), ios / 5.0);
    EXPECT_EQ(t.histogram().count(), ios);
    ExpectBuckets(t.histogram(), BucketSums(histograms));
    ExpectBuckets(t.intended_histogram(), BucketSums(intended));
    EXPECT_EQ(t.latency().p99_ns(), all.Percentile(99));
  }
  // Groups are not mixed up: each merged group holds its own I/Os.
  EXPECT_NE((*merged)[0].total().ios(), (*merged)[1].total().ios());
}

TEST(MergeGroupsTest, NoGroupsMergeToNone) {
  const v1::Snapshot a, b;
  absl::StatusOr<std::vector<v1::GroupResult>> merged =
      MergeGroups({&a, &b}, absl::Seconds(1), "hosts");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_TRUE(merged->empty());
}

TEST(MergeGroupsTest, RefusesHostsWhoseGroupsDisagree) {
  const v1::Snapshot a = GroupsHost(0);
  auto expect_refused = [&](const v1::Snapshot& b, const std::string& field) {
    const v1::Snapshot ok = GroupsHost(1);
    absl::StatusOr<std::vector<v1::GroupResult>> merged =
        MergeGroups({&a, &ok, &b}, absl::Seconds(1), "hosts");
    EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(merged.status().message()), HasSubstr(field));
  };
  // Other order.
  v1::Snapshot b = GroupsHost(2);
  b.mutable_groups()->SwapElements(0, 1);
  expect_refused(b, "hosts[2].groups[0] is \"log\" where hosts[0].groups[0] "
                    "is \"hot\"");
  // Another name.
  b = GroupsHost(2);
  b.mutable_groups(1)->set_name("logs");
  expect_refused(b, "hosts[2].groups[1] is \"logs\"");
  // A group missing, or one too many.
  b = GroupsHost(2);
  b.mutable_groups()->RemoveLast();
  expect_refused(b, "hosts[2].groups[1] is missing");
  b = GroupsHost(2);
  v1::GroupResult extra = b.groups(0);
  extra.set_name("extra");
  *b.add_groups() = extra;
  expect_refused(b, "hosts[2].groups[2] \"extra\" has no counterpart");
  // No groups at all where the others have them.
  expect_refused(v1::Snapshot(), "hosts[2].groups[0] is missing");
  // Same names, other threads.
  b = GroupsHost(2);
  b.mutable_groups(0)->add_threads(3);
  expect_refused(b, "hosts[2].groups[0].threads [0,1,3]");
  // A group's figures that cannot merge exactly name the group.
  b = GroupsHost(2);
  b.mutable_groups(1)->mutable_total()->clear_histogram();
  expect_refused(b, "hosts[2].groups[1].total.histogram");
}

}  // namespace
}  // namespace blkperf
