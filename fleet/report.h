// The fleet report: one merged result, the per-host table and who was left
// out, from a FleetRun (orchestrator.h).
//
//   absl::StatusOr<FleetReport> r = BuildReport(run);
//   std::cout << (json ? FormatReportJson(*r) : FormatReportText(*r));
//
// What the numbers mean (docs/fleet.md says the same):
// - Each included host's measured window on the orchestrator's clock starts
//   at its first submission (StartReport.first_submit_monotonic_ns minus
//   its clock offset) plus the spec's ramp time and lasts its final
//   Snapshot.elapsed. The overlap window is [latest start, earliest end].
// - merged.snapshot.total.iops / bytes_per_second: the sum over included
//   hosts of the I/Os (bytes) each completed inside the overlap window,
//   divided by its length; a host's count at a window edge is interpolated
//   linearly between its two polled cumulative samples around that edge.
// - merged.snapshot.total ios, bytes, the other counters and the histogram:
//   exact sums over every included host's whole measured run; the
//   percentiles come from that merged histogram.
// - merged.snapshot.groups (job groups): each group merged the same way
//   across hosts, which must list the same groups in the same order
//   (otherwise BuildReport fails naming hosts[i].groups[g]); a group's
//   rates share each host's I/Os inside the overlap window out between its
//   groups in proportion to their whole-run counts.
// - start_offset_ns: a host's first submission minus the common start
//   instant, on the orchestrator's clock; +- clock_error_ns.
// - Outliers: hosts whose IOPS (over their own window) differ from the
//   median by more than 3 median absolute deviations and more than 5 % of
//   the median (merge.h MadOutliers; the rule is printed with them).
#ifndef BLKPERF_FLEET_REPORT_H_
#define BLKPERF_FLEET_REPORT_H_

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fleet/merge.h"
#include "fleet/orchestrator.h"
#include "proto/blkperf.pb.h"
#include "report/fio_json.h"

namespace blkperf::fleet {

struct HostRow {
  std::string address;
  std::string state;
  // The host's final (or last seen) workload.
  v1::Workload workload;
  // IOPS and bandwidth over its own measured window.
  double iops = 0;
  double bytes_per_second = 0;
  bool outlier = false;
  // Its measured window on the orchestrator's clock, relative to the common
  // start instant.
  Window window;
  int64_t start_offset_ns = 0;
  int64_t clock_error_ns = 0;
  // Facts a reader must know about this row (start not reported ...).
  std::string note;
  // Who the host is: its file_sd labels (fleet inventory) and what its
  // daemon reports (GetCapabilities, read after the run); empty if unknown.
  std::map<std::string, std::string> labels;
  std::string kernel_release;
  std::string daemon_version;
};

// --cohort_by: the included hosts sharing one value of a key, merged
// exactly as the whole fleet is (BuildReport over those hosts alone).
struct Cohort {
  std::string value;
  std::vector<std::string> hosts;
  v1::Workload merged;
  Window overlap;
};

struct Excluded {
  std::string address;
  std::string state;
  std::string reason;
};

struct FleetReport {
  std::string run_id;
  // completed / partial / aborted / not_started
  std::string outcome;
  std::string abort_reason;
  // Same shape as a single host's Workload (the API's JSON).
  v1::Workload merged;
  // Relative to the common start instant.
  Window overlap;
  int requested = 0, armed = 0, started = 0, completed = 0;
  int needed = 0;
  absl::Duration margin;
  // The orchestrator's steps: arm (with clock reads), go, collect.
  absl::Duration arm_time, clock_time, go_time, collect_time;
  // Included hosts, highest IOPS first.
  std::vector<HostRow> hosts;
  std::vector<Excluded> excluded;
  Outliers outliers;
  // --cohort_by's key ("kernel_release", "label:rack") and its cohorts,
  // ordered by value; empty without it.
  std::string cohort_by;
  std::vector<Cohort> cohorts;
};

// Builds the report. The merge is exact; FailedPrecondition when the
// hosts' histograms use different layouts or their windows do not overlap
// (both stated); InvalidArgument naming hosts[i].groups[g] when their job
// groups differ.
absl::StatusOr<FleetReport> BuildReport(const FleetRun& run);

// BuildReport, but each included host's workload is moved from `run` into
// its row rather than copied (a 10,000-host run then holds one copy of the
// hosts' results, not two); those run.hosts[].workload are left empty, so
// no AddCohorts over `run` can follow.
absl::StatusOr<FleetReport> BuildReportTakingWorkloads(FleetRun& run);

// Sets report.cohort_by = `by` and one Cohort per distinct key(row) over
// report.hosts (ordered by value), each merged by BuildReport over those
// hosts of `run` alone (moved out of `run` and back). Errors as
// BuildReport's, prefixed "cohort BY=VALUE: ".
absl::Status AddCohorts(FleetRun& run, const std::string& by,
                        const std::function<std::string(const HostRow&)>& key,
                        FleetReport& report);

std::string FormatReportText(const FleetReport& report);

// Which JSON `merged` and `hosts[].report` are in: the report schema
// (report/report.h's FormatJsonReport, what every --json prints) or the
// API's v1::Workload (--api_json).
enum class WorkloadJson { kReport, kApi };

// {"run_id", "outcome", "abort_reason", "window": {begin_ns, end_ns},
//  "counts": {...}, "merged": REPORT, "hosts": [{address, state, report:
//  REPORT, start_offset_ns, clock_error_ns, iops, bytes_per_second,
//  outlier, window}], "excluded": [{address, state, reason}]}, REPORT in
// the schema `workload_json` names. A workload that cannot be read back
// into the report schema is {"unreadable": "<why>"}.
std::string FormatReportJson(const FleetReport& report,
                             WorkloadJson workload_json = WorkloadJson::kReport);

// The same document written to `out` as it is made: hosts[] a batch of
// hosts at a time (their workloads converted together, then written), so
// that the whole document (about 7 KiB a host in the API's JSON) is never
// held in memory, only one batch of it.
void WriteReportJson(const FleetReport& report, WorkloadJson workload_json,
                     std::ostream& out);

// fio's client/server JSON (`--output_format=fio-json|fio-json+`,
// report/fio_json.h's FormatFioClientJson): "client_stats" holds every
// included host's jobs with its "hostname" and "port" (from its address),
// then, for more than one host, the "All clients" job from the exact merge:
// io_bytes, total_ios and the latency histograms are the sums over every
// host's whole measured run, iops and bw the merged rates over the overlap
// window (its "blkperf"."rates" says so), runtime the overlap window.
// InvalidArgument naming the host whose workload cannot be read back.
absl::StatusOr<std::string> FormatReportFioJson(const FleetReport& report,
                                                const FioJsonOptions& options);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_REPORT_H_
