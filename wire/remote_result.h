// A workload read back from the daemon (the API's v1::Workload) in the
// engine's terms, so every side prints results with the very code
// `blkperfd run` uses (report/report.h): the client, and the fleet
// orchestrator for each host and for the merge.
//
//   absl::StatusOr<RemoteResult> r = ResultFromProto(response.workload());
//   std::cout << FormatJsonReport(r->spec, r->targets, r->snapshot);
//
// The spec in a v1::Workload is the daemon's resolved spec: it is read
// back as data (SpecFromProto's wire checks only), never run through the
// validators of user input.
#ifndef BLKPERF_WIRE_REMOTE_RESULT_H_
#define BLKPERF_WIRE_REMOTE_RESULT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/snapshot.h"
#include "model/target_info.h"
#include "model/workload_spec.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

struct RemoteResult {
  std::string id;     // "w1"
  WorkloadSpec spec;  // resolved by the daemon
  std::vector<TargetInfo> targets;
  WorkloadSnapshot snapshot;  // with the workload's state and start times
  std::string run_id;         // fleet runs; "" when none
  std::string end_reason;     // why it was aborted; "" when none
};

// InvalidArgument naming the field when the daemon sent something this
// side cannot rebuild (a foreign histogram layout, a spec it cannot read).
// Per-thread and per-phase percentiles need their histograms: ask for them
// (thread_histograms, phase_histograms) when the result is to be printed.
absl::StatusOr<RemoteResult> ResultFromProto(const v1::Workload& workload);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_REMOTE_RESULT_H_
