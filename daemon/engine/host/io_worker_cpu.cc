#include "daemon/engine/host/io_worker_cpu.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "daemon/engine/host/process_threads.h"

namespace blkperf::internal {
namespace {

// The submitter id in "iou-wrk-<tid>" or "iou-sqp-<tid>", or 0.
pid_t OwnerOf(const std::string& name) {
  absl::string_view rest = name;
  if (!absl::ConsumePrefix(&rest, "iou-wrk-") &&
      !absl::ConsumePrefix(&rest, "iou-sqp-")) {
    return 0;
  }
  int owner = 0;
  return absl::SimpleAtoi(rest, &owner) && owner > 0 ? owner : 0;
}

}  // namespace

bool ReadTaskCpu(pid_t tid, double* user_seconds, double* system_seconds) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return false;
  // Fields after the parenthesized command name; it may contain spaces.
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 > text.size()) return false;
  std::istringstream rest(text.substr(paren + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  // Field 3 is state; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14 && !absl::SimpleAtoi(field, &utime)) return false;
    if (i == 15 && !absl::SimpleAtoi(field, &stime)) return false;
  }
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  *user_seconds = utime / tick;
  *system_seconds = stime / tick;
  return true;
}

void IoWorkerCpu::Sample(absl::Span<const pid_t> owners) {
  const absl::flat_hash_set<pid_t> wanted(owners.begin(), owners.end());
  std::vector<Reading> readings;
  ForEachProcessThread([&](pid_t task, const std::string& name) {
    const pid_t owner = OwnerOf(name);
    double user = 0, system = 0;
    if (owner != 0 && wanted.contains(owner) &&
        ReadTaskCpu(task, &user, &system)) {
      readings.push_back({task, owner, user + system});
    }
  });
  Update(owners, readings);
}

void IoWorkerCpu::Update(absl::Span<const pid_t> owners,
                         absl::Span<const Reading> readings) {
  const absl::flat_hash_set<pid_t> looked_for(owners.begin(), owners.end());
  PiMutexLock lock(&mu_);
  for (const Reading& r : readings) {
    auto [it, added] = live_.try_emplace(r.worker);
    Worker& w = it->second;
    if (!added && (w.owner != r.owner || r.seconds < w.seconds)) {
      exited_[w.owner] += w.seconds;  // the id now names a new worker
    }
    w = Worker{r.owner, r.seconds, /*seen=*/true};
  }
  for (auto it = live_.begin(); it != live_.end();) {
    Worker& w = it->second;
    if (w.seen || !looked_for.contains(w.owner)) {
      w.seen = false;
      ++it;
      continue;
    }
    exited_[w.owner] += w.seconds;
    live_.erase(it++);
  }
}

double IoWorkerCpu::SecondsOf(pid_t owner) const {
  PiMutexLock lock(&mu_);
  const auto gone = exited_.find(owner);
  double total = gone == exited_.end() ? 0 : gone->second;
  for (const auto& [id, w] : live_) {
    if (w.owner == owner) total += w.seconds;
  }
  return total;
}

size_t IoWorkerCpu::live_workers() const {
  PiMutexLock lock(&mu_);
  return live_.size();
}

}  // namespace blkperf::internal
