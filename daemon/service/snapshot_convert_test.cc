#include "daemon/service/snapshot_convert.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

LatencyHistogram SampleHistogram() {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 1000; ++v) h.Record(v * 1000);  // 1us..1ms
  h.RecordN(5'000'000, 10);
  return h;
}

TEST(HistogramProtoTest, RoundTripsExactly) {
  const LatencyHistogram h = SampleHistogram();
  v1::LatencyHistogram proto;
  HistogramToProto(h, &proto);
  EXPECT_EQ(proto.layout().name(), "log-linear-64");
  EXPECT_EQ(proto.layout().num_buckets(),
            static_cast<uint32_t>(LatencyHistogram::kNumBuckets));
  EXPECT_EQ(proto.count(), 1010u);
  EXPECT_EQ(proto.max_ns(), 5'000'000u);
  EXPECT_EQ(proto.min_ns(), 1000u);
  for (const v1::HistogramBucket& b : proto.buckets()) {
    EXPECT_GT(b.count(), 0u);
    EXPECT_EQ(b.lower_bound_ns(),
              LatencyHistogram::BucketLowerBound(static_cast<int>(b.index())));
  }
  absl::StatusOr<LatencyHistogram> back = HistogramFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, h);
}

TEST(HistogramProtoTest, MergedProtosEqualTheMergedHistogram) {
  LatencyHistogram a = SampleHistogram();
  LatencyHistogram b;
  b.RecordN(300, 7);
  v1::LatencyHistogram pa, pb;
  HistogramToProto(a, &pa);
  HistogramToProto(b, &pb);
  absl::StatusOr<LatencyHistogram> ra = HistogramFromProto(pa);
  absl::StatusOr<LatencyHistogram> rb = HistogramFromProto(pb);
  ASSERT_TRUE(ra.ok() && rb.ok());
  ra->Merge(*rb);
  a.Merge(b);
  EXPECT_EQ(*ra, a);
}

TEST(HistogramProtoTest, RejectsForeignLayoutAndBadIndexes) {
  v1::LatencyHistogram proto;
  HistogramToProto(SampleHistogram(), &proto);
  v1::LatencyHistogram other = proto;
  other.mutable_layout()->set_name("hdr");
  EXPECT_THAT(std::string(HistogramFromProto(other).status().message()),
              HasSubstr("histogram.layout.name"));
  other = proto;
  other.mutable_buckets(0)->set_index(1u << 20);
  EXPECT_EQ(HistogramFromProto(other).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(HistogramFromProto(other).status().message()),
              HasSubstr("histogram.buckets[0].index"));
  other = proto;
  other.set_count(proto.count() + 1);
  EXPECT_THAT(std::string(HistogramFromProto(other).status().message()),
              HasSubstr("histogram.count"));
}

TEST(PercentilesTest, MatchTheHistogram) {
  const LatencyHistogram h = SampleHistogram();
  v1::LatencyPercentiles p;
  PercentilesToProto(h, &p);
  EXPECT_EQ(p.p50_ns(), h.Percentile(50));
  EXPECT_EQ(p.p90_ns(), h.Percentile(90));
  EXPECT_EQ(p.p99_ns(), h.Percentile(99));
  EXPECT_EQ(p.p99_9_ns(), h.Percentile(99.9));
  EXPECT_EQ(p.p99_99_ns(), h.Percentile(99.99));
  EXPECT_EQ(p.max_ns(), 5'000'000u);
  EXPECT_DOUBLE_EQ(p.mean_ns(), h.Mean());
  EXPECT_EQ(p.count(), 1010u);
}

TEST(SnapshotProtoTest, CarriesTotalsThreadsAndRates) {
  WorkloadSnapshot s;
  s.state = WorkloadState::kFinished;
  s.elapsed = absl::Seconds(2);
  ThreadSnapshot t;
  t.thread_index = 0;
  t.cpu = 3;
  t.ios = 1000;
  t.bytes = 1000 * 4096;
  t.enter_calls = 250;
  t.errors.push_back({.errno_value = 5, .name = "EIO", .count = 2});
  t.latency = SampleHistogram();
  s.threads.push_back(t);
  s.total = t;
  s.notes.push_back("polled: auto fell back to interrupts");
  s.has_error = true;
  s.error.message = "EIO at /x offset 0";

  v1::Snapshot proto;
  SnapshotToProto(s, {}, &proto);
  EXPECT_EQ(proto.elapsed().seconds(), 2);
  EXPECT_EQ(proto.total().thread_index(), -1);
  EXPECT_DOUBLE_EQ(proto.total().iops(), 500.0);
  EXPECT_DOUBLE_EQ(proto.total().bytes_per_second(), 500.0 * 4096);
  EXPECT_DOUBLE_EQ(proto.total().ios_per_call(), 4.0);
  EXPECT_EQ(proto.total().error_total(), 2u);
  EXPECT_EQ(proto.total().histogram().count(), 1010u);
  ASSERT_EQ(proto.threads_size(), 1);
  EXPECT_EQ(proto.threads(0).cpu(), 3);
  EXPECT_FALSE(proto.threads(0).has_histogram());
  EXPECT_EQ(proto.notes_size(), 1);
  EXPECT_EQ(proto.error().message(), "EIO at /x offset 0");

  SnapshotToProto(s, {.thread_histograms = true}, &proto);
  EXPECT_TRUE(proto.threads(0).has_histogram());
  EXPECT_EQ(StateToProto(s.state), v1::WORKLOAD_STATE_FINISHED);
}

TEST(IntervalDeltaTest, SubtractsCountersErrorsAndHistogram) {
  ThreadSnapshot before;
  before.ios = 100;
  before.bytes = 409600;
  before.enter_calls = 10;
  before.user_cpu_seconds = 1.0;
  before.errors.push_back({.errno_value = 5, .name = "EIO", .count = 1});
  before.latency.RecordN(1000, 100);
  ThreadSnapshot now = before;
  now.ios = 150;
  now.bytes = 614400;
  now.enter_calls = 15;
  now.user_cpu_seconds = 1.5;
  now.inflight = 7;
  now.errors[0].count = 4;
  now.latency.RecordN(2000, 50);

  const ThreadSnapshot d = IntervalDelta(now, before);
  EXPECT_EQ(d.ios, 50u);
  EXPECT_EQ(d.bytes, 204800u);
  EXPECT_EQ(d.enter_calls, 5u);
  EXPECT_DOUBLE_EQ(d.user_cpu_seconds, 0.5);
  EXPECT_EQ(d.inflight, 7u);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].count, 3u);
  EXPECT_EQ(d.latency.Count(), 50u);
  EXPECT_EQ(d.latency.Percentile(50), now.latency.Percentile(100));
}

TEST(TargetInfoProtoTest, DerivesPollAndInUse) {
  TargetInfo info;
  info.path = "/dev/nvme0n1";
  info.kind = TargetKind::kBlockDevice;
  info.limits.io_poll = true;
  info.limits.scheduler = "none";
  info.backs_loop = "loop3";
  v1::TargetInfo proto;
  TargetInfoToProto(info, &proto);
  EXPECT_EQ(proto.kind(), v1::TARGET_KIND_BLOCK_DEVICE);
  EXPECT_TRUE(proto.can_poll());
  EXPECT_TRUE(proto.in_use());
  EXPECT_EQ(proto.limits().scheduler(), "none");
  EXPECT_EQ(proto.backs_loop(), "loop3");
}

}  // namespace
}  // namespace blkperf
