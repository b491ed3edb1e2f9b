#include "report/report.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
#include "model/snapshot.h"
#include "model/steady_state.h"
#include "model/target_info.h"
#include "model/workload_spec.h"

namespace blkperf {
namespace {

WorkloadSpec Spec() {
  WorkloadSpec spec;
  spec.targets.push_back({.path = "/dev/loop7"});
  spec.op = Op::kRandRead;
  spec.block_size = 4096;
  spec.queue_depth = 8;
  spec.submit_batch = 8;
  spec.complete_batch = 8;
  spec.threads = 1;
  spec.cpus = {0};
  spec.runtime = absl::Seconds(2);
  return spec;
}

// A finished two-second run of 1,000 reads with latencies 1..1000 us.
WorkloadSnapshot Snapshot() {
  WorkloadSnapshot s;
  s.state = WorkloadState::kFinished;
  s.elapsed = absl::Seconds(2);
  ThreadSnapshot& t = s.total;
  t.ios = t.read_ios = 1000;
  t.bytes = t.read_bytes = 1000 * 4096;
  t.sqes = 1000;
  t.enter_calls = 125;
  for (uint64_t us = 1; us <= 1000; ++us) t.latency.Record(us * 1000);
  s.threads.push_back(t);
  return s;
}

// The text between `"key":[` and its matching `]`, from `from` on.
std::string ArrayAfter(const std::string& json, const std::string& key,
                       size_t from = 0) {
  const size_t start = json.find("\"" + key + "\":[", from);
  if (start == std::string::npos) return "";
  size_t i = json.find('[', start);
  int depth = 0;
  for (size_t j = i; j < json.size(); ++j) {
    if (json[j] == '[') ++depth;
    if (json[j] == ']' && --depth == 0) return json.substr(i + 1, j - i - 1);
  }
  return "";
}

TEST(JsonReportTest, LatencyBucketsRebuildTheExactHistogram) {
  const WorkloadSnapshot s = Snapshot();
  const std::string json = FormatJsonReport(Spec(), {}, s);
  ASSERT_TRUE(absl::StrContains(json, "\"total\":")) << json;
  const size_t total = json.find("\"total\":");
  const size_t latency = json.find("\"latency\":", total);
  ASSERT_NE(latency, std::string::npos);
  const std::string buckets = ArrayAfter(json, "buckets", latency);
  ASSERT_FALSE(buckets.empty()) << json;
  LatencyHistogram rebuilt;
  int pairs = 0;
  for (absl::string_view pair : absl::StrSplit(buckets, "],[")) {
    pair = absl::StripPrefix(absl::StripSuffix(pair, "]"), "[");
    std::vector<std::string> fields = absl::StrSplit(pair, ',');
    ASSERT_EQ(fields.size(), 2u) << pair;
    int index = 0;
    uint64_t count = 0;
    ASSERT_TRUE(absl::SimpleAtoi(fields[0], &index)) << pair;
    ASSERT_TRUE(absl::SimpleAtoi(fields[1], &count)) << pair;
    rebuilt.RecordN(LatencyHistogram::BucketLowerBound(index), count);
    ++pairs;
  }
  EXPECT_EQ(pairs, static_cast<int>(s.total.latency.NonEmptyBuckets().size()));
  EXPECT_EQ(rebuilt.Count(), 1000u);
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    EXPECT_EQ(rebuilt.Percentile(p), s.total.latency.Percentile(p)) << p;
  }
  EXPECT_TRUE(absl::StrContains(
      json, absl::StrCat("\"sum_ns\":", s.total.latency.Sum())));
}

TEST(JsonReportTest, EmptyHistogramHasNoBuckets) {
  WorkloadSnapshot s = Snapshot();
  s.total.latency = LatencyHistogram();
  const std::string json = FormatJsonReport(Spec(), {}, s);
  const size_t total = json.find("\"total\":");
  const size_t latency = json.find("\"latency\":", total);
  EXPECT_TRUE(absl::StrContains(json.substr(latency, 200),
                                "\"count\":0"))
      << json.substr(latency, 200);
  EXPECT_EQ(ArrayAfter(json, "buckets", latency), "");
}

// A steady-state result: attained at 6s over a 3 s window, then left.
SteadyStateResult SteadyResult(absl::string_view mode) {
  SteadyStateResult r;
  r.enabled = true;
  r.criterion = "iops:5%";
  r.mode = std::string(mode);
  r.window = absl::Seconds(3);
  r.check = absl::Seconds(1);
  r.checks = 4;
  r.attained = true;
  r.attained_at = absl::Seconds(6);
  r.figures = {.samples = 3, .mean = 1000, .min = 990, .max = 1010,
               .deviation = 10, .slope = -1.5, .value = 1, .limit = 5,
               .met = true};
  r.left = true;
  r.left_at = absl::Seconds(8);
  r.left_figures = {.samples = 3, .mean = 500, .value = 40, .limit = 5};
  r.warning = "left steady state at t=8s: iops deviation 40.00% >= 5%";
  return r;
}

TEST(SteadyStateReportTest, TextSaysAttainedWithTheWindowAndWarnsOnLeaving) {
  WorkloadSpec spec = Spec();
  spec.steady_state.enabled = true;
  spec.steady_state.criterion = *ParseSteadyStateCriterion("iops:5%");
  spec.steady_state.mode = SteadyStateMode::kGate;
  WorkloadSnapshot s = Snapshot();
  s.steady_state = SteadyResult("gate");
  const std::string text = FormatTextReport(spec, {}, s);
  EXPECT_THAT(text, ::testing::HasSubstr("steady_state=iops:5%/gate"));
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "steady state: iops:5% (3s window, checked every 1s, "
                        "mode gate): attained at 6s, iops deviation 1.00% < "
                        "5% (mean 1.0k"));
  EXPECT_THAT(text, ::testing::HasSubstr("measured from there"));
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "warning: left steady state at t=8s: iops deviation "
                        "40.00% >= 5%"));
  s.steady_state.attained = false;
  s.steady_state.left = false;
  s.steady_state.figures.met = false;
  s.steady_state.figures.value = 7;
  EXPECT_THAT(FormatTextReport(spec, {}, s),
              ::testing::HasSubstr(
                  "NOT attained in 4 checks, the last iops deviation 7.00% "
                  ">= 5%"));
  EXPECT_THAT(FormatTextReport(spec, {}, s),
              ::testing::HasSubstr("nothing was measured"));
}

