// A remote workload in the engine's terms, so the client prints results with
// the very code `blkperfd run` uses (report/report.h): the proto
// Workload is converted back into the engine's WorkloadSpec, TargetInfo list
// and WorkloadSnapshot (wire/snapshot_convert.h, spec_convert.h).
//
//   absl::StatusOr<RemoteResult> r = ResultFromProto(get_response.workload());
//   std::cout << FormatResultText(*r);          // FormatTextReport + header
//   std::cout << FormatJsonReport(r->spec, r->targets, r->snapshot);
//
//   StatusLines lines;                           // one per watched workload
//   std::cerr << lines.Next(watch_response) << "\n";
#ifndef BLKPERF_CLIENT_RESULT_H_
#define BLKPERF_CLIENT_RESULT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/snapshot.h"
#include "model/target_info.h"
#include "model/workload_spec.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

struct RemoteResult {
  std::string id;  // "w1"
  WorkloadSpec spec;  // resolved by the daemon
  std::vector<TargetInfo> targets;
  WorkloadSnapshot snapshot;  // with the workload's state and start times
  std::string run_id;         // fleet runs; "" when none
  std::string end_reason;     // why it was aborted; "" when none
};

// InvalidArgument naming the field when the daemon sent something this
// client cannot rebuild (a foreign histogram layout, a spec it cannot read).
// Per-thread and per-phase percentiles need their histograms: ask for them
// (thread_histograms, phase_histograms) when the result is to be printed.
absl::StatusOr<RemoteResult> ResultFromProto(const v1::Workload& workload);

// "workload w1[ run R]\n", "ended: <reason>\n" when aborted, and then
// FormatTextReport.
std::string FormatResultText(const RemoteResult& result);

// One line for `blkperf list`: id, state, spec summary, targets and, when
// the message has a snapshot, IOPS.
std::string FormatWorkloadLine(const v1::Workload& workload);

// The live status lines of one watch stream: FormatStatusLine over the
// interval since the previous message, prefixed with the workload id. Not
// thread-safe.
class StatusLines {
 public:
  // No newline.
  std::string Next(const v1::WatchWorkloadResponse& response);

 private:
  WorkloadSnapshot previous_;
};

}  // namespace blkperf

#endif  // BLKPERF_CLIENT_RESULT_H_
