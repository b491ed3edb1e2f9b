#include "daemon/metrics/workload_collector.h"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "daemon/metrics/latency_buckets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/snapshot.h"
#include "prometheus/text_serializer.h"

namespace blkperf {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

ThreadSnapshot Thread(int index, int cpu, uint64_t reads, uint64_t writes) {
  ThreadSnapshot t;
  t.thread_index = index;
  t.cpu = cpu;
  t.read_ios = reads;
  t.read_bytes = reads * 4096;
  t.write_ios = writes;
  t.write_bytes = writes * 4096;
  t.ios = reads + writes;
  t.bytes = t.ios * 4096;
  t.sqes = 2 * t.ios;
  t.enter_calls = t.ios / 8;
  t.inflight = 16;
  t.cache_hits = t.ios - 5;
  t.cache_misses = 5;
  t.user_cpu_seconds = 0.25;
  t.system_cpu_seconds = 1.5;
  t.io_worker_cpu_seconds = 0.125;
  for (uint64_t i = 0; i < t.ios; ++i)
    t.latency.Record(20'000 + 1000 * (i % 100));
  return t;
}

WorkloadMetricsView View(std::string id, std::vector<ThreadSnapshot> threads) {
  WorkloadMetricsView v;
  v.id = std::move(id);
  v.spec_summary =
      "randrw read_percent=50 bs=4096 qd=16 threads=2 targets=/dev/zram0";
  v.split_strategy = "none";
  v.targets = {"/dev/zram0"};
  v.op = "randrw";
  v.snapshot.state = WorkloadState::kRunning;
  v.snapshot.elapsed = absl::Seconds(2);
  for (const ThreadSnapshot& t : threads) v.snapshot.total.Merge(t);
  v.snapshot.threads = std::move(threads);
  return v;
}

std::string Serialize(const std::vector<prometheus::MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

// Sample lines ("name{labels} value"), comments dropped.
std::vector<std::string> Samples(const std::string& text) {
  std::vector<std::string> samples;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!line.empty() && line[0] != '#') samples.emplace_back(line);
  }
  return samples;
}

std::string CollectText(std::vector<WorkloadMetricsView> views,
                        absl::Duration ttl = absl::Minutes(5)) {
  WorkloadCollector collector([views] { return views; }, {.finished_ttl = ttl});
  return Serialize(collector.CollectAt(kNow));
}

const prometheus::MetricFamily* Find(
    const std::vector<prometheus::MetricFamily>& families,
    absl::string_view name) {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(WorkloadCollectorTest, CountersPerCpuAndOpHaveExactValues) {
  const std::vector<std::string> s = Samples(
      CollectText({View("w1", {Thread(0, 2, 100, 60), Thread(1, 3, 40, 0)})}));
  const std::string labels2 = R"(workload="w1",target="/dev/zram0",cpu="2")";
  const std::string labels3 = R"(workload="w1",target="/dev/zram0",cpu="3")";
  EXPECT_THAT(s,
              Contains("blkperf_ios_total{" + labels2 + R"(,op="read"} 100)"));
  EXPECT_THAT(s,
              Contains("blkperf_ios_total{" + labels2 + R"(,op="write"} 60)"));
  EXPECT_THAT(s,
              Contains("blkperf_ios_total{" + labels3 + R"(,op="read"} 40)"));
  // randrw exports both directions even before a write completed.
  EXPECT_THAT(s,
              Contains("blkperf_ios_total{" + labels3 + R"(,op="write"} 0)"));
  EXPECT_THAT(
      s, Contains("blkperf_bytes_total{" + labels2 + R"(,op="read"} 409600)"));
  EXPECT_THAT(s, Contains("blkperf_ios_in_flight{" + labels2 + "} 16"));
  EXPECT_THAT(
      s, Contains("blkperf_io_uring_enter_calls_total{" + labels2 + "} 20"));
  EXPECT_THAT(s, Contains("blkperf_ios_per_syscall{" + labels2 + "} 8"));
  EXPECT_THAT(s, Contains("blkperf_sqes_total{" + labels2 + "} 320"));
  EXPECT_THAT(
      s, Contains("blkperf_request_cache_hits_total{" + labels2 + "} 155"));
  EXPECT_THAT(
      s, Contains("blkperf_request_cache_misses_total{" + labels2 + "} 5"));
  EXPECT_THAT(s, Contains("blkperf_submitter_cpu_seconds_total{" + labels2 +
                          R"(,mode="system"} 1.5)"));
  EXPECT_THAT(s, Contains("blkperf_submitter_cpu_seconds_total{" + labels2 +
                          R"(,mode="io_worker"} 0.125)"));
  EXPECT_THAT(s,
              Contains(R"(blkperf_workload_elapsed_seconds{workload="w1"} 2)"));
}

TEST(WorkloadCollectorTest, ReadOnlyWorkloadHasNoWriteSeries) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  v.op = "randread";
  const std::string text = CollectText({v});
  EXPECT_THAT(text, HasSubstr(R"(op="read")"));
  EXPECT_THAT(text, Not(HasSubstr(R"(op="write")")));
}

TEST(WorkloadCollectorTest, ThreadsOnOneCpuAreSummedIntoOneSeries) {
  const std::vector<std::string> s = Samples(
      CollectText({View("w1", {Thread(0, 5, 10, 0), Thread(1, 5, 7, 0)})}));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_ios_total{workload="w1",target="/dev/zram0",cpu="5",op="read"} 17)"));
  std::set<std::string> unique(s.begin(), s.end());
  EXPECT_EQ(unique.size(), s.size());
}

