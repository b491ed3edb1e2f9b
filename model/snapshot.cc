#include "model/snapshot.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/units.h"

namespace blkperf {

std::string PreconditionProgressText(const PreconditionSummary& p) {
  const uint64_t per_pass = p.passes == 0 ? 0 : p.bytes_planned / p.passes;
  const uint64_t in_pass =
      p.bytes_written - std::min<uint64_t>(p.bytes_written,
                                           uint64_t{p.passes_done} * per_pass);
  const uint32_t pass = std::min(p.passes_done + 1, p.passes);
  const double percent =
      per_pass == 0 ? 0 : 100.0 * static_cast<double>(in_pass) / per_pass;
  if (p.complete) {
    return absl::StrCat("preconditioning done: ", p.passes, " passes, ",
                        FormatBytes(p.bytes_written), " written");
  }
  return absl::StrCat("preconditioning pass ", pass, "/", p.passes, ", ",
                      static_cast<int>(std::min(percent, 100.0)), " % (",
                      FormatBytes(p.bytes_written), " of ",
                      FormatBytes(p.bytes_planned), " written)");
}

absl::string_view WorkloadStateName(WorkloadState state) {
  switch (state) {
    case WorkloadState::kRamping: return "ramping";
    case WorkloadState::kRunning: return "running";
    case WorkloadState::kStopping: return "stopping";
    case WorkloadState::kFinished: return "finished";
    case WorkloadState::kStopped: return "stopped";
    case WorkloadState::kFailed: return "failed";
    case WorkloadState::kFinishedWithErrors: return "finished_with_errors";
    case WorkloadState::kArmed: return "armed";
    case WorkloadState::kAborted: return "aborted";
    case WorkloadState::kCreating: return "creating";
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
  io_worker_cpu_seconds += other.io_worker_cpu_seconds;
  late_ios += other.late_ios;
  trim_ios += other.trim_ios;
  trim_bytes += other.trim_bytes;
  sync_ios += other.sync_ios;
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
  batch_turns = batch_turns || other.batch_turns;
  latency.Merge(other.latency);
  submit_latency.Merge(other.submit_latency);
  completion_latency.Merge(other.completion_latency);
  intended_latency.Merge(other.intended_latency);
  issue_lag.Merge(other.issue_lag);
}

void ThreadSnapshot::Subtract(const ThreadSnapshot& earlier) {
  auto minus = [](uint64_t& a, uint64_t b) { a = a > b ? a - b : 0; };
  minus(ios, earlier.ios);
  minus(bytes, earlier.bytes);
  minus(read_ios, earlier.read_ios);
  minus(read_bytes, earlier.read_bytes);
  minus(write_ios, earlier.write_ios);
  minus(write_bytes, earlier.write_bytes);
  minus(sqes, earlier.sqes);
  minus(enter_calls, earlier.enter_calls);
  minus(cache_hits, earlier.cache_hits);
  minus(cache_misses, earlier.cache_misses);
  minus(late_ios, earlier.late_ios);
  minus(trim_ios, earlier.trim_ios);
  minus(trim_bytes, earlier.trim_bytes);
  minus(sync_ios, earlier.sync_ios);
  user_cpu_seconds -= earlier.user_cpu_seconds;
  system_cpu_seconds -= earlier.system_cpu_seconds;
  io_worker_cpu_seconds -= earlier.io_worker_cpu_seconds;
  for (const ErrorCount& e : earlier.errors) {
    for (ErrorCount& mine : errors) {
      if (mine.errno_value == e.errno_value) minus(mine.count, e.count);
    }
  }
  std::erase_if(errors, [](const ErrorCount& e) { return e.count == 0; });
  latency.Subtract(earlier.latency);
  submit_latency.Subtract(earlier.submit_latency);
  completion_latency.Subtract(earlier.completion_latency);
  intended_latency.Subtract(earlier.intended_latency);
  issue_lag.Subtract(earlier.issue_lag);
}

double ThreadSnapshot::Iops(absl::Duration elapsed) const {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(ios) / seconds : 0;
}

double ThreadSnapshot::BytesPerSecond(absl::Duration elapsed) const {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
}

double ThreadSnapshot::MeanInflight(absl::Duration elapsed) const {
  return Iops(elapsed) * latency.Mean() / 1e9;
}

double ThreadSnapshot::IosPerCall() const {
  return enter_calls > 0
             ? static_cast<double>(ios) / static_cast<double>(enter_calls)
             : 0;
}

}  // namespace blkperf
