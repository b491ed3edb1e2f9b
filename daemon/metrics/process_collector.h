// The daemon's own metrics: build info, and the process's CPU time and
// memory read from /proc/self at scrape time.
//
//   auto daemon = std::make_shared<ProcessCollector>("0.1.0");
//   exposer.RegisterCollectable(daemon);
//
// Families:
//   blkperf_build_info{version}                      gauge, always 1
//   blkperf_process_cpu_seconds_total{mode}          counter, user|system
//   blkperf_process_resident_memory_bytes            gauge
//   blkperf_process_virtual_memory_bytes             gauge
//   blkperf_process_threads                          gauge
//   blkperf_process_start_time_seconds               gauge, Unix time
#ifndef BLKPERF_DAEMON_METRICS_PROCESS_COLLECTOR_H_
#define BLKPERF_DAEMON_METRICS_PROCESS_COLLECTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace blkperf {

// Figures of /proc/<pid>/stat, converted to base units.
struct ProcessStat {
  double user_cpu_seconds = 0;
  double system_cpu_seconds = 0;
  int64_t threads = 0;
  double start_seconds_after_boot = 0;
  uint64_t virtual_memory_bytes = 0;
  uint64_t resident_memory_bytes = 0;
};

// Parses the text of /proc/<pid>/stat (fields after the parenthesized
// command name, which may itself hold spaces and parentheses).
// InvalidArgument naming the field when the text is malformed.
absl::StatusOr<ProcessStat> ParseProcessStat(absl::string_view text,
                                             int64_t clock_ticks_per_second,
                                             int64_t page_bytes);

// The "btime" line of /proc/stat: boot time, Unix seconds.
absl::StatusOr<int64_t> ParseBootTime(absl::string_view proc_stat);

class ProcessCollector final : public prometheus::Collectable {
 public:
  explicit ProcessCollector(std::string daemon_version);

  // Thread-safe. A /proc file that cannot be read leaves its families out.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string daemon_version_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_PROCESS_COLLECTOR_H_