// The mean depth is what was submitted and not yet completed, averaged
// over the measured time: each I/O counts for its latency, so 4000 I/Os of
// 1 ms and 1000 of 4 ms in 2 s kept (4 + 4) / 2 = 4 I/Os in flight, whatever
// the residual after the last reap (`inflight`, 16 here) was.
TEST(WorkloadCollectorTest, MeanInflightIsLittlesLawOverTheMeasuredTime) {
  ThreadSnapshot a = Thread(0, 5, 0, 0);
  ThreadSnapshot b = Thread(1, 5, 0, 0);
  a.read_ios = a.ios = 4000;
  a.latency.RecordN(1'000'000, 4000);
  b.read_ios = b.ios = 1000;
  b.latency.RecordN(4'000'000, 1000);
  WorkloadMetricsView v = View("w1", {a, b});
  v.op = "randread";
  ASSERT_EQ(v.snapshot.elapsed, absl::Seconds(2));
  const std::vector<std::string> s = Samples(CollectText({v}));
  const std::string labels = R"(workload="w1",target="/dev/zram0",cpu="5")";
  EXPECT_THAT(s, Contains("blkperf_inflight_ios_mean{" + labels + "} 4"));
  EXPECT_THAT(s, Contains("blkperf_ios_in_flight{" + labels + "} 32"));
}

TEST(WorkloadCollectorTest, ErrorsByErrnoWithPseudoErrnosNamed) {
  ThreadSnapshot t = Thread(0, 1, 10, 0);
  t.errors = {{5, "EIO", 3},
              {kShortTransferErrno, "short transfer", 2},
              {kVerifyMismatchErrno, "verify mismatch", 1}};
  const std::vector<std::string> s = Samples(CollectText({View("w1", {t})}));
  const std::string l = R"(workload="w1",target="/dev/zram0",cpu="1")";
  EXPECT_THAT(s,
              Contains("blkperf_io_errors_total{" + l + R"(,errno="EIO"} 3)"));
  EXPECT_THAT(s, Contains("blkperf_io_errors_total{" + l +
                          R"(,errno="short_transfer"} 2)"));
  EXPECT_THAT(s, Contains("blkperf_io_errors_total{" + l +
                          R"(,errno="verify_mismatch"} 1)"));
}

TEST(WorkloadCollectorTest, ErrorFreeWorkloadExportsItsErrorCountersAtZero) {
  // Without these, a counter would first appear with its full value and
  // rate()/increase() would never count a workload's first errors.
  WorkloadMetricsView v = View("w1", {Thread(0, 1, 10, 0)});
  std::vector<std::string> s = Samples(CollectText({v}));
  const std::string l = R"(workload="w1",target="/dev/zram0",cpu="1")";
  EXPECT_THAT(s,
              Contains("blkperf_io_errors_total{" + l + R"(,errno="EIO"} 0)"));
  EXPECT_THAT(s, Contains("blkperf_io_errors_total{" + l +
                          R"(,errno="short_transfer"} 0)"));
  EXPECT_THAT(s, Not(Contains(HasSubstr("verify_mismatch"))));
  EXPECT_THAT(s, Not(Contains(HasSubstr("blkperf_sync_ios_total"))));

  v.verify = true;
  v.syncs = true;
  v.snapshot.threads[0].errors = {{28, "ENOSPC", 4}};
  s = Samples(CollectText({v}));
  EXPECT_THAT(s, Contains("blkperf_io_errors_total{" + l +
                          R"(,errno="verify_mismatch"} 0)"));
  EXPECT_THAT(s, Contains("blkperf_sync_ios_total{" + l + "} 0"));
  // A rarer errno from its first occurrence on, beside the ones at 0.
  EXPECT_THAT(s, Contains("blkperf_io_errors_total{" + l +
                          R"(,errno="ENOSPC"} 4)"));
  EXPECT_THAT(s,
              Contains("blkperf_io_errors_total{" + l + R"(,errno="EIO"} 0)"));
}

