// The Prometheus text exposition of metric families, as prometheus-cpp's
// TextSerializer writes it except for histogram `le` labels, which are the
// shortest decimal that reads back as the same double (0.000999424, where
// the library's 16 significant digits print 0.0009994240000000001), so that
// a bound can be selected by the string a person would write.
//
//   std::string body = ExpositionText(collector.Collect());
#ifndef BLKPERF_DAEMON_METRICS_EXPOSITION_H_
#define BLKPERF_DAEMON_METRICS_EXPOSITION_H_

#include <string>
#include <vector>

#include "prometheus/metric_family.h"

namespace blkperf {

std::string ExpositionText(
    const std::vector<prometheus::MetricFamily>& families);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_EXPOSITION_H_
