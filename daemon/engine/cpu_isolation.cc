#include "daemon/engine/cpu_isolation.h"

#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/engine/spec_validation.h"

namespace blkperf {

int KeepControlThreadsOff(const std::vector<int>& busy_cpus) {
  const std::vector<int> online = OnlineCpus();
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  for (int cpu : online) {
    if (std::find(busy_cpus.begin(), busy_cpus.end(), cpu) == busy_cpus.end()) {
      CPU_SET(cpu, &allowed);
    }
  }
  if (CPU_COUNT(&allowed) == 0) {
    for (int cpu : online) CPU_SET(cpu, &allowed);
  }
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  int repinned = 0;
  while (dirent* entry = readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(atoi(entry->d_name));
    if (tid <= 0) continue;
    std::ifstream comm(absl::StrCat("/proc/self/task/", tid, "/comm"));
    std::string name;
    if (!comm || !std::getline(comm, name)) continue;
    if (absl::StartsWith(name, "blkperf-sub") || absl::StartsWith(name, "iou-")) {
      continue;
    }
    if (sched_setaffinity(tid, sizeof(allowed), &allowed) == 0) ++repinned;
  }
  closedir(dir);
  return repinned;
}

}  // namespace blkperf
