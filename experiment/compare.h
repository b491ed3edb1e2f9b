// `blkperf compare A.json B.json`: two runs' reports (`blkperfd run --json`
// or `blkperf run --report_json`) compared with the experiment's
// statistics. The spec and environment differences come first, then the
// IOPS ratio B / A: with an interval and a verdict when both reports carry
// per-interval samples (`series[]`), the intervals as samples, unpaired;
// with no series, the bare ratio of the two runs and a statement that one
// sample per run has no interval. Always a warning: runs that were not
// interleaved cannot separate the change from drift.
//
//   BLKPERF_ASSIGN_OR_RETURN(RunReport a, ParseRunReport(text_a, "a.json"));
//   BLKPERF_ASSIGN_OR_RETURN(RunReport b, ParseRunReport(text_b, "b.json"));
//   std::cout << CompareText(a, b, /*margin=*/0.02, /*confidence=*/0.95);
#ifndef BLKPERF_EXPERIMENT_COMPARE_H_
#define BLKPERF_EXPERIMENT_COMPARE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

// The largest report read (a report with a full series stays far below).
inline constexpr size_t kMaxReportBytes = 64 << 20;

struct RunReport {
  std::string name;   // the path it came from
  std::string spec;   // the report's one-line spec summary
  double iops = 0;    // total.iops
  double elapsed_seconds = 0;
  // Flattened "environment" object ("kernel_release" -> "6.1.0", nested
  // keys joined with '.'); empty when the report has none.
  std::map<std::string, std::string> environment;
  bool has_environment = false;
  // series[].iops (or read_iops + write_iops), one per interval (entries
  // with none are skipped); empty when the report has no series.
  std::vector<double> series_iops;
  bool has_series = false;
};

// InvalidArgument naming `name` when `json` is not a report object (no
// "spec" string or no "total.iops" number).
absl::StatusOr<RunReport> ParseRunReport(absl::string_view json,
                                         absl::string_view name);

// "qd: 32 -> 64" for each spec token that differs ("" when none). Spec
// summaries are "key=value" tokens and bare words ("randread", "direct").
std::vector<std::string> SpecDifferences(const std::string& a,
                                         const std::string& b);

// The comparison as text (see the header's opener).
std::string CompareText(const RunReport& a, const RunReport& b, double margin,
                        double confidence);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_COMPARE_H_
