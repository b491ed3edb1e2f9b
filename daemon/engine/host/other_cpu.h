// The CPU time other processes took on a run's submitter CPUs, from
// /proc/stat around the run: what the CPUs were busy with (user, nice,
// system, irq, softirq, and steal, the hypervisor's) less the run's own
// CPU time (its submitters' and io-wq workers'), as a share of the CPUs'
// time. An experiment's round that shares its CPUs is measured on less
// than the whole of them (the "other_cpu" guardrail, experiment/analysis.h).
//
//   absl::StatusOr<std::vector<CpuTicks>> before = ReadCpuTicks();
//   ... run ...
//   double share = OtherCpuShare(*before, *ReadCpuTicks(), {0, 1}, own_s);
#ifndef BLKPERF_DAEMON_ENGINE_HOST_OTHER_CPU_H_
#define BLKPERF_DAEMON_ENGINE_HOST_OTHER_CPU_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/snapshot.h"

namespace blkperf {

// One CPU's /proc/stat counters, in USER_HZ ticks; index = CPU number
// (a CPU missing from the file: both 0).
struct CpuTicks {
  uint64_t busy = 0;   // user + nice + system + irq + softirq + steal
  uint64_t total = 0;  // busy + idle + iowait
};

// The "cpuN ..." lines of /proc/stat text. InvalidArgument for none.
absl::StatusOr<std::vector<CpuTicks>> ParseCpuTicks(absl::string_view text);
absl::StatusOr<std::vector<CpuTicks>> ReadCpuTicks();

// Other processes' share (0 to 1) of `cpus`' time between the readings,
// as a lower bound: (busy - one tick per CPU - own_cpu_seconds x ticks per
// second) / total, at least 0. Each CPU's busy count is read to a tick at
// either end (a 200 ms round on 2 CPUs is 40 ticks: one tick each is 5 %),
// so only what is certainly more than the readings' resolution counts.
// NaN when `cpus` is empty or the CPUs' time did not advance.
double OtherCpuShare(const std::vector<CpuTicks>& before,
                     const std::vector<CpuTicks>& after,
                     const std::vector<int>& cpus, double own_cpu_seconds,
                     double ticks_per_second);

// OtherCpuShare over the CPUs `run`'s submitter threads ran on, at the
// kernel's USER_HZ: the one rule for the daemon's Snapshot.other_cpu_share
// and `blkperfd run --vary`'s own measure around each round.
double SubmitterCpusOtherShare(const WorkloadSnapshot& run,
                               const std::vector<CpuTicks>& before,
                               const std::vector<CpuTicks>& after,
                               double own_cpu_seconds);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_OTHER_CPU_H_
