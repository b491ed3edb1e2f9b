#include "wire/snapshot_convert.h"

#include <cmath>

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

TEST(PreconditionProtoTest, RoundTripsEveryFieldAndIsAbsentWithout) {
  WorkloadSnapshot s;
  v1::Snapshot proto;
  SnapshotToProto(s, {}, &proto);
  EXPECT_FALSE(proto.has_precondition());
  s.precondition = {.passes = 3,
                    .passes_done = 2,
                    .bytes_written = 12345,
                    .bytes_planned = 67890,
                    .time = absl::Milliseconds(1500),
                    .complete = false,
                    .notes = {"a", "b"}};
  SnapshotToProto(s, {}, &proto);
  ASSERT_TRUE(proto.has_precondition());
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  const PreconditionSummary& p = back->precondition;
  EXPECT_EQ(p.passes, 3u);
  EXPECT_EQ(p.passes_done, 2u);
  EXPECT_EQ(p.bytes_written, 12345u);
  EXPECT_EQ(p.bytes_planned, 67890u);
  EXPECT_EQ(p.time, absl::Milliseconds(1500));
  EXPECT_FALSE(p.complete);
  EXPECT_THAT(p.notes, ::testing::ElementsAre("a", "b"));
}

TEST(StartTimesProtoTest, RoundTripsEveryField) {
  StartTimes start;
  start.scheduled_monotonic_ns = 10'800'000'000'123;
  start.first_monotonic_ns = 10'800'000'000'456;
  start.first_realtime_ns = 1'780'000'000'000'000'789;
  start.last_monotonic_ns = 10'800'000'000'999;
  start.measure_start_monotonic_ns = 10'800'500'000'123;
  start.threads_started = 4;
  start.realtime_wait_threads = 3;
  start.realtime_wait_error = "sched_setscheduler(SCHED_FIFO, 1): refused";
  v1::StartReport proto;
  StartTimesToProto(start, &proto);
  EXPECT_EQ(proto.measure_start_monotonic_ns(), start.measure_start_monotonic_ns);
  const StartTimes back = StartTimesFromProto(proto);
  EXPECT_EQ(back.scheduled_monotonic_ns, start.scheduled_monotonic_ns);
  EXPECT_EQ(back.first_monotonic_ns, start.first_monotonic_ns);
  EXPECT_EQ(back.first_realtime_ns, start.first_realtime_ns);
  EXPECT_EQ(back.last_monotonic_ns, start.last_monotonic_ns);
  EXPECT_EQ(back.measure_start_monotonic_ns, start.measure_start_monotonic_ns);
  EXPECT_EQ(back.threads_started, 4);
  EXPECT_EQ(back.realtime_wait_threads, 3);
  EXPECT_EQ(back.realtime_wait_error, start.realtime_wait_error);
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
  t.io_worker_cpu_seconds = 0.75;
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
  EXPECT_DOUBLE_EQ(proto.total().io_worker_cpu_seconds(), 0.75);
  EXPECT_DOUBLE_EQ(proto.threads(0).io_worker_cpu_seconds(), 0.75);

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
  before.io_worker_cpu_seconds = 2.0;
  before.errors.push_back({.errno_value = 5, .name = "EIO", .count = 1});
  before.latency.RecordN(1000, 100);
  ThreadSnapshot now = before;
  now.ios = 150;
  now.bytes = 614400;
  now.enter_calls = 15;
  now.user_cpu_seconds = 1.5;
  now.io_worker_cpu_seconds = 2.25;
  now.inflight = 7;
  now.errors[0].count = 4;
  now.latency.RecordN(2000, 50);

  const ThreadSnapshot d = IntervalDelta(now, before);
  EXPECT_EQ(d.ios, 50u);
  EXPECT_EQ(d.bytes, 204800u);
  EXPECT_EQ(d.enter_calls, 5u);
  EXPECT_DOUBLE_EQ(d.user_cpu_seconds, 0.5);
  EXPECT_DOUBLE_EQ(d.io_worker_cpu_seconds, 0.25);
  EXPECT_EQ(d.inflight, 7u);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].count, 3u);
  EXPECT_EQ(d.latency.Count(), 50u);
  EXPECT_EQ(d.latency.Percentile(50), now.latency.Percentile(100));
}

