#include "daemon/engine/host/process_threads.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace blkperf {

void ForEachProcessThread(
    absl::FunctionRef<void(pid_t tid, const std::string& name)> visit) {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(atoi(entry->d_name));
    if (tid <= 0) continue;
    std::ifstream comm(absl::StrCat("/proc/self/task/", tid, "/comm"));
    std::string name;
    if (!comm || !std::getline(comm, name)) continue;
    visit(tid, name);
  }
  closedir(dir);
}

}  // namespace blkperf
