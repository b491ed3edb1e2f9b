// A workload's phases (one per period of a split strategy) as a snapshot
// reports them, built from the boundaries the engine records at each
// switch, in bounded memory.
//
// A boundary keeps every counter and histogram (a ThreadSnapshot, five
// histograms, ~92 KiB) only for the first kMaxReportedPhases phases; later
// boundaries keep their instant, strategy, I/O and byte counts, device
// counters and note (~200 bytes), and their phases are reported merged
// into phase kMaxReportedPhases - 1 (strategy "merged: a, b", a note in
// the snapshot says which), as the daemon keeps a finished workload's.
// A/B medians and pairs use every phase's counts (PhaseRates), so they
// cover every slice however many there are. A running workload of 1024
// phases (1023 live switches, or A/B's limit) thus holds ~6 MiB of phase
// boundaries instead of ~95 MiB, and each snapshot of it 64 phases.
//
//   std::shared_ptr<const PhaseBoundary> b = MakePhaseBoundary(
//       index, at_ns, strategy, boundary_totals, device_counters);
//   ...
//   ReportPhases(boundaries, measure_start_ns, end_ns, device_now,
//                &snapshot);   // snapshot.total already filled
//   std::vector<PhaseRate> rates =
//       PhaseRates(boundaries, measure_start_ns, end_ns, snapshot.total);
#ifndef BLKPERF_DAEMON_ENGINE_PHASE_PHASE_REPORT_H_
#define BLKPERF_DAEMON_ENGINE_PHASE_PHASE_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "model/snapshot.h"
#include "model/split_strategy.h"

namespace blkperf {

// Phases a snapshot reports at most; boundaries keeping histograms.
inline constexpr size_t kMaxReportedPhases = 64;

// Where a phase starts: a split switch (or the start of measuring).
struct PhaseBoundary {
  int64_t at_ns = 0;  // CLOCK_MONOTONIC
  SplitStrategy strategy;
  // Completed I/Os and their bytes at the boundary.
  uint64_t ios = 0;
  uint64_t bytes = 0;
  // Every counter and histogram at the boundary: boundaries
  // [0, kMaxReportedPhases) only, null after.
  std::shared_ptr<const ThreadSnapshot> totals;
  DeviceCounters device;  // cumulative device counters at the boundary
  // Empty, or which thread's counts were read before it took the switch
  // up and how long after the publication.
  std::string late_take_up;
};
// Shared and immutable once made, so that a snapshot copies pointers under
// the lock a switch takes.
using PhaseBoundaries = std::vector<std::shared_ptr<const PhaseBoundary>>;

// Boundary number `index` (0: where measuring starts) at `totals`; keeps
// `totals` whole only when index < kMaxReportedPhases.
std::shared_ptr<const PhaseBoundary> MakePhaseBoundary(
    size_t index, int64_t at_ns, const SplitStrategy& strategy,
    ThreadSnapshot totals, const DeviceCounters& device,
    std::string late_take_up = "");

// Boundary 0, where measuring starts at `at_ns`: every counter zero, its
// histograms allocated here (before the instant, not at it); the caller
// sets strategy and device when the first phase opens.
std::shared_ptr<PhaseBoundary> FirstPhaseBoundary(int64_t at_ns);

// The device's activity between two readings; requests per SQE over
// `sqes`. Not available unless both readings are.
DeviceCounters DeviceDelta(const DeviceCounters& from, const DeviceCounters& to,
                           uint64_t sqes);

// Fills snapshot->phases (and snapshot->device, snapshot->phases_total)
// from `boundaries`: each phase's counters are the next boundary's less its
// own (the last's, snapshot->total less its own), its time clamped to
// [measure_start_ns, end_ns] so the phases tile the measured time. Phases
// from kMaxReportedPhases - 1 on are reported as one, with a note added to
// snapshot->notes. REQUIRES: boundaries not empty, the first
// kMaxReportedPhases with totals; snapshot->total the totals at end_ns.
void ReportPhases(const PhaseBoundaries& boundaries, int64_t measure_start_ns,
                  int64_t end_ns, const DeviceCounters& device_now,
                  WorkloadSnapshot* snapshot);

// One phase's time and counts, merged or not: what A/B medians need.
struct PhaseRate {
  std::string strategy;  // SplitStrategyName
  absl::Duration elapsed;
  uint64_t ios = 0;
  uint64_t bytes = 0;
  double Iops() const;
  double BytesPerSecond() const;
};

// Every phase of `boundaries`, timed as ReportPhases times them; `total`
// the totals at end_ns.
std::vector<PhaseRate> PhaseRates(const PhaseBoundaries& boundaries,
                                  int64_t measure_start_ns, int64_t end_ns,
                                  const ThreadSnapshot& total);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_PHASE_PHASE_REPORT_H_