// Every field of a ThreadSnapshot, histogram included.
void ExpectSameThread(const ThreadSnapshot& a, const ThreadSnapshot& b) {
  EXPECT_EQ(a.thread_index, b.thread_index);
  EXPECT_EQ(a.cpu, b.cpu);
  EXPECT_EQ(a.ios, b.ios);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.read_ios, b.read_ios);
  EXPECT_EQ(a.read_bytes, b.read_bytes);
  EXPECT_EQ(a.write_ios, b.write_ios);
  EXPECT_EQ(a.write_bytes, b.write_bytes);
  EXPECT_EQ(a.sqes, b.sqes);
  EXPECT_EQ(a.enter_calls, b.enter_calls);
  EXPECT_EQ(a.inflight, b.inflight);
  EXPECT_EQ(a.cache_hits, b.cache_hits);
  EXPECT_EQ(a.cache_misses, b.cache_misses);
  EXPECT_EQ(a.user_cpu_seconds, b.user_cpu_seconds);
  EXPECT_EQ(a.system_cpu_seconds, b.system_cpu_seconds);
  EXPECT_EQ(a.io_worker_cpu_seconds, b.io_worker_cpu_seconds);
  ASSERT_EQ(a.errors.size(), b.errors.size());
  for (size_t i = 0; i < a.errors.size(); ++i) {
    EXPECT_EQ(a.errors[i].errno_value, b.errors[i].errno_value);
    EXPECT_EQ(a.errors[i].name, b.errors[i].name);
    EXPECT_EQ(a.errors[i].count, b.errors[i].count);
  }
  EXPECT_TRUE(a.latency == b.latency);
  EXPECT_EQ(a.latency.Percentile(99), b.latency.Percentile(99));
  EXPECT_TRUE(a.intended_latency == b.intended_latency);
  EXPECT_EQ(a.issue_lag.Count(), b.issue_lag.Count());
  EXPECT_TRUE(a.issue_lag == b.issue_lag);
  EXPECT_EQ(a.late_ios, b.late_ios);
  EXPECT_EQ(a.trim_ios, b.trim_ios);
  EXPECT_EQ(a.trim_bytes, b.trim_bytes);
  EXPECT_EQ(a.sync_ios, b.sync_ios);
  EXPECT_EQ(a.batch_turns, b.batch_turns);
}

void ExpectSameDevice(const DeviceCounters& a, const DeviceCounters& b) {
  EXPECT_EQ(a.available, b.available);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.merges, b.merges);
  EXPECT_EQ(a.sectors, b.sectors);
  EXPECT_EQ(a.requests_per_sqe, b.requests_per_sqe);
}

ThreadSnapshot Counters(int index, uint64_t ios, uint64_t latency_ns) {
  ThreadSnapshot t;
  t.thread_index = index;
  t.cpu = index + 2;
  t.ios = ios;
  t.bytes = ios * 131072;
  t.read_ios = ios - ios / 4;
  t.read_bytes = t.read_ios * 131072;
  t.write_ios = ios / 4;
  t.write_bytes = t.write_ios * 131072;
  t.sqes = ios * 4;
  t.enter_calls = ios / 8;
  t.inflight = 3;
  t.cache_hits = ios - 1;
  t.cache_misses = 1;
  t.user_cpu_seconds = 0.125 * (index + 1);
  t.system_cpu_seconds = 1.0 / 3.0;
  t.io_worker_cpu_seconds = 2.0 / 7.0;
  for (uint64_t i = 0; i < ios; ++i) {
    t.latency.Record(latency_ns + i * 37);
    t.submit_latency.Record(latency_ns / 4 + i * 7);
    t.completion_latency.Record(latency_ns - latency_ns / 4 + i * 30);
    t.intended_latency.Record(2 * latency_ns + i * 41);
    t.issue_lag.Record(latency_ns + i * 4);
  }
  t.late_ios = ios / 10;
  t.trim_ios = ios / 5;
  t.trim_bytes = t.trim_ios * 4096;
  t.sync_ios = ios / 7;
  return t;
}