TEST(SteadyStateReportTest, JsonCarriesTheWindowsFigures) {
  WorkloadSnapshot s = Snapshot();
  EXPECT_THAT(FormatJsonReport(Spec(), {}, s),
              ::testing::HasSubstr("\"steady_state\":{\"enabled\":false}"));
  s.steady_state = SteadyResult("stop");
  s.steady_state.left_figures.value = std::numeric_limits<double>::infinity();
  const std::string json = FormatJsonReport(Spec(), {}, s);
  EXPECT_THAT(json, ::testing::HasSubstr(
                        "\"steady_state\":{\"enabled\":true,\"criterion\":"
                        "\"iops:5%\",\"mode\":\"stop\",\"window_seconds\":3,"
                        "\"check_seconds\":1,\"checks\":4,\"attained\":true,"
                        "\"attained_at_seconds\":6,\"window\":{\"samples\":3,"
                        "\"mean\":1000,\"min\":990,\"max\":1010,"
                        "\"deviation\":10,\"slope_per_second\":-1.5,"
                        "\"value\":1,\"limit\":5,\"met\":true}"));
  EXPECT_THAT(json, ::testing::HasSubstr("\"value\":null"));  // inf
  EXPECT_THAT(json, ::testing::HasSubstr("\"left\":true,\"left_at_seconds\":8"));
}

TEST(TextReportTest, StatesIopsBandwidthAndPercentiles) {
  const std::string text = FormatTextReport(Spec(), {}, Snapshot());
  EXPECT_TRUE(absl::StrContains(text, "state: finished")) << text;
  EXPECT_TRUE(absl::StrContains(text, "IOPS=500")) << text;
  EXPECT_TRUE(absl::StrContains(text, "ios=1000")) << text;
  EXPECT_TRUE(absl::StrContains(text, "IOs per syscall: 8.00")) << text;
  EXPECT_TRUE(absl::StrContains(text, "p50=")) << text;
}

