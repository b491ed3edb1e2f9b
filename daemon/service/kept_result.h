// What the daemon keeps of a finished workload, bounded: every phase holds
// five latency histograms (a ThreadSnapshot, ~92 KiB). The engine reports
// at most kMaxReportedPhases (64) phases, the later ones merged
// (daemon/engine/phase/phase_report.h), so this is a second guard: past
// kMaxKeptPhases the later phases are merged into the last kept one, with
// a note saying which; the A/B medians were computed by the engine over
// every slice before, so they stay exact.
//
//   WorkloadSnapshot final_snapshot = workload->Snapshot();
//   BoundForKeeping(final_snapshot);   // at most kMaxKeptPhases phases
//
// Per kept workload that bounds the histograms to (1 + threads +
// kMaxKeptPhases) ThreadSnapshots of ~92 KiB: about 6 MiB for one thread,
// 29 MiB at the engine's 256-thread limit (bench/RESULTS.md has the
// measured heap).
#ifndef BLKPERF_DAEMON_SERVICE_KEPT_RESULT_H_
#define BLKPERF_DAEMON_SERVICE_KEPT_RESULT_H_

#include <cstddef>

#include "model/snapshot.h"

namespace blkperf {

inline constexpr size_t kMaxKeptPhases = 64;

// Merges phases [kMaxKeptPhases - 1, end) of `snapshot` into one phase
// (strategy "merged: a, b", summed counters, spanning their time) and adds a
// note naming the merged range. Totals over phases stay equal to the
// workload's. No-op with kMaxKeptPhases phases or fewer.
void BoundForKeeping(WorkloadSnapshot& snapshot);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_KEPT_RESULT_H_