// engine -> proto -> engine: what the client does to print a remote result.
TEST(SnapshotProtoTest, RoundTripsExactly) {
  WorkloadSnapshot s;
  s.state = WorkloadState::kFinished;
  s.taken = absl::FromUnixNanos(1700000000123456789);
  s.elapsed = absl::Nanoseconds(4000000123);
  s.threads.push_back(Counters(0, 3000, 20000));
  s.threads.push_back(Counters(1, 1000, 90000));
  s.threads[1].errors.push_back({.errno_value = 5, .name = "EIO", .count = 2});
  s.threads[1].errors.push_back(
      {.errno_value = kVerifyMismatchErrno, .name = "verify mismatch",
       .count = 1});
  s.total.Merge(s.threads[0]);
  s.total.Merge(s.threads[1]);
  s.ring.setup_flags = {"SINGLE_ISSUER", "DEFER_TASKRUN"};
  s.ring.registered_ring_fd = true;
  s.ring.fixed_buffers = true;
  s.ring.registered_files = true;
  s.ring.huge_pages = true;
  s.ring.sq_entries = 4096;
  s.ring.cq_entries = 8192;
  s.ring.pieces_per_io = 32;
  s.ring.buffer_layout = "one_region";
  s.ring.io_mode = "fixed";
  s.ring.wait_bound = "enter_timeout";
  s.ring.clock = "tsc";
  s.notes = {"polled: auto fell back to interrupts", "second note"};
  s.has_error = true;
  s.error = {.errno_value = 5,
             .target = "/dev/loop0",
             .offset = 1 << 20,
             .message = "EIO (Input/output error) at /dev/loop0 offset 1048576"};
  s.split_strategy = "limits";
  s.device = {.available = true,
              .requests = 16000,
              .merges = 12,
              .sectors = 1024000,
              .requests_per_sqe = 1.0};
  // Two phases that add up to the total, as the engine's do; the later one
  // from a subtraction, with the inexact min/max that leaves.
  ThreadSnapshot first = Counters(-1, 1500, 20000);
  ThreadSnapshot second = s.total;
  second.Subtract(first);
  first.inflight = 0;
  PhaseSnapshot p0{.index = 0,
                   .strategy = "none",
                   .start = absl::ZeroDuration(),
                   .end = absl::Milliseconds(1500),
                   .elapsed = absl::Milliseconds(1500),
                   .total = first,
                   .device = {.available = true,
                              .requests = 12000,
                              .merges = 2,
                              .sectors = 384000,
                              .requests_per_sqe = 2.0}};
  PhaseSnapshot p1{.index = 1,
                   .strategy = "limits",
                   .start = absl::Milliseconds(1500),
                   .end = absl::Nanoseconds(4000000123),
                   .elapsed = absl::Nanoseconds(2500000123),
                   .total = second,
                   .device = {.available = true,
                              .requests = 4000,
                              .merges = 10,
                              .sectors = 640000,
                              .requests_per_sqe = 1.0}};
  s.phases = {p0, p1};
  s.ab.push_back({.strategy = "none",
                  .slices = 3,
                  .median_iops = 1000.5,
                  .median_bytes_per_second = 1000.5 * 131072,
                  .ratio_to_first = 1.0});
  s.ab.push_back({.strategy = "limits",
                  .slices = 2,
                  .median_iops = 1234.25,
                  .median_bytes_per_second = 1234.25 * 131072,
                  .ratio_to_first = 1234.25 / 1000.5,
                  .note = "the median rests on 2 full slices",
                  .paired_ratio = 1.21,
                  .paired_ratio_ci_low = 1.1,
                  .paired_ratio_ci_high = 1.3,
                  .pairs = 2,
                  .verdict = "faster"});
  s.error_sites = {{.errno_value = 5, .target = "/dev/loop0", .offset = 1 << 20},
                   {.errno_value = 110, .target = "/dev/loop0", .offset = 8192}};

  v1::Snapshot proto;
  SnapshotToProto(s, {.thread_histograms = true, .phase_histograms = true},
                  &proto);
  EXPECT_EQ(proto.split_strategy(), "limits");
  ASSERT_EQ(proto.phases_size(), 2);
  EXPECT_EQ(proto.phases(1).strategy(), "limits");
  EXPECT_DOUBLE_EQ(proto.phases(0).pieces_per_io(), 4.0);
  EXPECT_DOUBLE_EQ(proto.phases(0).total().iops(), 1000.0);
  EXPECT_EQ(proto.phases(0).device().requests(), 12000u);
  EXPECT_EQ(proto.ab_size(), 2);
  EXPECT_EQ(proto.total().io_worker_cpu_seconds(),
            s.total.io_worker_cpu_seconds);

  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  back->state = StateFromProto(StateToProto(s.state));
  EXPECT_EQ(back->state, s.state);
  EXPECT_EQ(back->taken, s.taken);
  EXPECT_EQ(back->elapsed, s.elapsed);
  ExpectSameThread(back->total, s.total);
  ASSERT_EQ(back->threads.size(), 2u);
  ExpectSameThread(back->threads[0], s.threads[0]);
  ExpectSameThread(back->threads[1], s.threads[1]);
  EXPECT_EQ(back->ring.setup_flags, s.ring.setup_flags);
  EXPECT_EQ(back->ring.registered_ring_fd, s.ring.registered_ring_fd);
  EXPECT_EQ(back->ring.sq_entries, 4096u);
  EXPECT_EQ(back->ring.cq_entries, 8192u);
  EXPECT_EQ(back->ring.pieces_per_io, 32u);
  EXPECT_EQ(back->ring.fixed_buffers, s.ring.fixed_buffers);
  EXPECT_EQ(back->ring.registered_files, s.ring.registered_files);
  EXPECT_EQ(back->ring.polled, s.ring.polled);
  EXPECT_EQ(back->ring.sqpoll, s.ring.sqpoll);
  EXPECT_EQ(back->ring.huge_pages, s.ring.huge_pages);
  EXPECT_EQ(back->ring.buffer_layout, "one_region");
  EXPECT_EQ(back->ring.io_mode, "fixed");
  EXPECT_EQ(back->ring.wait_bound, "enter_timeout");
  EXPECT_EQ(back->ring.clock, "tsc");
  EXPECT_EQ(back->notes, s.notes);
  EXPECT_TRUE(back->has_error);
  EXPECT_EQ(back->error.errno_value, s.error.errno_value);
  EXPECT_EQ(back->error.target, s.error.target);
  EXPECT_EQ(back->error.offset, s.error.offset);
  EXPECT_EQ(back->error.message, s.error.message);
  EXPECT_EQ(back->split_strategy, s.split_strategy);
  ASSERT_EQ(back->error_sites.size(), 2u);
  EXPECT_EQ(back->error_sites[1].errno_value, 110);
  EXPECT_EQ(back->error_sites[1].target, "/dev/loop0");
  EXPECT_EQ(back->error_sites[1].offset, 8192u);
  ASSERT_EQ(back->ab.size(), 2u);
  EXPECT_EQ(back->ab[1].note, s.ab[1].note);
  EXPECT_EQ(back->total.submit_latency.Sum(), s.total.submit_latency.Sum());
  EXPECT_EQ(back->total.completion_latency.Count(),
            s.total.completion_latency.Count());
  EXPECT_EQ(proto.total().submit_latency().count(),
            s.total.submit_latency.Count());
  ExpectSameDevice(back->device, s.device);
  ASSERT_EQ(back->phases.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const PhaseSnapshot& a = back->phases[i];
    const PhaseSnapshot& b = s.phases[i];
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.strategy, b.strategy);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.end, b.end);
    EXPECT_EQ(a.elapsed, b.elapsed);
    ExpectSameThread(a.total, b.total);
    ExpectSameDevice(a.device, b.device);
    EXPECT_EQ(a.PiecesPerIo(), b.PiecesPerIo());
  }
  // The phases still add up to the total after the trip.
  ThreadSnapshot sum = back->phases[0].total;
  sum.Merge(back->phases[1].total);
  EXPECT_EQ(sum.ios, back->total.ios);
  EXPECT_EQ(sum.bytes, back->total.bytes);
  EXPECT_EQ(sum.latency.Count(), back->total.latency.Count());
  ASSERT_EQ(back->ab.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back->ab[i].strategy, s.ab[i].strategy);
    EXPECT_EQ(back->ab[i].slices, s.ab[i].slices);
    EXPECT_EQ(back->ab[i].median_iops, s.ab[i].median_iops);
    EXPECT_EQ(back->ab[i].median_bytes_per_second,
              s.ab[i].median_bytes_per_second);
    EXPECT_EQ(back->ab[i].ratio_to_first, s.ab[i].ratio_to_first);
    EXPECT_EQ(back->ab[i].paired_ratio, s.ab[i].paired_ratio);
    EXPECT_EQ(back->ab[i].paired_ratio_ci_low, s.ab[i].paired_ratio_ci_low);
    EXPECT_EQ(back->ab[i].paired_ratio_ci_high, s.ab[i].paired_ratio_ci_high);
    EXPECT_EQ(back->ab[i].pairs, s.ab[i].pairs);
    EXPECT_EQ(back->ab[i].verdict, s.ab[i].verdict);
  }
}

