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
  const std::string json =
      FormatFioJson(spec, {}, s, FioJsonOptions{.plus = true});
  EXPECT_THAT(json, HasSubstr("\"mixed\" : {"));
  EXPECT_THAT(json, HasSubstr("\"latency_by_direction\" : false"));
  EXPECT_THAT(json, HasSubstr("\"latency_mode\" : \"batch\""));
  EXPECT_THAT(json, HasSubstr("not fio's clat"));
  EXPECT_THAT(json, HasSubstr("\"rwmixread\" : \"50\""));
  // Exactly one clat_ns with percentiles: the mixed one.
  size_t count = 0;
  for (size_t at = json.find("\"percentile\" : {"); at != std::string::npos;
       at = json.find("\"percentile\" : {", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 1u);
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
