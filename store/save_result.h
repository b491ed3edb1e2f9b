// Saving a finished run's result: the --results_db and --tag flags shared by
// `blkperfd run` and `blkperf run`, the record made from a result, and the
// save that never costs the run its result (spool.h).
//
//   absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();  // exit 2 on error
//   ... run ...
//   SaveResult(*save, MakeResultRecord(spec, targets, snapshot,
//                                      "w1", "blkperfd run", save->tags));
#ifndef BLKPERF_STORE_SAVE_RESULT_H_
#define BLKPERF_STORE_SAVE_RESULT_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "base/data_paths.h"
#include "model/snapshot.h"
#include "model/target_info.h"
#include "model/workload_spec.h"
#include "proto/blkperf.pb.h"
#include "store/result_record.h"
#include "store/spool.h"

ABSL_DECLARE_FLAG(std::string, results_db);
ABSL_DECLARE_FLAG(std::string, tag);

namespace blkperf {

struct SaveSettings {
  std::string location;   // "" : keep nothing (--results_db=none)
  std::string spool_dir;
  Tags tags;
};

// Where results go when --results_db is not given (DefaultResultsDb) and
// their spool (SpoolDirFor) are base/data_paths.h's.

// --results_db and --tag checked (InvalidArgument naming the flag).
absl::StatusOr<SaveSettings> SaveSettingsFromFlags();

ResultRecord MakeResultRecord(const WorkloadSpec& spec,
                              const std::vector<TargetInfo>& targets,
                              const WorkloadSnapshot& snapshot,
                              const std::string& run_id,
                              const std::string& source, const Tags& tags);

// The record of a workload a daemon ran, read back over the API (`blkperf
// run`, `blkperf status`, a fleet host): its id is stable for that
// workload of that daemon's boot (StableResultId), so it is kept once
// however often it is saved. InvalidArgument when the workload cannot be
// read back (wire/remote_result.h).
absl::StatusOr<ResultRecord> RemoteResultRecord(const v1::Workload& workload,
                                                const std::string& source,
                                                const Tags& tags);

// Saves or spools `record` and prints what happened to stderr (nothing
// when saved; "saved as <id>" with `announce`). Never fails.
SaveReport SaveResult(const SaveSettings& settings, const ResultRecord& record,
                      bool announce = true);

// The records `next` yields, one at a time over one connection (a fleet
// result host by host; store/spool.h SaveOrSpoolEach), then one line
// "results store: saved N result(s) of <what> in <location>".
SaveReport SaveResults(const SaveSettings& settings,
                       const std::function<std::optional<ResultRecord>()>& next,
                       const std::string& what);

}  // namespace blkperf

#endif  // BLKPERF_STORE_SAVE_RESULT_H_