TEST(SnapshotProtoTest, GroupsAndTheSloSearchRoundTrip) {
  WorkloadSnapshot s;
  s.elapsed = absl::Seconds(2);
  s.threads = {Counters(0, 100, 5000), Counters(1, 300, 9000)};
  s.total.Merge(s.threads[0]);
  s.total.Merge(s.threads[1]);
  s.groups.push_back({.name = "reads", .threads = {0}, .total = s.threads[0]});
  s.groups.push_back({.name = "writes", .threads = {1}, .total = s.threads[1]});
  s.slo.enabled = true;
  s.slo.target = {.percentile = 99.9, .bound = absl::Microseconds(250),
                  .inclusive = true};
  s.slo.precision = 0.02;
  s.slo.step = absl::Seconds(3);
  s.slo.settle = absl::Milliseconds(100);
  s.slo.steps.push_back({.asked_iops = 0, .iops = 10000, .ios = 30000,
                         .p50_ns = 80000, .p99_ns = 200000,
                         .p99_9_ns = 400000, .value_ns = 400000,
                         .met = false, .elapsed = absl::Seconds(3),
                         .interval_known = true, .tail_ios = 30,
                         .value_low_ns = 350000, .value_high_ns = 450000,
                         .value_bounded_above = true,
                         .verdict = SloVerdict::kMissed});
  s.slo.steps.push_back({.asked_iops = 5000, .iops = 4999.5, .ios = 15000,
                         .late_ios = 7, .p50_ns = 60000, .p99_ns = 100000,
                         .p99_9_ns = 240000, .value_ns = 240000, .met = true,
                         .elapsed = absl::Seconds(3), .interval_known = true,
                         .tail_ios = 15, .value_low_ns = 200000,
                         .value_high_ns = 245000, .value_bounded_above = true,
                         .verdict = SloVerdict::kMet});
  s.slo.steps.push_back({.asked_iops = 7500, .iops = 7400, .ios = 22000,
                         .value_ns = 250000, .elapsed = absl::Seconds(3),
                         .interval_known = true, .tail_ios = 22,
                         .value_low_ns = 230000, .value_high_ns = 300000,
                         .value_bounded_above = true,
                         .verdict = SloVerdict::kUndecided, .retest = true});
  s.slo.best_value_low_ns = 200000;
  s.slo.best_value_high_ns = 245000;
  s.slo.warning = "the re-test at 7500 disagreed";
  s.slo.done = true;
  s.slo.max_iops = 10000;
  s.slo.best_iops = 5000;
  s.slo.best_achieved_iops = 4999.5;
  s.slo.failed_iops = 10000;
  s.slo.knee_iops = 0;
  s.slo.note = "a note";
  v1::Snapshot proto;
  SnapshotToProto(s, {}, &proto);
  ASSERT_EQ(proto.groups_size(), 2);
  EXPECT_EQ(proto.groups(1).name(), "writes");
  EXPECT_EQ(proto.groups(1).total().thread_index(), -1);
  EXPECT_TRUE(proto.groups(1).total().has_intended_histogram());
  EXPECT_EQ(proto.groups(1).total().late_ios(), 30u);
  EXPECT_EQ(proto.slo().objective(), "p99.9<=250us");
  // The verdicts and intervals are the API's too.
  EXPECT_EQ(proto.slo().steps(2).verdict(), "undecided");
  EXPECT_EQ(proto.slo().steps(1).tail_ios(), 15u);
  EXPECT_EQ(proto.slo().steps(1).value_high_ns(), 245000u);
  EXPECT_EQ(proto.slo().best_value_low_ns(), 200000u);
  EXPECT_EQ(proto.slo().warning(), "the re-test at 7500 disagreed");
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->groups.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back->groups[i].name, s.groups[i].name);
    EXPECT_EQ(back->groups[i].threads, s.groups[i].threads);
    ThreadSnapshot expected = s.groups[i].total;
    expected.thread_index = -1;
    expected.cpu = -1;
    ExpectSameThread(back->groups[i].total, expected);
  }
  EXPECT_EQ(back->slo, s.slo);
  // Per-thread intended histograms travel only when asked, like the others.
  EXPECT_FALSE(proto.threads(0).has_intended_histogram());
  EXPECT_EQ(proto.threads(0).intended_latency().count(), 100u);
}

