// Many workloads as the API's JSON at once: each exactly as
// MessageJson(w, JsonLayout::kOneLine) prints it (wire/message_json.h),
// from one conversion of them all. protobuf's JSON printer resolves every
// message type a workload holds (some forty) afresh on each conversion,
// which costs more than printing the workload itself; a fleet report of
// 10,000 hosts pays it once per batch instead of once per host.
//
//   std::vector<std::string> json = WorkloadsApiJson({&a, &b});
//   // json[0] == MessageJson(a, JsonLayout::kOneLine), json[1] for b.
#ifndef BLKPERF_FLEET_WORKLOAD_JSON_H_
#define BLKPERF_FLEET_WORKLOAD_JSON_H_

#include <string>
#include <vector>

#include "proto/blkperf.pb.h"

namespace blkperf::fleet {

// One JSON text per workload, in order, each on one line. REQUIRES: no
// pointer is null.
std::vector<std::string> WorkloadsApiJson(
    const std::vector<const v1::Workload*>& workloads);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_WORKLOAD_JSON_H_
