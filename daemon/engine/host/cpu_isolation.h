// Keeps the process's other threads — control plane, metrics, logging —
// off the CPUs its submitters are pinned to, so a gRPC watcher or a
// Prometheus scrape never preempts the hot path.
//
//   // after a workload starts or ends:
//   KeepControlThreadsOff(cpus_of_running_workloads);
//
// Threads created later inherit their creator's mask, so new control
// threads stay off those CPUs too; submitters pin themselves on start.
#ifndef BLKPERF_DAEMON_ENGINE_HOST_CPU_ISOLATION_H_
#define BLKPERF_DAEMON_ENGINE_HOST_CPU_ISOLATION_H_

#include <vector>

namespace blkperf {

// Re-pins every thread of this process that is neither a submitter
// ("blkperf-sub*", see SubmitterThread) nor an io_uring kernel thread
// ("iou-*") to the daemon's own CPUs (HostCpus::placement: the online ones
// of the mask it was started with) outside `busy_cpus`; when that leaves
// none, to all of its own CPUs. A daemon started under taskset or in a
// cpuset never spreads onto other CPUs. Best effort (threads may come and
// go meanwhile): returns how many threads were re-pinned.
int KeepControlThreadsOff(const std::vector<int>& busy_cpus);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_CPU_ISOLATION_H_