TEST(WorkloadCollectorTest, LatencyHistogramIsCumulativeAndMatchesCountAndSum) {
  const WorkloadMetricsView v =
      View("w1", {Thread(0, 0, 300, 0), Thread(1, 1, 200, 0)});
  WorkloadCollector collector([v] { return std::vector{v}; }, {});
  const std::vector<prometheus::MetricFamily> families =
      collector.CollectAt(kNow);
  const prometheus::MetricFamily* latency =
      Find(families, "blkperf_io_latency_seconds");
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ(latency->type, prometheus::MetricType::Histogram);
  ASSERT_EQ(latency->metric.size(), 1u);  // one per workload, not per CPU

  // Parse the serialized form, as Prometheus would see it.
  uint64_t previous = 0;
  double previous_le = 0;
  uint64_t inf = 0, count = 0;
  double sum = -1;
  int buckets = 0;
  for (const std::string& line : Samples(Serialize({*latency}))) {
    const std::vector<std::string> parts = absl::StrSplit(line, ' ');
    ASSERT_EQ(parts.size(), 2u) << line;
    if (absl::StrContains(parts[0], "_bucket{")) {
      const size_t at = parts[0].find("le=\"") + 4;
      const std::string le = parts[0].substr(at, parts[0].size() - at - 2);
      const uint64_t value = std::stoull(parts[1]);
      EXPECT_GE(value, previous) << line;
      previous = value;
      if (le == "+Inf") {
        inf = value;
      } else {
        const double bound = std::stod(le);
        EXPECT_GT(bound, previous_le) << line;
        previous_le = bound;
      }
      ++buckets;
    } else if (absl::StrContains(parts[0], "_count{")) {
      count = std::stoull(parts[1]);
    } else if (absl::StrContains(parts[0], "_sum{")) {
      sum = std::stod(parts[1]);
    }
  }
  EXPECT_EQ(buckets, static_cast<int>(LatencyBucketBoundsNs().size()) + 1);
  EXPECT_EQ(count, 500u);
  EXPECT_EQ(inf, count);
  EXPECT_DOUBLE_EQ(sum,
                   static_cast<double>(v.snapshot.total.latency.Sum()) / 1e9);
  // Latencies are 20..119 µs: nothing below 19.968 µs, all below 124.928 µs.
  const std::string text = Serialize({*latency});
  EXPECT_THAT(text, HasSubstr(R"(le="1.9968e-05"} 0)"));
  EXPECT_THAT(text, HasSubstr(R"(le="0.000124928"} 500)"));
  EXPECT_THAT(text, HasSubstr(R"(le="0.000178176"} 500)"));
}

TEST(WorkloadCollectorTest, InfoAndOneHotState) {
  WorkloadMetricsView v = View("w7", {Thread(0, 0, 1, 0)});
  v.snapshot.state = WorkloadState::kStopping;
  v.split_strategy = "fixed:131072";
  const std::vector<std::string> s = Samples(CollectText({v}));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_workload_info{workload="w7",spec="randrw read_percent=50 bs=4096 qd=16 threads=2 targets=/dev/zram0",split_strategy="fixed:131072",rw="randrw"} 1)"));
  int ones = 0, states = 0;
  for (const std::string& line : s) {
    if (!absl::StartsWith(line, "blkperf_workload_state{")) continue;
    ++states;
    if (absl::EndsWith(line, " 1")) {
      ++ones;
      EXPECT_EQ(line,
                R"(blkperf_workload_state{workload="w7",state="stopping"} 1)");
    }
  }
  EXPECT_EQ(states, 9);  // one per WorkloadState
  EXPECT_EQ(ones, 1);
}

TEST(WorkloadCollectorTest, StrategySeriesSumPhasesPerStrategy) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 1000, 0)});
  v.split_strategy = "fixed:65536";
  auto phase = [](std::string strategy, uint64_t ios, uint64_t sqes,
                  bool device, uint64_t requests) {
    PhaseSnapshot p;
    p.strategy = std::move(strategy);
    p.total.ios = ios;
    p.total.sqes = sqes;
    p.device.available = device;
    p.device.requests = requests;
    return p;
  };
  v.snapshot.phases = {phase("none", 400, 400, true, 1600),
                       phase("fixed:65536", 300, 1200, true, 1200),
                       phase("none", 300, 300, true, 1200)};
  const std::vector<std::string> s = Samples(CollectText({v}));
  EXPECT_THAT(
      s, Contains(R"(blkperf_split_strategy_switches_total{workload="w1"} 2)"));
  EXPECT_THAT(
      s, Contains(
             R"(blkperf_split_ios_total{workload="w1",strategy="none"} 700)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_split_pieces_total{workload="w1",strategy="none"} 700)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_split_pieces_total{workload="w1",strategy="fixed:65536"} 1200)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_split_pieces_per_io{workload="w1",strategy="fixed:65536"} 4)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_device_requests_total{workload="w1",strategy="none"} 2800)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_device_requests_per_sqe{workload="w1",strategy="none"} 4)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_device_requests_per_sqe{workload="w1",strategy="fixed:65536"} 1)"));
}

