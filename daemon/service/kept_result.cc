#include "daemon/service/kept_result.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace blkperf {

void BoundForKeeping(WorkloadSnapshot& snapshot) {
  std::vector<PhaseSnapshot>& phases = snapshot.phases;
  if (phases.size() <= kMaxKeptPhases) return;
  const size_t first = kMaxKeptPhases - 1;
  PhaseSnapshot merged = phases[first];
  std::vector<std::string> strategies = {merged.strategy};
  for (size_t i = first + 1; i < phases.size(); ++i) {
    const PhaseSnapshot& p = phases[i];
    merged.total.Merge(p.total);
    merged.device.available &= p.device.available;
    merged.device.requests += p.device.requests;
    merged.device.merges += p.device.merges;
    merged.device.sectors += p.device.sectors;
    merged.end = p.end;
    if (std::find(strategies.begin(), strategies.end(), p.strategy) ==
        strategies.end()) {
      strategies.push_back(p.strategy);
    }
  }
  merged.elapsed = merged.end - merged.start;
  merged.device.requests_per_sqe =
      merged.total.sqes != 0
          ? static_cast<double>(merged.device.requests) / merged.total.sqes
          : 0;
  if (strategies.size() > 1) {
    merged.strategy = absl::StrCat("merged: ", absl::StrJoin(strategies, ", "));
  }
  snapshot.notes.push_back(absl::StrCat(
      "phases ", first, "..", phases.size() - 1, " (", phases.size() - first,
      " phases) are merged into phase ", first,
      ": the daemon keeps at most ", kMaxKeptPhases,
      " phases of a finished workload (A/B medians cover every slice)"));
  // A new vector, not resize(): the old one's capacity (histograms are
  // stored inline, ~18 KiB a phase) would stay allocated.
  std::vector<PhaseSnapshot> kept;
  kept.reserve(kMaxKeptPhases);
  for (size_t i = 0; i < first; ++i) kept.push_back(std::move(phases[i]));
  kept.push_back(std::move(merged));
  phases = std::move(kept);
}

}  // namespace blkperf
