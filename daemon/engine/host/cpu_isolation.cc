#include "daemon/engine/host/cpu_isolation.h"

#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "daemon/engine/host/host_cpus.h"
#include "daemon/engine/host/process_threads.h"

namespace blkperf {

int KeepControlThreadsOff(const std::vector<int>& busy_cpus) {
  const std::vector<int> own = CurrentHostCpus().placement;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  for (int cpu : own) {
    if (std::find(busy_cpus.begin(), busy_cpus.end(), cpu) == busy_cpus.end()) {
      CPU_SET(cpu, &allowed);
    }
  }
  if (CPU_COUNT(&allowed) == 0) {
    for (int cpu : own) CPU_SET(cpu, &allowed);
  }
  int repinned = 0;
  ForEachProcessThread([&](pid_t tid, const std::string& name) {
    if (absl::StartsWith(name, "blkperf-sub") || absl::StartsWith(name, "iou-")) {
      return;
    }
    if (sched_setaffinity(tid, sizeof(allowed), &allowed) == 0) ++repinned;
  });
  return repinned;
}

}  // namespace blkperf