TEST(WorkloadCollectorTest, LatencyPerStrategyAndPerGroupAreHistograms) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  auto phase = [](std::string strategy, uint64_t latency_ns, uint64_t n) {
    PhaseSnapshot p;
    p.strategy = std::move(strategy);
    p.total.ios = n;
    p.total.latency.RecordN(latency_ns, n);
    return p;
  };
  // none: 5 I/Os at 10 µs then 7 at 1.5 ms; fixed: 3 at 300 µs.
  v.snapshot.phases = {phase("none", 10'000, 5), phase("fixed:4096", 300'000, 3),
                       phase("none", 1'500'000, 7)};
  GroupSnapshot hot{.name = "hot", .threads = {0}};
  hot.total.ios = 4;
  hot.total.latency.RecordN(20'000, 4);
  GroupSnapshot paced{.name = "paced", .threads = {1}};
  paced.total.ios = 2;
  paced.total.latency.RecordN(2'000'000, 2);
  v.snapshot.groups = {hot, paced};
  const std::vector<std::string> s = Samples(CollectText({v}));
  const std::string none = R"(workload="w1",strategy="none")";
  EXPECT_THAT(s, Contains("blkperf_split_io_latency_seconds_count{" + none +
                          "} 12"));
  // Below 1 ms (edge 999.424 µs): the 5 at 10 µs only.
  EXPECT_THAT(s, Contains("blkperf_split_io_latency_seconds_bucket{" + none +
                          R"(,le="0.0009994240000000001"} 5)"));
  EXPECT_THAT(s, Contains("blkperf_split_io_latency_seconds_bucket{" + none +
                          R"(,le="+Inf"} 12)"));
  EXPECT_THAT(s, Contains(R"(blkperf_split_io_latency_seconds_count{workload="w1",strategy="fixed:4096"} 3)"));
  EXPECT_THAT(s, Contains(R"(blkperf_group_ios_total{workload="w1",group="hot"} 4)"));
  EXPECT_THAT(s, Contains(R"(blkperf_group_io_latency_seconds_count{workload="w1",group="paced"} 2)"));
  EXPECT_THAT(s, Contains(R"(blkperf_group_io_latency_seconds_bucket{workload="w1",group="paced",le="0.001998848"} 0)"));
  EXPECT_THAT(s, Contains(R"(blkperf_group_io_latency_seconds_bucket{workload="w1",group="paced",le="0.002228224"} 2)"));
  // Without groups, no group series.
  EXPECT_THAT(Samples(CollectText({View("w2", {Thread(0, 0, 1, 0)})})),
              Not(Contains(HasSubstr("blkperf_group_"))));
}

TEST(WorkloadCollectorTest, OneStrategyRepeatsNoLatencyHistogram) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  PhaseSnapshot phase;
  phase.strategy = "none";
  phase.total = v.snapshot.total;
  v.snapshot.phases = {phase};
  std::vector<std::string> s = Samples(CollectText({v}));
  EXPECT_THAT(s, Contains(R"(blkperf_split_ios_total{workload="w1",strategy="none"} 10)"));
  EXPECT_THAT(s, Not(Contains(HasSubstr("blkperf_split_io_latency_seconds"))));

  // Once it switched, each strategy's histogram, the first one's too.
  phase.strategy = "limits";
  v.snapshot.phases.push_back(phase);
  s = Samples(CollectText({v}));
  EXPECT_THAT(s, Contains(R"(blkperf_split_io_latency_seconds_count{workload="w1",strategy="none"} 10)"));
  EXPECT_THAT(s, Contains(R"(blkperf_split_io_latency_seconds_count{workload="w1",strategy="limits"} 10)"));
}

TEST(WorkloadCollectorTest, AbArmsAreExportedFromTheStartAtZero) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  v.ab_strategies = {"none", "fixed:1024"};
  PhaseSnapshot first;
  first.strategy = "none";
  first.total = v.snapshot.total;
  v.snapshot.phases = {first};
  const std::vector<std::string> s = Samples(CollectText({v}));
  const std::string arm = R"(workload="w1",strategy="fixed:1024")";
  EXPECT_THAT(s, Contains("blkperf_split_ios_total{" + arm + "} 0"));
  EXPECT_THAT(s, Contains("blkperf_split_io_latency_seconds_count{" + arm +
                          "} 0"));
  EXPECT_THAT(s, Contains(R"(blkperf_split_io_latency_seconds_count{workload="w1",strategy="none"} 10)"));
}

TEST(WorkloadCollectorTest, BufferedIoExportsNoDeviceRequests) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  PhaseSnapshot phase;
  phase.strategy = "none";
  phase.total.ios = 10;
  phase.total.sqes = 10;
  phase.device = {.available = true, .requests = 7};
  v.snapshot.phases = {phase};
  EXPECT_THAT(Samples(CollectText({v})),
              Contains(R"(blkperf_device_requests_total{workload="w1",strategy="none"} 7)"));
  // Page-cache I/O: the device's requests are not the SQEs'.
  v.direct = false;
  EXPECT_THAT(Samples(CollectText({v})),
              Not(Contains(HasSubstr("blkperf_device_requests"))));
}