// Batch turns' parts travel as batch_wait_latency and after_wait_latency
// (and their histograms), submit_latency and completion_latency empty; read
// back into the same histograms with batch_turns set.
TEST(SnapshotProtoTest, BatchTurnsPartsHaveTheirOwnNames) {
  WorkloadSnapshot s;
  s.elapsed = absl::Seconds(1);
  s.threads = {Counters(0, 100, 5000)};
  s.threads[0].batch_turns = true;
  s.total = s.threads[0];
  v1::Snapshot proto;
  SnapshotToProto(s, {.thread_histograms = true}, &proto);
  const v1::ThreadStats& total = proto.total();
  EXPECT_TRUE(total.batch_turns());
  EXPECT_EQ(total.batch_wait_latency().count(), 100u);
  EXPECT_EQ(total.after_wait_latency().count(), 100u);
  EXPECT_EQ(total.submit_latency().count(), 0u);
  EXPECT_EQ(total.completion_latency().count(), 0u);
  EXPECT_TRUE(total.has_batch_wait_histogram());
  EXPECT_FALSE(total.has_submit_histogram());
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->total.batch_turns);
  EXPECT_TRUE(back->total.submit_latency == s.total.submit_latency);
  EXPECT_TRUE(back->total.completion_latency == s.total.completion_latency);
  EXPECT_TRUE(back->threads[0].batch_turns);
  // per_io turns keep fio's names.
  s.total.batch_turns = false;
  SnapshotToProto(s, {}, &proto);
  EXPECT_FALSE(proto.total().batch_turns());
  EXPECT_EQ(proto.total().submit_latency().count(), 100u);
  EXPECT_EQ(proto.total().batch_wait_latency().count(), 0u);
}

