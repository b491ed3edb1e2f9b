// Human-readable text for blkperf.v1 messages: the final report of a run,
// the live status line of a watch, workload lists, capabilities and target
// facts. Pure functions of the messages, so the client, blkperfd's `run` (after
// converting its snapshot with daemon/service/snapshot_convert.h) and bench
// scripts print the same thing.
//
//   v1::Workload done = ...;                       // terminal state
//   std::cout << FormatReport(done);
//   std::cerr << '\r' << FormatStatusLine(watch_response) << std::flush;
#ifndef BLKPERF_CLIENT_REPORT_H_
#define BLKPERF_CLIENT_REPORT_H_

#include <cstdint>
#include <string>

#include "proto/blkperf.pb.h"

namespace blkperf {

// "123", "12.3k", "1.23M".
std::string FormatCount(double value);
// Binary units: "512 B", "4.0 KiB", "1.50 GiB".
std::string FormatBytes(double bytes);
// "482.3 MiB/s".
std::string FormatBandwidth(double bytes_per_second);
// "850ns", "45.2us", "1.20ms", "2.50s".
std::string FormatLatency(double ns);
// "running", "finished", ...
std::string StateName(v1::WorkloadState state);
// "randread", "write", ...
std::string OpName(v1::Op op);
// "0-3,6": CPU lists, compressed into ranges.
std::string FormatCpuList(const google::protobuf::RepeatedField<int32_t>& cpus);
// "p50 25.3us p90 30.1us p99 45.0us p99.9 80.2us p99.99 120us max 1.2ms
// mean 26.0us".
std::string FormatPercentiles(const v1::LatencyPercentiles& p);

// One line per interval: state, elapsed, interval IOPS, bandwidth and
// latency, in flight, errors. No newline.
std::string FormatStatusLine(const v1::WatchWorkloadResponse& response);

// The final (or current) result: IOPS, bandwidth, IOs per syscall, CPU,
// latency percentiles, ring setup, per-thread lines, errors, notes.
std::string FormatReport(const v1::Workload& workload);

// "w3  running   randread bs 4096 qd 32 cpus 0-1  /dev/zram0  12.3k IOPS".
std::string FormatWorkloadLine(const v1::Workload& workload);

std::string FormatCapabilities(const v1::GetCapabilitiesResponse& caps);
std::string FormatTargetInfo(const v1::TargetInfo& target);

}  // namespace blkperf

#endif  // BLKPERF_CLIENT_REPORT_H_