TEST(WorkloadCollectorTest, TargetLabelEscapesCommasInPaths) {
  // "/t/a,b" + "/t/c" and "/t/a" + "b,/t/c" must not read the same.
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 1, 0)});
  v.targets = {"/t/a,b", "/t/c\\d"};
  WorkloadCollector collector([v] { return std::vector{v}; }, {});
  const auto families = collector.CollectAt(kNow);
  const prometheus::MetricFamily* ios = Find(families, "blkperf_ios_total");
  ASSERT_NE(ios, nullptr);
  ASSERT_FALSE(ios->metric.empty());
  std::string target;
  for (const auto& l : ios->metric[0].label) {
    if (l.name == "target") target = l.value;
  }
  EXPECT_EQ(target, "/t/a\\,b,/t/c\\\\d");
}

TEST(WorkloadCollectorTest, EndedWorkloadsSayWhenTheyEnded) {
  WorkloadMetricsView running = View("w1", {Thread(0, 0, 1, 0)});
  WorkloadMetricsView done = View("w2", {Thread(0, 0, 1, 0)});
  done.snapshot.state = WorkloadState::kFinished;
  done.finished_at = kNow - absl::Seconds(30);
  const std::vector<std::string> s = Samples(CollectText({running, done}));
  EXPECT_THAT(s, Contains(R"(blkperf_workload_finished_timestamp_seconds{workload="w2"} 1699999970)"));
  EXPECT_THAT(s, Not(Contains(HasSubstr(
                     R"(blkperf_workload_finished_timestamp_seconds{workload="w1")"))));
}

TEST(WorkloadCollectorTest, BeforePhasesTheCurrentStrategyCarriesTheTotals) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  v.snapshot.state = WorkloadState::kRamping;
  const std::vector<std::string> s = Samples(CollectText({v}));
  EXPECT_THAT(
      s, Contains(R"(blkperf_split_strategy_switches_total{workload="w1"} 0)"));
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_split_pieces_total{workload="w1",strategy="none"} 20)"));
  // The engine could not read a block device: no device series at all.
  EXPECT_THAT(s, Not(Contains(HasSubstr("blkperf_device_requests"))));
}

TEST(WorkloadCollectorTest, OnlyTheMostRecentStrategiesAreExported) {
  WorkloadMetricsView v = View("w1", {Thread(0, 0, 10, 0)});
  for (int i = 0; i < 40; ++i) {
    PhaseSnapshot p;
    p.strategy = "fixed:" + std::to_string(4096 * (i + 1));
    p.total.ios = 1;
    p.total.sqes = 1;
    v.snapshot.phases.push_back(p);
  }
  WorkloadCollector collector([v] { return std::vector{v}; }, {});
  const auto families = collector.CollectAt(kNow);
  const prometheus::MetricFamily* pieces =
      Find(families, "blkperf_split_pieces_total");
  ASSERT_NE(pieces, nullptr);
  EXPECT_EQ(pieces->metric.size(),
            static_cast<size_t>(WorkloadCollector::kMaxStrategiesPerWorkload));
  const std::string text = Serialize(families);
  EXPECT_THAT(text, HasSubstr(R"(strategy="fixed:163840")"));     // the last
  EXPECT_THAT(text, Not(HasSubstr(R"(strategy="fixed:4096")")));  // the first
}

TEST(WorkloadCollectorTest, FinishedWorkloadsDisappearAfterTheTtl) {
  WorkloadMetricsView running = View("w1", {Thread(0, 0, 1, 0)});
  WorkloadMetricsView recent = View("w2", {Thread(0, 1, 1, 0)});
  recent.snapshot.state = WorkloadState::kFinished;
  recent.finished_at = kNow - absl::Seconds(59);
  WorkloadMetricsView old = View("w3", {Thread(0, 2, 1, 0)});
  old.snapshot.state = WorkloadState::kStopped;
  old.finished_at = kNow - absl::Seconds(61);
  const std::string text =
      CollectText({running, recent, old}, absl::Minutes(1));
  EXPECT_THAT(text, HasSubstr(R"(workload="w1")"));
  EXPECT_THAT(text, HasSubstr(R"(workload="w2")"));
  EXPECT_THAT(text, Not(HasSubstr(R"(workload="w3")")));
}

TEST(WorkloadCollectorTest, RepeatedIdIsExportedOnce) {
  const std::string text = CollectText(
      {View("w1", {Thread(0, 0, 1, 0)}), View("w1", {Thread(0, 0, 9, 0)})});
  std::set<std::string> unique;
  int ios_lines = 0;
  for (const std::string& line : Samples(text)) {
    const std::string series = line.substr(0, line.rfind(' '));
    EXPECT_TRUE(unique.insert(series).second) << "duplicate series " << series;
    if (absl::StartsWith(line, "blkperf_ios_total{") &&
        absl::StrContains(line, "workload=\"w1\"")) {
      ++ios_lines;
    }
  }
  // Something was exported: the workload's I/O counter, once per direction
  // at most (an empty exposition would pass the loop above).
  EXPECT_GE(ios_lines, 1) << text;
  EXPECT_LE(ios_lines, 2) << text;
}