TEST(PreconditionReportTest, TextJsonAndStatusLineSayWhatRan) {
  WorkloadSpec spec = Spec();
  spec.precondition.sequential_passes = 2;
  WorkloadSnapshot s = Snapshot();
  EXPECT_THAT(FormatJsonReport(spec, {}, s), ::testing::HasSubstr(
                                                 "\"precondition\":null"));
  EXPECT_FALSE(absl::StrContains(FormatTextReport(Spec(), {}, s),
                                 "precondition"));
  s.precondition = {.passes = 2,
                    .passes_done = 2,
                    .bytes_written = 2 << 20,
                    .bytes_planned = 2 << 20,
                    .time = absl::Milliseconds(250),
                    .complete = true,
                    .notes = {"targets[0] /f: written through the page cache"}};
  const std::string text = FormatTextReport(spec, {}, s);
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "precondition: sequential 128 KiB writes, 2 of 2 "
                        "passes complete, 2.00MiB of 2.00MiB written in "
                        "0.25s\nprecondition note: targets[0] /f: written "
                        "through the page cache\n"));
  EXPECT_THAT(text, ::testing::HasSubstr(" precondition=sequential:2"));
  EXPECT_THAT(FormatJsonReport(spec, {}, s),
              ::testing::HasSubstr(
                  "\"precondition\":{\"passes\":2,\"passes_done\":2,"
                  "\"bytes_written\":2097152,\"bytes_planned\":2097152,"
                  "\"seconds\":0.25,\"complete\":true,\"block_size\":131072,"
                  "\"notes\":[\"targets[0] /f: written through the page "
                  "cache\"]}"));
  // While it runs: the status line is its progress (pass 2 of 2, half).
  WorkloadSnapshot live;
  live.state = WorkloadState::kCreating;
  live.precondition = {.passes = 2,
                       .passes_done = 1,
                       .bytes_written = 3 << 19,
                       .bytes_planned = 2 << 20};
  EXPECT_EQ(FormatStatusLine(live, live),
            "[creating] preconditioning pass 2/2, 50 % (1.50MiB of 2.00MiB "
            "written)");
}

// Batch turns' two parts are not fio's slat and clat: text and JSON name
// them batch_wait and after_wait; per_io turns keep slat and clat.
TEST(BatchTurnsTest, NameTheirPartsBatchWaitAndAfterWait) {
  WorkloadSnapshot batch = Snapshot();
  batch.total.batch_turns = true;
  batch.threads[0].batch_turns = true;
  for (ThreadSnapshot* t : {&batch.total, &batch.threads[0]}) {
    t->submit_latency.Record(5000);
    t->completion_latency.Record(0);
  }
  const std::string text = FormatTextReport(Spec(), {}, batch);
  EXPECT_TRUE(absl::StrContains(text, "  batch_wait: min=")) << text;
  EXPECT_TRUE(absl::StrContains(text, "  after_wait percentiles:")) << text;
  EXPECT_TRUE(absl::StrContains(text, "total = batch_wait + after_wait"));
  EXPECT_FALSE(absl::StrContains(text, "slat")) << text;
  EXPECT_FALSE(absl::StrContains(text, "clat")) << text;
  const std::string json = FormatJsonReport(Spec(), {}, batch);
  EXPECT_TRUE(absl::StrContains(json, "\"latency_turns\":\"batch\""));
  EXPECT_TRUE(absl::StrContains(json, "\"batch_wait_latency\":{"));
  EXPECT_TRUE(absl::StrContains(json, "\"after_wait_latency\":{"));
  EXPECT_FALSE(absl::StrContains(json, "\"submit_latency\""));
  EXPECT_FALSE(absl::StrContains(json, "\"completion_latency\""));

  WorkloadSnapshot per_io = Snapshot();
  per_io.total.submit_latency.Record(5000);
  const std::string plain = FormatTextReport(Spec(), {}, per_io);
  EXPECT_TRUE(absl::StrContains(plain, "  slat: min=")) << plain;
  EXPECT_FALSE(absl::StrContains(plain, "batch_wait")) << plain;
  const std::string plain_json = FormatJsonReport(Spec(), {}, per_io);
  EXPECT_TRUE(absl::StrContains(plain_json, "\"latency_turns\":\"per_io\""));
  EXPECT_TRUE(absl::StrContains(plain_json, "\"submit_latency\":{"));
}

