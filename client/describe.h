// Text for the client's answers that are not workload results (those go
// through daemon/report, see result.h): what the daemon and its host can do
// (`blkperf caps`) and the facts about a target (`blkperf probe`), with every
// queue limit and tuning setting the daemon found.
//
//   std::cout << FormatCapabilities(connection.capabilities());
//   std::cout << FormatTargetInfo(probe_response.target());
#ifndef BLKPERF_CLIENT_DESCRIBE_H_
#define BLKPERF_CLIENT_DESCRIBE_H_

#include <cstdint>
#include <string>

#include "proto/blkperf.pb.h"

namespace blkperf {

// "0-3,6": CPU lists, sorted, compressed into ranges.
std::string FormatCpuList(const google::protobuf::RepeatedField<int32_t>& cpus);

// Versions, io_uring features, CPUs, governor, huge pages, limits and the
// allow lists; one fact per line.
std::string FormatCapabilities(const v1::GetCapabilitiesResponse& caps);

// Kind, size, block sizes, the disk and every queue limit and tuning
// setting, whether it can poll or is in use, and the daemon's access rules.
std::string FormatTargetInfo(const v1::TargetInfo& target);

}  // namespace blkperf

#endif  // BLKPERF_CLIENT_DESCRIBE_H_