// The `le` values of every io_latency_seconds series in `text`, by series
// (its labels without le).
std::map<std::string, std::vector<std::string>> LeSets(const std::string& text) {
  std::map<std::string, std::vector<std::string>> sets;
  for (const std::string& line : Samples(text)) {
    if (!absl::StartsWith(line, "blkperf_io_latency_seconds_bucket{")) continue;
    const size_t at = line.find(",le=\"");
    const size_t end = line.find('"', at + 5);
    sets[line.substr(0, at)].push_back(line.substr(at + 5, end - at - 5));
  }
  return sets;
}

TEST(WorkloadCollectorTest, EveryWorkloadExportsTheIdenticalLeSet) {
  // Nothing alike: latencies around 20-120 µs on one, seconds on another,
  // none at all on the third, on other targets and with another op.
  WorkloadMetricsView fast = View("w1", {Thread(0, 0, 500, 0)});
  ThreadSnapshot slow_thread = Thread(0, 1, 0, 3);
  slow_thread.latency = LatencyHistogram();
  for (uint64_t ns : {900'000'000ull, 4'000'000'000ull, 60'000'000'000ull}) {
    slow_thread.latency.Record(ns);
  }
  WorkloadMetricsView slow = View("w2", {slow_thread});
  slow.targets = {"/dev/loop7"};
  slow.op = "randwrite";
  WorkloadMetricsView idle = View("w3", {});
  idle.run_id = "run-1";
  const auto sets = LeSets(CollectText({fast, slow, idle}));
  ASSERT_EQ(sets.size(), 3u);
  const std::vector<std::string>& first = sets.begin()->second;
  ASSERT_EQ(first.size(), LatencyBucketBoundsNs().size() + 1);
  EXPECT_EQ(first.back(), "+Inf");
  for (const auto& [series, les] : sets) EXPECT_EQ(les, first) << series;
}

TEST(WorkloadCollectorTest, RunIdLabelsEveryWorkloadSeries) {
  WorkloadMetricsView fleet = View("w1", {Thread(0, 0, 10, 0)});
  fleet.run_id = "nightly-2026.12.01_a";
  WorkloadMetricsView alone = View("w2", {Thread(0, 1, 10, 0)});
  const std::vector<std::string> s = Samples(CollectText({fleet, alone}));
  int w1 = 0, w2 = 0;
  for (const std::string& line : s) {
    if (absl::StrContains(line, R"(workload="w1")")) {
      ++w1;
      EXPECT_THAT(line, HasSubstr(R"(run_id="nightly-2026.12.01_a")"));
    } else if (absl::StrContains(line, R"(workload="w2")")) {
      ++w2;
      EXPECT_THAT(line, Not(HasSubstr("run_id")));
    }
  }
  EXPECT_GT(w1, 20);
  EXPECT_EQ(w1, w2);  // the label adds no series
  EXPECT_THAT(
      s,
      Contains(
          R"(blkperf_workload_info{workload="w1",run_id="nightly-2026.12.01_a",spec="randrw read_percent=50 bs=4096 qd=16 threads=2 targets=/dev/zram0",split_strategy="none",rw="randrw"} 1)"));
}

TEST(WorkloadCollectorTest, ExperimentArmLabelsEveryWorkloadSeries) {
  WorkloadMetricsView a = View("w1", {Thread(0, 0, 10, 0)});
  a.run_id = "exp-r1-A";
  a.experiment_arm = "split=fixed:128k";
  WorkloadMetricsView b = View("w2", {Thread(0, 1, 10, 0)});
  b.run_id = "exp-r1-B";
  WorkloadMetricsView bad = View("w3", {Thread(0, 1, 10, 0)});
  bad.experiment_arm = "a\"} 1\nevil";
  const std::vector<std::string> s = Samples(CollectText({a, b, bad}));
  int w1 = 0, w2 = 0, w3 = 0;
  for (const std::string& line : s) {
    if (absl::StrContains(line, R"(workload="w1")")) {
      ++w1;
      EXPECT_THAT(line, HasSubstr(R"(run_id="exp-r1-A",arm="split=fixed:128k")"));
    } else if (absl::StrContains(line, R"(workload="w2")")) {
      ++w2;
      EXPECT_THAT(line, Not(HasSubstr("arm=")));
    } else if (absl::StrContains(line, R"(workload="w3")")) {
      ++w3;
      EXPECT_THAT(line, HasSubstr(R"(workload="w3",arm="invalid")"));
      EXPECT_THAT(line, Not(HasSubstr("evil")));
    }
  }
  EXPECT_GT(w1, 20);
  EXPECT_EQ(w1, w2);  // the label adds no series
  EXPECT_EQ(w1, w3);
}

