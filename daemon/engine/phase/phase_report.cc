#include "daemon/engine/phase/phase_report.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace blkperf {
namespace {

// The phases' clock: an instant clamped into the measured window.
struct Window {
  int64_t start_ns;
  int64_t end_ns;
  int64_t Clamp(int64_t t) const {
    return std::clamp(t, start_ns, std::max(start_ns, end_ns));
  }
  absl::Duration Since(int64_t t) const {
    return absl::Nanoseconds(Clamp(t) - start_ns);
  }
};

// Where phase `i` ends: the next boundary's instant, or the window's end.
int64_t PhaseEnd(const PhaseBoundaries& b, size_t i, int64_t end_ns) {
  return i + 1 < b.size() ? b[i + 1]->at_ns : end_ns;
}

// The strategies of boundaries [first, end), each once, as one name.
std::string MergedStrategy(const PhaseBoundaries& b, size_t first) {
  std::vector<std::string> names;
  for (size_t i = first; i < b.size(); ++i) {
    std::string name = SplitStrategyName(b[i]->strategy);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names.size() == 1 ? names.front()
                           : absl::StrCat("merged: ", absl::StrJoin(names, ", "));
}

}  // namespace

std::shared_ptr<const PhaseBoundary> MakePhaseBoundary(
    size_t index, int64_t at_ns, const SplitStrategy& strategy,
    ThreadSnapshot totals, const DeviceCounters& device,
    std::string late_take_up) {
  auto b = std::make_shared<PhaseBoundary>();
  b->at_ns = at_ns;
  b->strategy = strategy;
  b->ios = totals.ios;
  b->bytes = totals.bytes;
  if (index < kMaxReportedPhases) {
    b->totals = std::make_shared<const ThreadSnapshot>(std::move(totals));
  }
  b->device = device;
  b->late_take_up = std::move(late_take_up);
  return b;
}

std::shared_ptr<PhaseBoundary> FirstPhaseBoundary(int64_t at_ns) {
  auto b = std::make_shared<PhaseBoundary>();
  b->at_ns = at_ns;
  b->totals = std::make_shared<const ThreadSnapshot>();
  return b;
}

DeviceCounters DeviceDelta(const DeviceCounters& from, const DeviceCounters& to,
                           uint64_t sqes) {
  DeviceCounters delta;
  delta.available = from.available && to.available;
  if (!delta.available) return delta;
  delta.requests = to.requests - std::min(to.requests, from.requests);
  delta.merges = to.merges - std::min(to.merges, from.merges);
  delta.sectors = to.sectors - std::min(to.sectors, from.sectors);
  delta.requests_per_sqe =
      sqes != 0 ? static_cast<double>(delta.requests) / sqes : 0;
  return delta;
}

void ReportPhases(const PhaseBoundaries& b, int64_t measure_start_ns,
                  int64_t end_ns, const DeviceCounters& device_now,
                  WorkloadSnapshot* snapshot) {
  const Window window{measure_start_ns, end_ns};
  const size_t reported = std::min(b.size(), kMaxReportedPhases);
  for (size_t i = 0; i < reported; ++i) {
    // The last reported phase runs to the end, through any merged ones.
    const bool last = i + 1 == reported;
    PhaseSnapshot phase;
    phase.index = static_cast<int>(i);
    phase.strategy = last ? MergedStrategy(b, i)
                          : SplitStrategyName(b[i]->strategy);
    phase.total = last ? snapshot->total : *b[i + 1]->totals;
    phase.total.Subtract(*b[i]->totals);
    if (!last) phase.total.inflight = 0;
    phase.start = window.Since(b[i]->at_ns);
    phase.end = window.Since(last ? end_ns : b[i + 1]->at_ns);
    phase.elapsed = phase.end - phase.start;
    phase.device = DeviceDelta(b[i]->device,
                               last ? device_now : b[i + 1]->device,
                               phase.total.sqes);
    snapshot->phases.push_back(std::move(phase));
  }
  snapshot->phases_total = static_cast<int>(b.size());
  if (b.size() > reported) {
    snapshot->notes.push_back(absl::StrCat(
        "phases ", reported - 1, "..", b.size() - 1, " (",
        b.size() - reported + 1, " phases) are reported merged into phase ",
        reported - 1, ": a workload reports at most ", kMaxReportedPhases,
        " phases (A/B medians cover every slice)"));
  }
  if (!b.empty()) {
    snapshot->device =
        DeviceDelta(b[0]->device, device_now, snapshot->total.sqes);
  }
}

double PhaseRate::Iops() const {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(ios) / seconds : 0;
}

double PhaseRate::BytesPerSecond() const {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
}

std::vector<PhaseRate> PhaseRates(const PhaseBoundaries& b,
                                  int64_t measure_start_ns, int64_t end_ns,
                                  const ThreadSnapshot& total) {
  const Window window{measure_start_ns, end_ns};
  std::vector<PhaseRate> rates;
  rates.reserve(b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    const bool last = i + 1 == b.size();
    PhaseRate rate;
    rate.strategy = SplitStrategyName(b[i]->strategy);
    rate.elapsed = window.Since(PhaseEnd(b, i, end_ns)) -
                   window.Since(b[i]->at_ns);
    const uint64_t ios = last ? total.ios : b[i + 1]->ios;
    const uint64_t bytes = last ? total.bytes : b[i + 1]->bytes;
    rate.ios = ios - std::min(ios, b[i]->ios);
    rate.bytes = bytes - std::min(bytes, b[i]->bytes);
    rates.push_back(std::move(rate));
  }
  return rates;
}

}  // namespace blkperf
