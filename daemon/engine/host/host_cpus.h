// The CPUs a workload is checked and placed against: the ones online, and
// of those the ones this daemon may run on.
//
// A daemon confined to some CPUs (a container's cpuset under Kubernetes'
// static CPU manager, `taskset`, systemd's CPUAffinity=) places a thread
// without a `cpus` entry on its own CPUs, not on the machine's first CPU:
// a pin outside a cpuset fails, and one outside a plain affinity mask puts
// the thread on CPUs meant for other work. A `cpus` entry still names any
// online CPU (an affinity mask does not forbid it; a cpuset refuses the
// pin, and the workload reports sched_setaffinity's error).
//
//   const HostCpus cpus = CurrentHostCpus();  // from any thread
//   FillDefaultCpus(cpus.placement, threads, &spec.cpus);
#ifndef BLKPERF_DAEMON_ENGINE_HOST_HOST_CPUS_H_
#define BLKPERF_DAEMON_ENGINE_HOST_HOST_CPUS_H_

#include <cstdint>
#include <vector>

namespace blkperf {

struct HostCpus {
  // Online now, ascending, never empty: every `cpus` entry of a spec must be
  // one.
  std::vector<int> online;
  // Where threads without a `cpus` entry go, round-robin in this order: the
  // online CPUs in the affinity mask the process was started with,
  // ascending; all of `online` when that leaves none. Never empty.
  std::vector<int> placement;
};

// CPUs online now (/sys/devices/system/cpu/online; the startup affinity
// mask when that cannot be read; {0} when neither can), ascending, never
// empty.
std::vector<int> OnlineCpus();

// The affinity mask the process was started with (taskset, a cpuset,
// systemd's CPUAffinity=), ascending; empty when it could not be read. Read
// once, as the program loads: later the daemon re-pins its own threads
// (submitters to their CPUs, control threads off them, cpu_isolation.h),
// so no thread's mask says what the daemon was given.
const std::vector<int>& StartupAffinityCpus();

// OnlineCpus() and the placement from StartupAffinityCpus().
HostCpus CurrentHostCpus();

// The placement for `online` and an affinity mask `allowed` (both
// ascending): the CPUs in both, or `online` when none is.
std::vector<int> PlacementCpus(const std::vector<int>& online,
                               const std::vector<int>& allowed);

// Gives threads cpus->size() .. threads-1 (the ones without a `cpus` entry)
// CPUs of `placement` round-robin by thread index: thread i gets
// placement[i % placement.size()]. Nothing when placement is empty. The one
// rule for the engine's resolution and the daemon's CPU reservation.
void FillDefaultCpus(const std::vector<int>& placement, uint32_t threads,
                     std::vector<int>* cpus);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_HOST_CPUS_H_
