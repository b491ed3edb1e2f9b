// Many workloads as the API's JSON at once: each exactly as
// MessageJson(w, JsonLayout::kOneLine) prints it (wire/message_json.h).
// protobuf's JSON printer (3.21) builds a node tree of every field with its
// default before it prints, and resolves every message type a workload
// holds (some forty) afresh on each conversion: most of a 10,000-host
// fleet report's CPU time. Workloads are printed directly by reflection
// instead (DirectApiJson), and those it leaves to protobuf (a string
// protobuf would escape, a type it does not print) in one conversion.
//
//   std::vector<std::string> json = WorkloadsApiJson({&a, &b});
//   // json[0] == MessageJson(a, JsonLayout::kOneLine), json[1] for b.
#ifndef BLKPERF_FLEET_WORKLOAD_JSON_H_
#define BLKPERF_FLEET_WORKLOAD_JSON_H_

#include <string>
#include <vector>

#include "proto/blkperf.pb.h"

namespace blkperf::fleet {

// `message` as MessageJson(message, JsonLayout::kOneLine) prints it, into
// `out`, by reflection; false (out empty) where it leaves the message to
// protobuf's printer: map entries, bytes, floats, a non-finite double, an enum
// value without a name, a string holding a byte outside printable ASCII
// or '<' or '>', well-known types other than Duration and Timestamp, or
// either out of the JSON mapping's range.
bool DirectApiJson(const google::protobuf::Message& message, std::string& out);

// One JSON text per workload, in order, each on one line. REQUIRES: no
// pointer is null.
std::vector<std::string> WorkloadsApiJson(
    const std::vector<const v1::Workload*>& workloads);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_WORKLOAD_JSON_H_
