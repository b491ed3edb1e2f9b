#include "daemon/metrics/process_collector.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "prometheus/client_metric.h"
#include "prometheus/metric_type.h"

namespace blkperf {
namespace {

using ::prometheus::ClientMetric;
using ::prometheus::MetricFamily;
using ::prometheus::MetricType;

// 1-based field numbers of proc(5) /proc/pid/stat.
constexpr int kUtime = 14;
constexpr int kStime = 15;
constexpr int kNumThreads = 20;
constexpr int kStartTime = 22;
constexpr int kVsize = 23;
constexpr int kRss = 24;

bool ReadFile(const char* path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

MetricFamily Gauge(std::string name, std::string help, double value,
                   std::vector<ClientMetric::Label> labels = {}) {
  MetricFamily family{std::move(name), std::move(help), MetricType::Gauge, {}};
  ClientMetric& m = family.metric.emplace_back();
  m.label = std::move(labels);
  m.gauge.value = value;
  return family;
}

}  // namespace

absl::StatusOr<ProcessStat> ParseProcessStat(absl::string_view text,
                                             int64_t clock_ticks_per_second,
                                             int64_t page_bytes) {
  // "pid (comm) state ppid ...": comm may hold ") ", so split after the
  // last ')'. Field 3 (state) is then the first.
  const size_t close = text.rfind(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        "/proc/self/stat: no ')' closing the command name");
  }
  const std::vector<absl::string_view> fields =
      absl::StrSplit(text.substr(close + 1), ' ', absl::SkipWhitespace());
  const auto field = [&](int number, int64_t* value) -> absl::Status {
    const size_t index = static_cast<size_t>(number - 3);
    if (index >= fields.size() || !absl::SimpleAtoi(fields[index], value)) {
      return absl::InvalidArgumentError(absl::StrCat("/proc/self/stat: field ",
                                                     number,
                                                     " missing or not "
                                                     "a number"));
    }
    return absl::OkStatus();
  };
  int64_t utime = 0, stime = 0, threads = 0, start = 0, vsize = 0, rss = 0;
  for (const auto& [number, value] :
       {std::pair{kUtime, &utime}, std::pair{kStime, &stime},
        std::pair{kNumThreads, &threads}, std::pair{kStartTime, &start},
        std::pair{kVsize, &vsize}, std::pair{kRss, &rss}}) {
    if (absl::Status s = field(number, value); !s.ok()) return s;
  }
  const double ticks = static_cast<double>(clock_ticks_per_second);
  ProcessStat stat;
  stat.user_cpu_seconds = static_cast<double>(utime) / ticks;
  stat.system_cpu_seconds = static_cast<double>(stime) / ticks;
  stat.threads = threads;
  stat.start_seconds_after_boot = static_cast<double>(start) / ticks;
  stat.virtual_memory_bytes = static_cast<uint64_t>(vsize);
  stat.resident_memory_bytes =
      static_cast<uint64_t>(rss) * static_cast<uint64_t>(page_bytes);
  return stat;
}

absl::StatusOr<int64_t> ParseBootTime(absl::string_view proc_stat) {
  for (absl::string_view line : absl::StrSplit(proc_stat, '\n')) {
    if (!absl::ConsumePrefix(&line, "btime ")) continue;
    int64_t seconds = 0;
    if (absl::SimpleAtoi(line, &seconds)) return seconds;
    break;
  }
  return absl::InvalidArgumentError("/proc/stat: no valid btime line");
}

ProcessCollector::ProcessCollector(std::string daemon_version)
    : daemon_version_(std::move(daemon_version)) {}

std::vector<MetricFamily> ProcessCollector::Collect() const {
  std::vector<MetricFamily> families;
  families.push_back(Gauge("blkperf_build_info",
                           "Always 1: the version of the running blkperfd.",
                           1.0, {{"version", daemon_version_}}));
  std::string text;
  if (!ReadFile("/proc/self/stat", &text)) return families;
  const absl::StatusOr<ProcessStat> stat =
      ParseProcessStat(text, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
  if (!stat.ok()) return families;

  MetricFamily cpu{"blkperf_process_cpu_seconds_total",
                   "CPU time of the blkperfd process, all threads.",
                   MetricType::Counter,
                   {}};
  for (const auto& [mode, seconds] :
       {std::pair{"user", stat->user_cpu_seconds},
        std::pair{"system", stat->system_cpu_seconds}}) {
    ClientMetric& m = cpu.metric.emplace_back();
    m.label = {{"mode", mode}};
    m.counter.value = seconds;
  }
  families.push_back(std::move(cpu));
  families.push_back(
      Gauge("blkperf_process_resident_memory_bytes",
            "Resident memory of the blkperfd process (I/O buffers included).",
            static_cast<double>(stat->resident_memory_bytes)));
  families.push_back(Gauge("blkperf_process_virtual_memory_bytes",
                           "Virtual memory size of the blkperfd process.",
                           static_cast<double>(stat->virtual_memory_bytes)));
  families.push_back(Gauge("blkperf_process_threads",
                           "Threads of the blkperfd process.",
                           static_cast<double>(stat->threads)));
  if (ReadFile("/proc/stat", &text)) {
    if (const absl::StatusOr<int64_t> boot = ParseBootTime(text); boot.ok()) {
      families.push_back(
          Gauge("blkperf_process_start_time_seconds",
                "When the blkperfd process started, Unix time.",
                static_cast<double>(*boot) + stat->start_seconds_after_boot));
    }
  }
  return families;
}

}  // namespace blkperf