TEST(WorkloadCollectorTest, RunIdNotOfTheDocumentedFormIsNotEchoed) {
  for (const std::string& bad :
       {std::string(65, 'a'), std::string("a\"b"), std::string("a b"),
        std::string("run/1")}) {
    WorkloadMetricsView v = View("w1", {Thread(0, 0, 1, 0)});
    v.run_id = bad;
    const std::string text = CollectText({v});
    EXPECT_THAT(text, HasSubstr(R"(workload="w1",run_id="invalid")")) << bad;
    EXPECT_THAT(text, Not(HasSubstr(bad))) << bad;
  }
  WorkloadMetricsView longest = View("w1", {Thread(0, 0, 1, 0)});
  longest.run_id = std::string(64, 'z');
  EXPECT_THAT(CollectText({longest}),
              HasSubstr(absl::StrCat("run_id=\"", longest.run_id, "\"")));
}

TEST(WorkloadCollectorTest, OpenLoopTrimsSyncsAndTheSloSearch) {
  ThreadSnapshot t = Thread(0, 1, 0, 30);
  t.trim_ios = 7;
  t.trim_bytes = 7 * 65536;
  t.ios += 7;
  t.late_ios = 4;
  t.sync_ios = 3;
  for (int i = 0; i < 37; ++i) t.intended_latency.Record(5'000'000);
  for (int i = 0; i < 37; ++i) t.issue_lag.Record(4'000'000);
  WorkloadMetricsView v = View("w1", {t});
  v.op = "randwrite";
  v.open_loop = true;
  SloSummary& slo = v.snapshot.slo;
  slo.enabled = true;
  slo.target = {.percentile = 99, .bound = absl::Milliseconds(1)};
  slo.steps.push_back({.asked_iops = 0, .iops = 9000, .p50_ns = 100'000,
                       .p99_ns = 400'000, .p99_9_ns = 900'000});
  slo.steps.push_back({.asked_iops = 4500, .iops = 4499, .p50_ns = 50'000,
                       .p99_ns = 250'000, .p99_9_ns = 2'000'000, .met = true});
  slo.best_iops = 4500;
  slo.max_iops = 9000;
  const std::vector<std::string> s = Samples(CollectText({v}));
  const std::string cpu = R"(workload="w1",target="/dev/zram0",cpu="1")";
  EXPECT_THAT(s, Contains("blkperf_ios_total{" + cpu + R"(,op="trim"} 7)"));
  EXPECT_THAT(s, Contains("blkperf_bytes_total{" + cpu + R"(,op="trim"} 458752)"));
  EXPECT_THAT(s, Contains("blkperf_late_ios_total{" + cpu + "} 4"));
  EXPECT_THAT(s, Contains("blkperf_sync_ios_total{" + cpu + "} 3"));
  EXPECT_THAT(s, Contains(R"(blkperf_io_intended_latency_seconds_count{workload="w1",target="/dev/zram0"} 37)"));
  EXPECT_THAT(s, Contains(R"(blkperf_io_issue_lag_seconds_count{workload="w1",target="/dev/zram0"} 37)"));
  const std::string objective = R"(workload="w1",objective="p99<1ms")";
  EXPECT_THAT(s, Contains("blkperf_slo_best_iops{" + objective + "} 4500"));
  EXPECT_THAT(s, Contains("blkperf_slo_max_iops{" + objective + "} 9000"));
  EXPECT_THAT(s, Contains("blkperf_slo_done{" + objective + "} 0"));
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_asked_iops{workload="w1",step="1"} 4500)"));
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_met{workload="w1",step="1"} 1)"));
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_latency_seconds{workload="w1",step="1",percentile="99.9"} 0.002)"));
  // A closed-loop workload exports none of the open-loop series.
  const std::string closed = CollectText({View("w2", {Thread(0, 0, 5, 5)})});
  EXPECT_THAT(closed, Not(HasSubstr("blkperf_late_ios_total")));
  EXPECT_THAT(closed, Not(HasSubstr("blkperf_io_intended_latency_seconds")));
  EXPECT_THAT(closed, Not(HasSubstr("blkperf_io_issue_lag_seconds")));
  EXPECT_THAT(closed, Not(HasSubstr("blkperf_slo_")));
  EXPECT_THAT(closed, Not(HasSubstr(R"(op="trim")")));
}

