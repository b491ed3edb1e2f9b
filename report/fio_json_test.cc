#include "report/fio_json.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// fio's plat_idx_to_val, written from its definition (FIO_IO_U_PLAT_BITS 6).
uint64_t FioPlatIdxToVal(unsigned idx) {
  if (idx < 128) return idx;
  const unsigned error_bits = (idx >> 6) - 1;
  const uint64_t base = uint64_t{1} << (error_bits + 6);
  const unsigned k = idx % 64;
  return base + static_cast<uint64_t>((k + 0.5) * (uint64_t{1} << error_bits));
}

TEST(FioBinValueTest, IsFiosPlatIdxToValAndLiesInItsBucket) {
  // fio's FIO_IO_U_PLAT_NR: 29 groups of 64.
  for (int i = 0; i < 29 * 64; ++i) {
    ASSERT_EQ(FioBinValue(i), FioPlatIdxToVal(i)) << i;
    ASSERT_EQ(LatencyHistogram::BucketIndex(FioBinValue(i)), i) << i;
  }
  // Seen in a real fio 3.33 json+ run: bucket [1504, 1519] is key 1512.
  EXPECT_EQ(FioBinValue(LatencyHistogram::BucketIndex(1510)), 1512u);
}

TEST(FioPercentilesTest, MatchesTheRankDefinitionOverRandomData) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(10.0, 1.5);
  const std::vector<double> list = {1, 25, 50, 75, 90, 99, 99.5, 99.9, 99.99, 100};
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + static_cast<int>(rng() % 5000);
    LatencyHistogram h;
    std::vector<uint64_t> values;
    for (int i = 0; i < n; ++i) {
      values.push_back(static_cast<uint64_t>(dist(rng)));
      h.Record(values.back());
    }
    std::sort(values.begin(), values.end());
    const std::vector<uint64_t> got = FioPercentiles(h, list);
    ASSERT_EQ(got.size(), list.size());
    for (size_t j = 0; j < list.size(); ++j) {
      // The value at rank ceil(p/100 * n), reported as fio reports its bucket.
      const size_t rank = std::max<size_t>(
          1, static_cast<size_t>(std::ceil(list[j] / 100.0 * n - 1e-9)));
      EXPECT_EQ(got[j],
                FioBinValue(LatencyHistogram::BucketIndex(values[rank - 1])))
          << "n=" << n << " p=" << list[j];
    }
  }
  EXPECT_TRUE(FioPercentiles(LatencyHistogram(), list).empty());
}

WorkloadSnapshot ReadSnapshot() {
  WorkloadSnapshot s;
  s.state = WorkloadState::kFinished;
  s.taken = absl::FromUnixSeconds(1800000000);
  s.elapsed = absl::Seconds(2);
  s.total.ios = s.total.read_ios = 1000;
  s.total.bytes = s.total.read_bytes = 1000 * 4096;
  for (int i = 0; i < 1000; ++i) {
    s.total.submit_latency.Record(500 + i);
    s.total.completion_latency.Record(9000 + 10 * i);
    s.total.latency.Record(9500 + 11 * i);
  }
  s.threads.push_back(s.total);
  return s;
}

TEST(FormatFioJsonTest, ReadJobCarriesFiosKeysAndPlusBins) {
  WorkloadSpec spec;
  spec.op = Op::kRandRead;
  spec.latency_mode = LatencyMode::kPerIo;
  const WorkloadSnapshot s = ReadSnapshot();
  const std::string json =
      FormatFioJson(spec, {}, s, FioJsonOptions{.plus = true});
  EXPECT_THAT(json, HasSubstr("\"fio version\" : \"blkperf"));
  EXPECT_THAT(json, HasSubstr("\"timestamp\" : 1800000000,"));
  EXPECT_THAT(json, HasSubstr("\"jobname\" : \"blkperf\""));
  EXPECT_THAT(json, HasSubstr("\"iops\" : 500.000000,"));
  EXPECT_THAT(json, HasSubstr("\"bw_bytes\" : 2048000,"));
  EXPECT_THAT(json, HasSubstr("\"bw\" : 2000,"));
  EXPECT_THAT(json, HasSubstr("\"runtime\" : 2000,"));
  EXPECT_THAT(json, HasSubstr("\"total_ios\" : 1000,"));
  const uint64_t p99 = FioPercentiles(s.total.completion_latency, {99.0})[0];
  EXPECT_THAT(json, HasSubstr(absl::StrCat("\"99.000000\" : ", p99)));
  EXPECT_THAT(json, HasSubstr("\"bins\" : {"));
  EXPECT_THAT(json, HasSubstr("\"latency_mode\" : \"per_io\""));
  EXPECT_THAT(json, HasSubstr("\"latency_by_direction\" : true"));
  EXPECT_THAT(json, HasSubstr("\"write\" : {"));
  EXPECT_THAT(json, HasSubstr("\"trim\" : {"));
  EXPECT_THAT(json, Not(HasSubstr("\"mixed\"")));
  // Plain fio-json: percentiles, no bins.
  const std::string plain = FormatFioJson(spec, {}, s, FioJsonOptions{});
  EXPECT_THAT(plain, HasSubstr("\"percentile\" : {"));
  EXPECT_THAT(plain, Not(HasSubstr("\"bins\"")));
}