// A step from a daemon before verdicts takes its verdict from `met`; a
// verdict that is none of the three is refused naming the field.
TEST(SnapshotProtoTest, SloStepVerdictFromMetOrRefused) {
  v1::Snapshot proto;
  proto.mutable_slo()->set_objective("p99<1ms");
  proto.mutable_slo()->add_steps()->set_met(true);
  proto.mutable_slo()->add_steps()->set_met(false);
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->slo.steps[0].verdict, SloVerdict::kMet);
  EXPECT_EQ(back->slo.steps[1].verdict, SloVerdict::kMissed);
  proto.mutable_slo()->mutable_steps(1)->set_verdict("maybe");
  back = SnapshotFromProto(proto);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(std::string(back.status().message()),
              HasSubstr("snapshot.slo.steps[1].verdict"));
}

TEST(SnapshotProtoTest, HistogramsOnlyWhenAsked) {
  WorkloadSnapshot s;
  s.threads.push_back(Counters(0, 100, 5000));
  s.total = s.threads[0];
  PhaseSnapshot phase;
  phase.strategy = "none";
  phase.elapsed = absl::Seconds(1);
  phase.total = s.total;
  s.phases.push_back(phase);
  v1::Snapshot proto;
  SnapshotToProto(s, {}, &proto);
  EXPECT_TRUE(proto.total().has_histogram());
  EXPECT_FALSE(proto.threads(0).has_histogram());
  EXPECT_FALSE(proto.phases(0).total().has_histogram());
  // Percentiles travel anyway.
  EXPECT_EQ(proto.phases(0).total().latency().p99_ns(),
            s.total.latency.Percentile(99));
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->phases[0].total.ios, 100u);
  EXPECT_EQ(back->phases[0].total.latency.Count(), 0u);
  SnapshotToProto(s, {.phase_histograms = true}, &proto);
  EXPECT_TRUE(proto.phases(0).total().has_histogram());
  EXPECT_FALSE(proto.threads(0).has_histogram());
}

TEST(SnapshotProtoTest, BadHistogramNamesTheField) {
  WorkloadSnapshot s;
  s.total = Counters(-1, 10, 1000);
  s.phases.push_back({.strategy = "none", .total = s.total});
  v1::Snapshot proto;
  SnapshotToProto(s, {.phase_histograms = true}, &proto);
  proto.mutable_phases(0)->mutable_total()->mutable_histogram()->set_count(7);
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(back.status().message()),
              HasSubstr("snapshot.phases[0].total.histogram.count"));
}

TEST(SnapshotProtoTest, BufferPlacementRoundTripsOnlyOnceThere) {
  WorkloadSnapshot s;
  s.total = Counters(-1, 10, 1000);
  v1::Snapshot running;
  SnapshotToProto(s, {}, &running);
  EXPECT_FALSE(running.has_buffer_placement());  // not read while running
  s.buffer_placement = {.read = true, .pages_present = 8192,
                        .adjacent_share = 0.25};
  v1::Snapshot done;
  SnapshotToProto(s, {}, &done);
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(done);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->buffer_placement.read);
  EXPECT_EQ(back->buffer_placement.pages_present, 8192u);
  EXPECT_EQ(back->buffer_placement.adjacent_share, 0.25);
  s.buffer_placement = {.unreadable = "hidden"};
  v1::Snapshot hidden;
  SnapshotToProto(s, {}, &hidden);
  back = SnapshotFromProto(hidden);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->buffer_placement.read);
  EXPECT_EQ(back->buffer_placement.unreadable, "hidden");
}

TEST(SnapshotProtoTest, BufferPlacementShareOutsideZeroToOneNamesTheField) {
  for (const double bad : {-0.1, 1.5, std::nan("")}) {
    v1::Snapshot proto;
    proto.mutable_buffer_placement()->set_read(true);
    proto.mutable_buffer_placement()->set_adjacent_share(bad);
    absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(back.status().message()),
                HasSubstr("snapshot.buffer_placement.adjacent_share"));
  }
}

