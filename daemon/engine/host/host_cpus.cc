#include "daemon/engine/host/host_cpus.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace blkperf {
namespace {

// The calling thread's affinity mask, ascending; empty when unreadable.
std::vector<int> ThreadAffinityCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  return cpus;
}

// Read while the program loads, on its first thread, before main() starts
// any other or anything re-pins one.
[[maybe_unused]] const bool kStartupMaskRead =
    (static_cast<void>(StartupAffinityCpus()), true);

}  // namespace

const std::vector<int>& StartupAffinityCpus() {
  static const std::vector<int>* const mask =
      new std::vector<int>(ThreadAffinityCpus());
  return *mask;
}

std::vector<int> OnlineCpus() {
  std::vector<int> cpus;
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string line;
  if (in && std::getline(in, line)) {
    for (absl::string_view range : absl::StrSplit(line, ',')) {
      std::vector<absl::string_view> ends = absl::StrSplit(range, '-');
      int lo = 0, hi = 0;
      if (ends.empty() || !absl::SimpleAtoi(ends[0], &lo)) continue;
      hi = lo;
      if (ends.size() == 2 && !absl::SimpleAtoi(ends[1], &hi)) continue;
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    }
  }
  if (cpus.empty()) cpus = StartupAffinityCpus();
  if (cpus.empty()) cpus = {0};  // every Linux machine has a CPU 0
  return cpus;
}

std::vector<int> PlacementCpus(const std::vector<int>& online,
                               const std::vector<int>& allowed) {
  std::vector<int> both;
  std::set_intersection(online.begin(), online.end(), allowed.begin(),
                        allowed.end(), std::back_inserter(both));
  return both.empty() ? online : both;
}

HostCpus CurrentHostCpus() {
  HostCpus cpus;
  cpus.online = OnlineCpus();
  cpus.placement = PlacementCpus(cpus.online, StartupAffinityCpus());
  return cpus;
}

void FillDefaultCpus(const std::vector<int>& placement, uint32_t threads,
                     std::vector<int>* cpus) {
  if (placement.empty()) return;
  for (size_t i = cpus->size(); i < threads; ++i) {
    cpus->push_back(placement[i % placement.size()]);
  }
}

}  // namespace blkperf
