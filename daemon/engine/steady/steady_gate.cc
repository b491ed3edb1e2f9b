#include "daemon/engine/steady/steady_gate.h"

#include <algorithm>
#include <cstdint>

#include "absl/time/time.h"

namespace blkperf {

void ApplySteadyGate(const SteadyGate& gate, int64_t end_ns,
                     WorkloadSnapshot* snapshot) {
  ThreadSnapshot total;
  total.batch_turns = snapshot->total.batch_turns;
  for (size_t i = 0; i < snapshot->threads.size(); ++i) {
    ThreadSnapshot& thread = snapshot->threads[i];
    if (gate.attained && i < gate.baseline.size()) {
      thread.Subtract(gate.baseline[i]);
    } else {
      const ThreadSnapshot all = thread;
      thread.Subtract(all);
    }
    total.Merge(thread);
  }
  snapshot->total = std::move(total);
  snapshot->elapsed =
      gate.attained
          ? absl::Nanoseconds(std::max<int64_t>(0, end_ns - gate.at_ns))
          : absl::ZeroDuration();
  if (gate.attained) snapshot->start.measure_start_monotonic_ns = gate.at_ns;
}

}  // namespace blkperf
