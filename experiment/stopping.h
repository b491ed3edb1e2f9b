// The optional stopping rule (--until=decided --max_rounds=N): add rounds
// until every arm's headline verdict is decided, without letting the
// repeated looks raise the false-verdict rate above 1 - confidence.
//
// Looking at an interval after every round and stopping at the first
// verdict is "peeking": each look is another chance for noise to clear the
// margin, and the chances add up. The rule here fixes the looks in advance
// (rounds n0, then about 1.5x more each time, in whole blocks of two, up
// to max_rounds) and takes every look's interval at confidence
// 1 - (1 - c) / looks (Bonferroni): the chance that any look gives a false
// verdict is at most the sum, 1 - c. //experiment:stopping_test shows it on
// synthetic A/A data (and that peeking without it exceeds the level).
//
//   StoppingRule rule = MakeStoppingRule(/*min_rounds=*/10, /*max=*/40, 0.95);
//   // rule.looks == {10, 16, 24, 36, 40}; rule.look_confidence == 0.99
//   for (int done = 1; done <= 40; ++done) {
//     RunRound();
//     if (rule.IsLook(done) && Decided(Analyze(in at rule.look_confidence)))
//       break;
//   }
#ifndef BLKPERF_EXPERIMENT_STOPPING_H_
#define BLKPERF_EXPERIMENT_STOPPING_H_

#include <vector>

#include "experiment/analysis.h"

namespace blkperf {

struct StoppingRule {
  std::vector<int> looks;         // rounds after which to look, ascending
  double confidence = 0.95;       // the family's (--confidence)
  double look_confidence = 0.95;  // each look's: 1 - (1 - confidence) / looks
  bool IsLook(int rounds_done) const;
};

// Looks at min_rounds, then max(+2, x1.5) rounded up to even, capped at
// and ending with max_rounds. REQUIRES: 1 <= min_rounds <= max_rounds,
// 0 < confidence < 1.
StoppingRule MakeStoppingRule(int min_rounds, int max_rounds,
                              double confidence);

// True when every arm but the baseline has a headline verdict that is not
// inconclusive (faster, slower or equivalent).
bool Decided(const ExperimentResult& result);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_STOPPING_H_
