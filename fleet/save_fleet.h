// Saving a fleet run's result to the results store (docs/results.md):
// host by host over one store connection, one record in memory at a time,
// so a 10,000-host result stays within the orchestrator's memory bound.
// The merged result is one record (hostname "fleet of N hosts"), each
// included host's own result one more; all carry the fleet run id and the
// user's --tag. Record ids are stable (a host's: its workload on its
// daemon's boot; the merged one's: the run id), so saving again keeps one.
//
//   const absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();
//   ... run, BuildReport, print ...
//   SaveFleetResult(*save, report);   // messages on stderr; never fails
#ifndef BLKPERF_FLEET_SAVE_FLEET_H_
#define BLKPERF_FLEET_SAVE_FLEET_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "fleet/report.h"
#include "store/result_record.h"
#include "store/save_result.h"

namespace blkperf::fleet {

// The merged result's record: hostname "fleet of N hosts"; kernel_release
// and target_model the hosts' common value or "mixed".
absl::StatusOr<ResultRecord> MergedRecord(const FleetReport& report,
                                          const Tags& tags);

// Saves the merged record and every included host's (report.hosts). A
// record that cannot be made is named on stderr and skipped.
SaveReport SaveFleetResult(const SaveSettings& save, const FleetReport& report);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_SAVE_FLEET_H_
