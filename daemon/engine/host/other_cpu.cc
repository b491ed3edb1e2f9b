#include "daemon/engine/host/other_cpu.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace blkperf {

absl::StatusOr<std::vector<CpuTicks>> ParseCpuTicks(absl::string_view text) {
  std::vector<CpuTicks> cpus;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "cpu") || line.size() < 4 ||
        !(line[3] >= '0' && line[3] <= '9')) {
      continue;
    }
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    int cpu = 0;
    if (fields.size() < 9 || !absl::SimpleAtoi(fields[0].substr(3), &cpu) ||
        cpu < 0 || cpu > 65535) {
      continue;
    }
    // user nice system idle iowait irq softirq steal
    uint64_t v[8] = {};
    bool ok = true;
    for (int i = 0; i < 8; ++i) ok &= absl::SimpleAtoi(fields[1 + i], &v[i]);
    if (!ok) continue;
    if (cpus.size() <= static_cast<size_t>(cpu)) cpus.resize(cpu + 1);
    cpus[cpu].busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    cpus[cpu].total = cpus[cpu].busy + v[3] + v[4];
  }
  if (cpus.empty()) {
    return absl::InvalidArgumentError("/proc/stat: no cpuN line");
  }
  return cpus;
}

absl::StatusOr<std::vector<CpuTicks>> ReadCpuTicks() {
  std::ifstream in("/proc/stat");
  if (!in) return absl::UnavailableError("/proc/stat cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return ParseCpuTicks(text.str());
}

double OtherCpuShare(const std::vector<CpuTicks>& before,
                     const std::vector<CpuTicks>& after,
                     const std::vector<int>& cpus, double own_cpu_seconds,
                     double ticks_per_second) {
  double busy = 0, total = 0;
  for (int cpu : cpus) {
    const size_t c = static_cast<size_t>(cpu);
    if (cpu < 0 || c >= before.size() || c >= after.size()) continue;
    // Less the one tick the two readings can round this CPU's count by.
    busy += static_cast<double>(after[c].busy - before[c].busy) - 1;
    total += static_cast<double>(after[c].total - before[c].total);
  }
  if (!(total > 0)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(0.0, (busy - own_cpu_seconds * ticks_per_second) / total);
}

double SubmitterCpusOtherShare(const WorkloadSnapshot& run,
                               const std::vector<CpuTicks>& before,
                               const std::vector<CpuTicks>& after,
                               double own_cpu_seconds) {
  std::vector<int> cpus;
  for (const ThreadSnapshot& t : run.threads) {
    if (t.cpu >= 0 && std::find(cpus.begin(), cpus.end(), t.cpu) == cpus.end()) {
      cpus.push_back(t.cpu);
    }
  }
  return OtherCpuShare(before, after, cpus, own_cpu_seconds,
                       static_cast<double>(sysconf(_SC_CLK_TCK)));
}

}  // namespace blkperf
