#include "experiment/stopping.h"

#include <algorithm>
#include <cmath>

namespace blkperf {

bool StoppingRule::IsLook(int rounds_done) const {
  return std::binary_search(looks.begin(), looks.end(), rounds_done);
}

StoppingRule MakeStoppingRule(int min_rounds, int max_rounds,
                              double confidence) {
  StoppingRule rule;
  rule.confidence = confidence;
  for (int n = min_rounds; n < max_rounds;) {
    rule.looks.push_back(n);
    int next = std::max(n + 2, static_cast<int>(std::ceil(1.5 * n)));
    next += next % 2;  // whole blocks of two rounds (ABBA)
    n = next;
  }
  rule.looks.push_back(max_rounds);
  rule.look_confidence =
      1 - (1 - confidence) / static_cast<double>(rule.looks.size());
  return rule;
}

bool Decided(const ExperimentResult& result) {
  for (const ArmResult& arm : result.arms) {
    if (arm.baseline) continue;
    const MetricResult& headline =
        arm.metrics[static_cast<size_t>(result.input.headline)];
    if (!headline.comparable || arm.verdict == Verdict::kInconclusive) {
      return false;
    }
  }
  return true;
}

}  // namespace blkperf