TEST(SnapshotProtoTest, SteadyStateRoundTrips) {
  WorkloadSnapshot s;
  s.steady_state.enabled = true;
  s.steady_state.criterion = "bw_slope:2%";
  s.steady_state.mode = "gate";
  s.steady_state.window = absl::Seconds(30);
  s.steady_state.check = absl::Seconds(2);
  s.steady_state.checks = 17;
  s.steady_state.attained = true;
  s.steady_state.attained_at = absl::Milliseconds(34500);
  s.steady_state.figures = {.samples = 30, .mean = 1e9, .min = 0.9e9,
                            .max = 1.1e9, .deviation = 1e8, .slope = -3e6,
                            .value = 0.3, .limit = 2, .met = true};
  s.steady_state.left = true;
  s.steady_state.left_at = absl::Seconds(50);
  s.steady_state.left_figures = {.samples = 30, .mean = 5e8, .value = 7,
                                 .limit = 2};
  s.steady_state.warning = "left steady state at t=50s: bw slope";
  v1::Snapshot proto;
  SnapshotToProto(s, {}, &proto);
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  const SteadyStateResult& r = back->steady_state;
  EXPECT_TRUE(r.enabled);
  EXPECT_EQ(r.criterion, "bw_slope:2%");
  EXPECT_EQ(r.mode, "gate");
  EXPECT_EQ(r.window, absl::Seconds(30));
  EXPECT_EQ(r.check, absl::Seconds(2));
  EXPECT_EQ(r.checks, 17);
  EXPECT_TRUE(r.attained);
  EXPECT_EQ(r.attained_at, absl::Milliseconds(34500));
  EXPECT_EQ(r.figures.samples, 30);
  EXPECT_DOUBLE_EQ(r.figures.slope, -3e6);
  EXPECT_DOUBLE_EQ(r.figures.max, 1.1e9);
  EXPECT_TRUE(r.figures.met);
  EXPECT_TRUE(r.left);
  EXPECT_EQ(r.left_at, absl::Seconds(50));
  EXPECT_DOUBLE_EQ(r.left_figures.value, 7);
  EXPECT_EQ(r.warning, s.steady_state.warning);
}

TEST(StateProtoTest, RoundTrips) {
  for (WorkloadState state :
       {WorkloadState::kRamping, WorkloadState::kRunning,
        WorkloadState::kStopping, WorkloadState::kFinished,
        WorkloadState::kStopped, WorkloadState::kFailed,
        WorkloadState::kFinishedWithErrors}) {
    EXPECT_EQ(StateFromProto(StateToProto(state)), state);
  }
}

