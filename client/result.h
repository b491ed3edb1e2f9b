// The client's text for remote workloads: results (read back by
// wire/remote_result.h and printed with report/report.h, the code
// `blkperfd run` uses), `blkperf list` lines and live status lines.
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
#include "wire/remote_result.h"

namespace blkperf {

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