// Each step's verdict, tail count and interval, the answer's interval and
// the warning: the SLO answer's uncertainty in the metrics as in the report.
TEST(WorkloadCollectorTest, SloVerdictsAndIntervals) {
  WorkloadMetricsView v = View("w1", {Thread(0, 1, 0, 3)});
  v.open_loop = true;
  SloSummary& slo = v.snapshot.slo;
  slo.enabled = true;
  slo.target = {.percentile = 99, .bound = absl::Milliseconds(1)};
  slo.steps.push_back({.asked_iops = 4500, .value_ns = 800'000, .met = true,
                       .interval_known = true, .tail_ios = 45,
                       .value_low_ns = 700'000, .value_high_ns = 900'000,
                       .value_bounded_above = true,
                       .verdict = SloVerdict::kMet});
  slo.steps.push_back({.asked_iops = 6000, .value_ns = 1'100'000,
                       .interval_known = true, .tail_ios = 3,
                       .value_low_ns = 950'000, .value_bounded_above = false,
                       .verdict = SloVerdict::kUndecided});
  slo.best_iops = 4500;
  slo.best_value_low_ns = 700'000;
  slo.best_value_high_ns = 900'000;
  slo.warning = "a re-test disagreed";
  const std::vector<std::string> s = Samples(CollectText({v}));
  const std::string objective = R"(workload="w1",objective="p99<1ms")";
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_verdict{workload="w1",step="0",verdict="met"} 1)"));

  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_verdict{workload="w1",step="1",verdict="undecided"} 1)"));
  // One series a step: its verdict.
  EXPECT_THAT(s, Not(Contains(HasSubstr(R"(step="1",verdict="met")"))));
  EXPECT_THAT(s, Not(Contains(HasSubstr(R"(step="0",verdict="undecided")"))));
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_tail_ios{workload="w1",step="1"} 3)"));
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_interval_seconds{workload="w1",step="0",end="high"} 0.0009)"));
  EXPECT_THAT(s, Contains(R"(blkperf_slo_step_interval_seconds{workload="w1",step="1",end="low"} 0.00095)"));
  // Too few tail I/Os: no upper end.
  EXPECT_THAT(s, Not(Contains(HasSubstr(R"(step="1",end="high")"))));
  EXPECT_THAT(s, Contains("blkperf_slo_best_interval_seconds{" + objective + R"(,end="low"} 0.0007)"));
  EXPECT_THAT(s, Contains("blkperf_slo_warning{" + objective + "} 1"));
}

TEST(WorkloadCollectorTest, SteadyState) {
  WorkloadMetricsView v = View("w1", {Thread(0, 1, 0, 3)});
  EXPECT_THAT(Samples(CollectText({v})),
              Not(Contains(HasSubstr("blkperf_steady_state"))));
  SteadyStateResult& ss = v.snapshot.steady_state;
  ss.enabled = true;
  ss.criterion = "iops:5%";
  ss.mode = "gate";
  ss.checks = 9;
  ss.attained = true;
  ss.attained_at = absl::Seconds(6);
  ss.figures = {.value = 1.5, .limit = 5, .met = true};
  ss.left = true;
  ss.left_figures = {.value = 14, .limit = 5};
  const std::vector<std::string> s = Samples(CollectText({v}));
  const std::string labels = R"({workload="w1",criterion="iops:5%",mode="gate"})";
  EXPECT_THAT(s, Contains("blkperf_steady_state_attained" + labels + " 1"));
  EXPECT_THAT(s, Contains("blkperf_steady_state_attained_at_seconds" + labels + " 6"));
  EXPECT_THAT(s, Contains("blkperf_steady_state_left" + labels + " 1"));
  EXPECT_THAT(s, Contains("blkperf_steady_state_window_value" + labels + " 14"));
}

TEST(WorkloadCollectorTest, LabelNamesAndSeriesCountAreBounded) {
  constexpr int kThreads = 8;
  std::vector<ThreadSnapshot> threads;
  for (int i = 0; i < kThreads; ++i) {
    ThreadSnapshot t = Thread(i, i, 100, 100);
    t.errors = {{5, "EIO", 1}};
    threads.push_back(t);
  }
  WorkloadCollector collector(
      [&] {
        std::vector views{View("w1", threads), View("w2", threads)};
        views[1].run_id = "r1";
        return views;
      },
      {});
  const auto families = collector.CollectAt(kNow);
  const std::set<std::string> allowed = {
      "workload", "target",         "cpu", "op",       "errno", "mode",
      "state",    "spec",           "rw",  "strategy", "run_id",
      "split_strategy", "objective", "step", "percentile", "group"};
  size_t series = 0;
  for (const auto& f : families) {
    EXPECT_TRUE(absl::StartsWith(f.name, "blkperf_")) << f.name;
    for (const auto& m : f.metric) {
      for (const auto& l : m.label) {
        EXPECT_THAT(allowed, Contains(l.name)) << f.name;
      }
      series += f.type == prometheus::MetricType::Histogram
                    ? m.histogram.bucket.size() + 2
                    : 1;
    }
  }
  // Per CPU: ios x2, bytes x2, errors x2 (EIO, short_transfer), inflight,
  // mean inflight, enter calls, per syscall, sqes, hits, misses, cpu x3 =
  // 16. Per workload: histogram (finite buckets, +Inf, count, sum), info, 9
  // states, elapsed, switches, and for its one strategy 3 series (no
  // histogram of its own: it would repeat the workload's).
  const size_t histogram = LatencyBucketBoundsNs().size() + 3;
  const size_t per_workload =
      kThreads * 16 + histogram + 1 + 9 + 1 + 1 + 3;
  EXPECT_EQ(series, 2 * per_workload);
}

}  // namespace
}  // namespace blkperf