TEST(FormatFioJsonTest, MixedJobPutsLatencyInMixedAndBatchSaysSo) {
  WorkloadSpec spec;
  spec.op = Op::kRandRW;
  spec.latency_mode = LatencyMode::kBatch;
  WorkloadSnapshot s = ReadSnapshot();
  s.total.read_ios = 600;
  s.total.write_ios = 400;
  s.total.batch_turns = true;
  const std::string json =
      FormatFioJson(spec, {}, s, FioJsonOptions{.plus = true});
  EXPECT_THAT(json, HasSubstr("\"mixed\" : {"));
  EXPECT_THAT(json, HasSubstr("\"latency_by_direction\" : false"));
  EXPECT_THAT(json, HasSubstr("\"latency_mode\" : \"batch\""));
  EXPECT_THAT(json, HasSubstr("not fio's slat and clat"));
  // An open loop in batch mode takes per_io turns: fio's meaning, no note.
  s.total.batch_turns = false;
  EXPECT_THAT(FormatFioJson(spec, {}, s, FioJsonOptions{}),
              HasSubstr("per_io: slat, clat and lat in fio's meaning"));
  EXPECT_THAT(json, HasSubstr("\"rwmixread\" : \"50\""));
  // Exactly one clat_ns with percentiles: the mixed one.
  size_t count = 0;
  for (size_t at = json.find("\"percentile\" : {"); at != std::string::npos;
       at = json.find("\"percentile\" : {", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 1u);
}

// The text of `json` from `from` to the next `to` (a direction's object).
std::string Between(const std::string& json, const std::string& from,
                    const std::string& to) {
  const size_t a = json.find(from);
  if (a == std::string::npos) return "";
  return json.substr(a, json.find(to, a) - a);
}

SeriesPoint ReadPoint(absl::Duration start, absl::Duration length,
                      uint64_t reads) {
  SeriesPoint p;
  p.start = start;
  p.length = length;
  p.read_ios = reads;
  p.read_bytes = reads * 4096;
  return p;
}

// bw_* and iops_* are fio's statistics of the series' whole points with
// I/O in the direction: 400, 500 and 600 reads in 1 s points (a point
// without reads and the partial last one are no samples).
TEST(FormatFioJsonTest, IntervalStatisticsComeFromTheSeries) {
  WorkloadSpec spec;
  spec.op = Op::kRandRead;
  spec.latency_mode = LatencyMode::kPerIo;
  WorkloadSnapshot s = ReadSnapshot();
  s.series.interval = absl::Seconds(1);
  s.series.points = {ReadPoint(absl::Seconds(0), absl::Seconds(1), 400),
                     ReadPoint(absl::Seconds(1), absl::Seconds(1), 600),
                     ReadPoint(absl::Seconds(2), absl::Seconds(1), 0),
                     ReadPoint(absl::Seconds(3), absl::Seconds(1), 500),
                     ReadPoint(absl::Seconds(4), absl::Milliseconds(300), 90)};
  const std::string json = FormatFioJson(spec, {}, s, FioJsonOptions{});
  const std::string read = Between(json, "\"read\" : {", "\"write\" : {");
  EXPECT_THAT(read, HasSubstr("\"iops_min\" : 400,"));
  EXPECT_THAT(read, HasSubstr("\"iops_max\" : 600,"));
  EXPECT_THAT(read, HasSubstr("\"iops_mean\" : 500.000000,"));
  EXPECT_THAT(read, HasSubstr("\"iops_stddev\" : 100.000000,"));
  EXPECT_THAT(read, HasSubstr("\"iops_samples\" : 3"));
  EXPECT_THAT(read, HasSubstr("\"bw_min\" : 1600,"));   // KiB/s
  EXPECT_THAT(read, HasSubstr("\"bw_max\" : 2400,"));
  EXPECT_THAT(read, HasSubstr("\"bw_mean\" : 2000.000000,"));
  EXPECT_THAT(read, HasSubstr("\"bw_dev\" : 400.000000,"));
  EXPECT_THAT(read, HasSubstr("\"bw_samples\" : 3,"));
  // The run's 2000 KiB/s is the mean's whole share.
  EXPECT_THAT(read, HasSubstr("\"bw_agg\" : 100.000000,"));
  const std::string write = Between(json, "\"write\" : {", "\"trim\" : {");
  EXPECT_THAT(write, HasSubstr("\"iops_samples\" : 0"));
  // Measured now: not in not_measured; the note names the points' length.
  const std::string notes = json.substr(json.find("\"not_measured\""));
  EXPECT_THAT(notes, Not(HasSubstr("\"bw_min\"")));
  EXPECT_THAT(notes, Not(HasSubstr("\"iops_samples\"")));
  EXPECT_THAT(json, HasSubstr("\"interval_samples\" : \"bw_* and iops_* "
                              "over the series' whole 1s points"));
}

// Without a series covering the job (a snapshot without one, job groups)
// the keys are fio's "no samples" zeros, listed in not_measured.
TEST(FormatFioJsonTest, IntervalStatisticsWithoutASeriesAreNotMeasured) {
  WorkloadSpec spec;
  spec.op = Op::kRandRead;
  WorkloadSnapshot s = ReadSnapshot();
  s.series.interval = absl::Seconds(1);
  s.series.points = {ReadPoint(absl::Seconds(0), absl::Seconds(1), 400)};
  spec.groups.resize(2);
  s.groups.resize(2);
  s.groups[0].name = "a";
  s.groups[0].total = s.total;
  s.groups[1].name = "b";
  const std::string json = FormatFioJson(spec, {}, s, FioJsonOptions{});
  EXPECT_THAT(json, Not(HasSubstr("\"iops_samples\" : 1")));
  EXPECT_THAT(json, HasSubstr("\"iops_samples\" : 0"));
  EXPECT_THAT(json.substr(json.find("\"not_measured\"")),
              HasSubstr("\"bw_min\""));
  EXPECT_THAT(json, Not(HasSubstr("interval_samples")));
}

// fio's client/server layout: the hosts' jobs with hostname and port, then
// "All clients" whose rates are the given window's, shared out between the
// directions by their counts (600 reads and 400 writes of 4 KiB: 60 % and
// 40 % of 1000 I/Os/s), whose counts are the merged snapshot's.
TEST(FormatFioClientJsonTest, HostsThenAllClientsWithWindowRates) {
  WorkloadSpec spec;
  spec.op = Op::kRandRW;
  spec.latency_mode = LatencyMode::kPerIo;
  const WorkloadSnapshot host = ReadSnapshot();
  WorkloadSnapshot merged = ReadSnapshot();
  merged.total.read_ios = 600;
  merged.total.write_ios = 400;
  merged.total.read_bytes = 600 * 4096;
  merged.total.write_bytes = 400 * 4096;
  FioJsonOptions window{.plus = true};
  window.rates = FioRates{.ios_per_second = 1000,
                          .bytes_per_second = 1000 * 4096,
                          .meaning = "over the overlap window"};
  const std::vector<TargetInfo> targets;
  const std::vector<FioClientResult> hosts = {
      {.hostname = "a", .port = 1, .spec = &spec, .targets = &targets,
       .snapshot = &host},
      {.hostname = "b", .port = 2, .spec = &spec, .targets = &targets,
       .snapshot = &host}};
  const FioClientResult all{.spec = &spec, .targets = &targets,
                            .snapshot = &merged, .options = &window};
  const std::string json =
      FormatFioClientJson(hosts, all, FioJsonOptions{.plus = true});
  EXPECT_THAT(json, HasSubstr("\"client_stats\" : ["));
  EXPECT_THAT(json, Not(HasSubstr("\"jobs\"")));
  const size_t a = json.find("\"hostname\" : \"a\"");
  const size_t b = json.find("\"hostname\" : \"b\"");
  const size_t all_at = json.find("\"jobname\" : \"All clients\"");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(all_at, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, all_at);
  const std::string all_job = json.substr(all_at);
  EXPECT_THAT(all_job, HasSubstr("\"iops\" : 600.000000,"));
  EXPECT_THAT(all_job, HasSubstr("\"iops\" : 400.000000,"));
  EXPECT_THAT(all_job, HasSubstr(absl::StrCat("\"bw_bytes\" : ", 600 * 4096, ",")));
  EXPECT_THAT(all_job, HasSubstr("\"total_ios\" : 600,"));
  EXPECT_THAT(all_job, HasSubstr("\"rates\" : \"over the overlap window\""));
  EXPECT_THAT(json.substr(0, all_at), Not(HasSubstr("\"rates\"")));
  // One host: no "All clients", as fio.
  EXPECT_THAT(FormatFioClientJson({hosts[0]}, all, FioJsonOptions{}),
              Not(HasSubstr("All clients")));
}

}  // namespace
}  // namespace blkperf