TEST(TargetInfoProtoTest, RoundTripsQueueLimits) {
  TargetInfo info;
  info.path = "/dev/disk/by-id/x";
  info.resolved_path = "/dev/nvme0n1p2";
  info.path_is_symlink = true;
  info.kind = TargetKind::kBlockDevice;
  info.size_bytes = 1ull << 40;
  info.logical_block_size = 512;
  info.physical_block_size = 4096;
  info.device_name = "nvme0n1";
  info.partition_name = "nvme0n1p2";
  info.stat_path = "/sys/block/nvme0n1/stat";
  info.limits = {.logical_block_size = 512,
                 .physical_block_size = 4096,
                 .max_sectors_kb = 128,
                 .max_hw_sectors_kb = 2048,
                 .max_segments = 127,
                 .max_segment_size = 4294967295u,
                 .chunk_sectors = 256,
                 .optimal_io_size = 131072,
                 .nr_requests = 1023,
                 .virt_boundary_mask = 4095,
                 .discard_max_bytes = 1 << 30,
                 .io_poll = true,
                 .rotational = false,
                 .scheduler = "none",
                 .nomerges = 2,
                 .rq_affinity = 1,
                 .write_cache = "write back",
                 .poll_queues = 4};
  info.mounted = true;
  v1::TargetInfo proto;
  TargetInfoToProto(info, &proto);
  EXPECT_EQ(proto.limits().virt_boundary_mask(), 4095u);
  EXPECT_EQ(proto.limits().max_hw_sectors_kb(), 2048u);
  EXPECT_EQ(proto.limits().optimal_io_size(), 131072u);
  EXPECT_EQ(proto.limits().poll_queues(), 4);
  const TargetInfo back = TargetInfoFromProto(proto);
  EXPECT_EQ(back.path, info.path);
  EXPECT_EQ(back.resolved_path, info.resolved_path);
  EXPECT_TRUE(back.path_is_symlink);
  EXPECT_EQ(back.kind, info.kind);
  EXPECT_EQ(back.size_bytes, info.size_bytes);
  EXPECT_EQ(back.device_name, info.device_name);
  EXPECT_EQ(back.partition_name, info.partition_name);
  EXPECT_EQ(back.stat_path, info.stat_path);
  EXPECT_TRUE(back.mounted);
  const QueueLimits& a = back.limits;
  const QueueLimits& b = info.limits;
  EXPECT_EQ(a.logical_block_size, b.logical_block_size);
  EXPECT_EQ(a.physical_block_size, b.physical_block_size);
  EXPECT_EQ(a.max_sectors_kb, b.max_sectors_kb);
  EXPECT_EQ(a.max_hw_sectors_kb, b.max_hw_sectors_kb);
  EXPECT_EQ(a.max_segments, b.max_segments);
  EXPECT_EQ(a.max_segment_size, b.max_segment_size);
  EXPECT_EQ(a.chunk_sectors, b.chunk_sectors);
  EXPECT_EQ(a.optimal_io_size, b.optimal_io_size);
  EXPECT_EQ(a.nr_requests, b.nr_requests);
  EXPECT_EQ(a.virt_boundary_mask, b.virt_boundary_mask);
  EXPECT_EQ(a.discard_max_bytes, b.discard_max_bytes);
  EXPECT_EQ(a.io_poll, b.io_poll);
  EXPECT_EQ(a.rotational, b.rotational);
  EXPECT_EQ(a.scheduler, b.scheduler);
  EXPECT_EQ(a.nomerges, b.nomerges);
  EXPECT_EQ(a.rq_affinity, b.rq_affinity);
  EXPECT_EQ(a.write_cache, b.write_cache);
  EXPECT_EQ(a.poll_queues, b.poll_queues);
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

TEST(SnapshotProtoTest, VerifyResultRoundTrips) {
  WorkloadSnapshot s;
  s.verify.enabled = true;
  s.verify.checked = 100;
  s.verify.unwritten = 3;
  s.verify.mismatches = 2;
  s.verify.by_kind = {{"stale", 1}, {"torn", 1}};
  VerifyMismatchRecord r;
  r.target = "/dev/loop3";
  r.offset = 8192;
  r.bad_byte_offset = 8232;
  r.kind = "stale";
  r.expected_generation_lo = 4;
  r.expected_generation_hi = 4;
  r.found_generation = 3;
  r.found_crc = 0xdeadbeef;
  r.message = "verify mismatch at /dev/loop3 offset 8192 (stale)";
  s.verify.records.push_back(r);
  v1::Snapshot proto;
  SnapshotToProto(s, {}, &proto);
  ASSERT_TRUE(proto.has_verify());
  EXPECT_EQ(proto.verify().mismatches_by_kind().at("torn"), 1u);
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->verify.enabled);
  EXPECT_EQ(back->verify.checked, 100u);
  EXPECT_EQ(back->verify.unwritten, 3u);
  EXPECT_EQ(back->verify.mismatches, 2u);
  EXPECT_EQ(back->verify.by_kind, s.verify.by_kind);
  ASSERT_EQ(back->verify.records.size(), 1u);
  EXPECT_EQ(back->verify.records[0].offset, 8192u);
  EXPECT_EQ(back->verify.records[0].bad_byte_offset, 8232u);
  EXPECT_EQ(back->verify.records[0].found_generation, 3u);
  EXPECT_EQ(back->verify.records[0].found_crc, 0xdeadbeefu);
  EXPECT_EQ(back->verify.records[0].message, r.message);
  // Without verify there is no verify result.
  v1::Snapshot plain;
  SnapshotToProto(WorkloadSnapshot{}, {}, &plain);
  EXPECT_FALSE(plain.has_verify());
}

TEST(SnapshotProtoTest, OtherCpuShareIsSetOnlyWhereKnown) {
  WorkloadSnapshot s;
  s.state = WorkloadState::kFinished;
  v1::Snapshot unknown;
  SnapshotToProto(s, {}, &unknown);
  EXPECT_FALSE(unknown.has_other_cpu_share());
  absl::StatusOr<WorkloadSnapshot> back = SnapshotFromProto(unknown);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(std::isnan(back->other_cpu_share));
  s.other_cpu_share = 0.375;
  v1::Snapshot known;
  SnapshotToProto(s, {}, &known);
  ASSERT_TRUE(known.has_other_cpu_share());
  EXPECT_DOUBLE_EQ(known.other_cpu_share(), 0.375);
  back = SnapshotFromProto(known);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_DOUBLE_EQ(back->other_cpu_share, 0.375);
}

}  // namespace
}  // namespace blkperf