TEST(StatusLineTest, IntervalRateFromTwoSnapshots) {
  WorkloadSnapshot before = Snapshot();
  WorkloadSnapshot after = Snapshot();
  before.state = after.state = WorkloadState::kRunning;
  after.elapsed = before.elapsed + absl::Seconds(1);
  after.total.ios = before.total.ios + 2000;
  after.total.read_ios = after.total.ios;
  const std::string line = FormatStatusLine(before, after);
  EXPECT_TRUE(absl::StrContains(line, "IOPS=2.0k")) << line;
}

using ::testing::HasSubstr;
using ::testing::Not;

// An open-loop total of 1000 I/Os: service latency `lat_ns` each, issue
// lag `lag_ns` each (so intended-time latency is their sum), `late` late.
ThreadSnapshot OpenLoop(uint64_t lat_ns, uint64_t lag_ns, uint64_t late) {
  ThreadSnapshot t;
  t.ios = 1000;
  t.late_ios = late;
  for (int i = 0; i < 1000; ++i) {
    t.latency.Record(lat_ns);
    t.issue_lag.Record(lag_ns);
    t.intended_latency.Record(lat_ns + lag_ns);
  }
  return t;
}

TEST(IntendedTailTest, NamesThePartThatCarriesTheTail) {
  EXPECT_EQ(IntendedTailOf(ThreadSnapshot{}), IntendedTail::kNone);
  EXPECT_EQ(IntendedTailOf(OpenLoop(5'000'000, 10'000, 0)),
            IntendedTail::kServiceLatency);
  // Lag carries it: with 1 % or more late, the full queue ...
  EXPECT_EQ(IntendedTailOf(OpenLoop(100'000, 5'000'000, 10)),
            IntendedTail::kQueueFull);
  // ... else the generator itself.
  EXPECT_EQ(IntendedTailOf(OpenLoop(100'000, 5'000'000, 9)),
            IntendedTail::kGenerator);
}

TEST(OpenLoopTextTest, PrintsLagLateAndTheTail) {
  EXPECT_EQ(OpenLoopText(ThreadSnapshot{}), "");
  const std::string generator = OpenLoopText(OpenLoop(100'000, 5'000'000, 0));
  EXPECT_THAT(generator, HasSubstr("  lag percentiles: "));
  EXPECT_THAT(generator, HasSubstr("late=0 of 1000"));
  EXPECT_THAT(generator, HasSubstr("carried by issue lag"));
  EXPECT_THAT(generator, HasSubstr("not the device"));
  const std::string device = OpenLoopText(OpenLoop(5'000'000, 10'000, 0));
  EXPECT_THAT(device, HasSubstr("carried by service latency"));
}

TEST(RequestCacheTextTest, SharedSaysWhatThePoolDid) {
  ThreadSnapshot t;
  t.cache_misses = 500;
  const std::string shared = RequestCacheText(RequestCacheMode::kShared, t);
  EXPECT_THAT(shared, HasSubstr("500 requests taken from the shared pool"));
  EXPECT_THAT(shared, Not(HasSubstr("hit rate")));
  t.cache_hits = 1500;
  const std::string own = RequestCacheText(RequestCacheMode::kPerCpu, t);
  EXPECT_THAT(own, HasSubstr("hits=1500"));
  EXPECT_THAT(own, HasSubstr("hit rate 75.0%"));
}

TEST(ErrorSitesTextTest, MarksAVerifyMismatchAsItsFirstWrongByte) {
  WorkloadSnapshot s;
  s.error_sites.push_back({.errno_value = 5, .target = "/dev/x", .offset = 8192});
  s.error_sites.push_back(
      {.errno_value = kVerifyMismatchErrno, .target = "/dev/x", .offset = 12287});
  EXPECT_EQ(ErrorSitesText(s), "/dev/x@8192 /dev/x@12287(first wrong byte)");
}

TEST(MeanInflightTest, IsLittlesLaw) {
  ThreadSnapshot t;
  t.ios = 100'000;  // over 1 s: 100k IOPS
  for (int i = 0; i < 100'000; ++i) t.latency.Record(320'000);  // 320 us
  EXPECT_NEAR(t.MeanInflight(absl::Seconds(1)), 32.0, 1e-9);
  EXPECT_EQ(ThreadSnapshot{}.MeanInflight(absl::Seconds(1)), 0.0);
}

}  // namespace
}  // namespace blkperf
