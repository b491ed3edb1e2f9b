#include "wire/context_convert.h"

#include "gtest/gtest.h"
#include "model/histogram.h"
#include "wire/snapshot_convert.h"

namespace blkperf {
namespace {

TEST(ContextConvertTest, EnvironmentRoundTripsThroughTheSnapshot) {
  WorkloadSnapshot s;
  s.environment.kernel_release = "6.1.0-9-amd64";
  s.environment.blkperf_version = "0.1.0";
  s.environment.targets.resize(1);
  s.environment.targets[0].scheduler = "mq-deadline";
  s.environment.targets[0].model = "QEMU HARDDISK";
  v1::Snapshot proto;
  SnapshotToProto(s, SnapshotProtoOptions{}, &proto);
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->environment.kernel_release, "6.1.0-9-amd64");
  EXPECT_EQ(back->environment.blkperf_version, "0.1.0");
  EXPECT_EQ(back->environment.hostname, kUnknownFact);
  ASSERT_EQ(back->environment.targets.size(), 1u);
  EXPECT_EQ(back->environment.targets[0].scheduler, "mq-deadline");
  EXPECT_EQ(back->environment.targets[0].model, "QEMU HARDDISK");
}

TEST(ContextConvertTest, FactsFromAPeerAreSanitizedAndBounded) {
  v1::Environment proto;
  proto.set_hostname("evil\x1b]0;title\x07");
  proto.set_cpu_model(std::string(5000, 'c'));
  for (size_t i = 0; i < kMaxEnvironmentTargets + 5; ++i) proto.add_targets();
  const Environment env = EnvironmentFromProto(proto);
  EXPECT_EQ(env.hostname, "evil?]0;title?");
  EXPECT_EQ(env.cpu_model.size(), kMaxFactBytes);
  EXPECT_EQ(env.targets.size(), kMaxEnvironmentTargets);
  EXPECT_EQ(env.targets[0].path, kUnknownFact);
}

TEST(ContextConvertTest, SeriesRoundTripsAndIsBounded) {
  Series series;
  series.interval = absl::Milliseconds(250);
  series.ticks_per_point = 2;
  series.downsampled = true;
  SeriesPoint p;
  p.start = absl::Milliseconds(500);
  p.length = absl::Milliseconds(500);
  p.read_ios = 7;
  p.write_bytes = 8192;
  p.p99_9_ns = 12345;
  p.system_cpu_seconds = 0.125;
  p.errors = 3;
  series.points.push_back(p);
  v1::Series proto;
  SeriesToProto(series, &proto);
  const Series back = SeriesFromProto(proto);
  EXPECT_EQ(back.interval, absl::Milliseconds(250));
  EXPECT_EQ(back.ticks_per_point, 2);
  EXPECT_TRUE(back.downsampled);
  ASSERT_EQ(back.points.size(), 1u);
  EXPECT_EQ(back.points[0].start, absl::Milliseconds(500));
  EXPECT_EQ(back.points[0].read_ios, 7u);
  EXPECT_EQ(back.points[0].write_bytes, 8192u);
  EXPECT_EQ(back.points[0].p99_9_ns, 12345u);
  EXPECT_DOUBLE_EQ(back.points[0].system_cpu_seconds, 0.125);
  EXPECT_EQ(back.points[0].errors, 3u);

  for (size_t i = 0; i < kMaxSeriesPoints + 50; ++i) proto.add_points();
  EXPECT_EQ(SeriesFromProto(proto).points.size(), kMaxSeriesPoints + 1);
}

TEST(ContextConvertTest, SeriesHistogramsTravelOnlyWhenAsked) {
  WorkloadSnapshot s;
  s.series.interval = absl::Seconds(1);
  SeriesPoint& p = s.series.points.emplace_back();
  p.length = absl::Seconds(1);
  p.read_ios = 30;
  LatencyHistogram h;
  h.RecordN(1000, 10);
  h.RecordN(50'000, 20);
  p.latency_buckets = h.NonEmptyBuckets();
  p.latency_sum_ns = h.Sum();
  v1::Snapshot without;
  SnapshotToProto(s, SnapshotProtoOptions{}, &without);
  ASSERT_EQ(without.series().points_size(), 1);
  EXPECT_FALSE(without.series().points(0).has_histogram());
  v1::Snapshot with;
  SnapshotToProto(s, SnapshotProtoOptions{.series_histograms = true}, &with);
  const v1::LatencyHistogram& sent = with.series().points(0).histogram();
  EXPECT_EQ(sent.count(), 30u);
  EXPECT_EQ(sent.sum_ns(), h.Sum());
  EXPECT_EQ(sent.buckets_size(), 2);
  const Series back = SeriesFromProto(with.series());
  ASSERT_EQ(back.points.size(), 1u);
  EXPECT_EQ(back.points[0].latency_buckets, p.latency_buckets);
  EXPECT_EQ(back.points[0].latency_sum_ns, h.Sum());
  EXPECT_TRUE(SeriesFromProto(without.series()).points[0].latency_buckets.empty());
}

}  // namespace
}  // namespace blkperf
