#include "daemon/metrics/exposition.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/metrics/latency_buckets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
#include "prometheus/client_metric.h"
#include "prometheus/text_serializer.h"

namespace blkperf {
namespace {

using ::prometheus::ClientMetric;
using ::prometheus::MetricFamily;
using ::prometheus::MetricType;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<MetricFamily> Families() {
  MetricFamily latency{"blkperf_io_latency_seconds", "Latency.",
                       MetricType::Histogram};
  ClientMetric& m = latency.metric.emplace_back();
  // A label whose name ends in "le" and a value that looks like an le label.
  m.label = {{"workload", "w1"}, {"file", "0.1"},
             {"target", "/t/x,le=\"0.0009994240000000001\""}};
  LatencyHistogram h;
  h.Record(500'000);
  m.histogram = ToPrometheusHistogram(h);
  MetricFamily ios{"blkperf_ios_total", "I/Os.", MetricType::Counter};
  ClientMetric& c = ios.metric.emplace_back();
  c.label = {{"workload", "w1"}};
  c.counter.value = 1.0 / 3;  // not an le: printed as the library does
  return {latency, ios};
}

std::string LibraryText(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

TEST(ExpositionTest, LeLabelsAreTheShortestRoundTripDecimal) {
  const std::string text = ExpositionText(Families());
  // The library prints 1 ms's edge with binary noise; the exposition not.
  ASSERT_THAT(LibraryText(Families()),
              HasSubstr(R"(le="0.0009994240000000001"})"));
  EXPECT_THAT(text, HasSubstr(R"(,le="0.000999424"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(,le="9.9328e-05"} 0)"));
  EXPECT_THAT(text, HasSubstr(R"(,le="0.998244352"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(,le="+Inf"} 1)"));
  EXPECT_THAT(text, Not(HasSubstr(R"(le="0.0009994240000000001"})")));
}

TEST(ExpositionTest, EverythingElseIsTheLibrarysText) {
  const std::string text = ExpositionText(Families());
  const std::string library = LibraryText(Families());
  // Label values are untouched, an escaped look-alike included.
  EXPECT_THAT(text,
              HasSubstr(R"(file="0.1",target="/t/x,le=\"0.0009994240000000001\"")"));
  EXPECT_THAT(text, HasSubstr("blkperf_ios_total{workload=\"w1\"} "
                              "0.3333333333333333\n"));
  // Same lines, one for one; only le values may differ.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
            std::count(library.begin(), library.end(), '\n'));
  EXPECT_EQ(text.substr(0, text.find("_bucket")),
            library.substr(0, library.find("_bucket")));
}

}  // namespace
}  // namespace blkperf
