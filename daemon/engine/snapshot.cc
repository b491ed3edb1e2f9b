#include "daemon/engine/snapshot.h"

#include <algorithm>

namespace blkperf {

absl::string_view WorkloadStateName(WorkloadState state) {
  switch (state) {
    case WorkloadState::kRamping: return "ramping";
    case WorkloadState::kRunning: return "running";
    case WorkloadState::kStopping: return "stopping";
    case WorkloadState::kFinished: return "finished";
    case WorkloadState::kStopped: return "stopped";
    case WorkloadState::kFailed: return "failed";
  }
  return "unknown";
}

uint64_t ThreadSnapshot::ErrorTotal() const {
  uint64_t total = 0;
  for (const ErrorCount& e : errors) total += e.count;
  return total;
}

void ThreadSnapshot::Merge(const ThreadSnapshot& other) {
  ios += other.ios;
  bytes += other.bytes;
  read_ios += other.read_ios;
  read_bytes += other.read_bytes;
  write_ios += other.write_ios;
  write_bytes += other.write_bytes;
  sqes += other.sqes;
  enter_calls += other.enter_calls;
  inflight += other.inflight;
  cache_hits += other.cache_hits;
  cache_misses += other.cache_misses;
  user_cpu_seconds += other.user_cpu_seconds;
  system_cpu_seconds += other.system_cpu_seconds;
  for (const ErrorCount& e : other.errors) {
    auto it = std::find_if(errors.begin(), errors.end(), [&](const ErrorCount& x) {
      return x.errno_value == e.errno_value;
    });
    if (it == errors.end()) {
      errors.push_back(e);
    } else {
      it->count += e.count;
    }
  }
  latency.Merge(other.latency);
}

double ThreadSnapshot::Iops(absl::Duration elapsed) const {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(ios) / seconds : 0;
}

double ThreadSnapshot::BytesPerSecond(absl::Duration elapsed) const {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
}

double ThreadSnapshot::IosPerCall() const {
  return enter_calls > 0
             ? static_cast<double>(ios) / static_cast<double>(enter_calls)
             : 0;
}

}  // namespace blkperf
