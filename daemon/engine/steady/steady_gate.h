// Steady state's gate mode (WorkloadSpec::steady_state, mode gate): the
// submitters count from the start of measuring as always (nothing changes
// on the hot path); when the series thread finds steady state it keeps
// every thread's totals at that tick, and snapshots report the difference,
// so the measured totals, histograms, CPU and groups begin at attainment.
// Not attained: the totals are empty, never the unsteady data.
//
//   SteadyGate gate;                      // guarded by the workload
//   gate.Attain(at_ns, thread_totals);    // the series thread, once
//   ApplySteadyGate(gate, end_ns, &snapshot);  // each Snapshot()
#ifndef BLKPERF_DAEMON_ENGINE_STEADY_STEADY_GATE_H_
#define BLKPERF_DAEMON_ENGINE_STEADY_STEADY_GATE_H_

#include <cstdint>
#include <vector>

#include "model/snapshot.h"

namespace blkperf {

struct SteadyGate {
  bool attained = false;
  int64_t at_ns = 0;  // CLOCK_MONOTONIC: where measuring begins
  // Each submitter's cumulative totals at `at_ns`, in thread order.
  std::vector<ThreadSnapshot> baseline;

  void Attain(int64_t at, std::vector<ThreadSnapshot> threads) {
    attained = true;
    at_ns = at;
    baseline = std::move(threads);
  }
};

// Rebases snapshot->threads (and total, elapsed) on the gate: each thread
// less its baseline, elapsed from at_ns to `end_ns`; everything zero (and
// elapsed 0) while not attained. In-flight counts stay as read. Call
// before groups are filled from the threads.
void ApplySteadyGate(const SteadyGate& gate, int64_t end_ns,
                     WorkloadSnapshot* snapshot);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_STEADY_STEADY_GATE_H_
