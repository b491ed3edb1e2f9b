// Latency percentiles' ratios with intervals from resampled exact histogram
// merges. A round's p99 is not a sample whose median means much (a round
// of few slow I/Os has a p99 that is one of them); blkperf's histograms
// merge exactly, so the experiment's p99 of an arm is the p99 of all its
// rounds' I/Os, and the bootstrap resamples rounds (paired: the same
// rounds for arm and baseline), merges each side's drawn rounds and takes
// the ratio of their percentiles.
//
//   std::vector<CompactHistogram> a, b;  // per round, paired
//   a.push_back(CompactHistogram::Of(round_snapshot.total.latency));
//   std::vector<RatioEstimate> r =
//       PairedPercentileRatios(a, b, {50, 99, 99.9}, /*confidence=*/0.95);
//   // r[1].ratio: p99 of all of b's I/Os / p99 of all of a's, r[1].ci_lo ..
#ifndef BLKPERF_EXPERIMENT_LATENCY_BOOTSTRAP_H_
#define BLKPERF_EXPERIMENT_LATENCY_BOOTSTRAP_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "experiment/statistics.h"
#include "model/histogram.h"

namespace blkperf {

// A LatencyHistogram's non-empty buckets, count, min and max: what its
// percentiles depend on, in a few hundred bytes instead of 18 KiB.
struct CompactHistogram {
  std::vector<std::pair<int, uint64_t>> buckets;  // ascending bucket index
  uint64_t count = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  static CompactHistogram Of(const LatencyHistogram& histogram);
};

// Rounds' histograms laid out so that a percentile of any weighted merge
// costs O(rounds x log buckets): each round's cumulative counts over the
// union of the rounds' non-empty buckets.
class MergeableRounds {
 public:
  explicit MergeableRounds(const std::vector<CompactHistogram>& rounds);

  // What LatencyHistogram::Percentile(p) returns for the merge of the
  // rounds, round i merged weights[i] times (0: left out); exactly, as the
  // merge itself would (test: latency_bootstrap_test's naive twin).
  // REQUIRES: weights.size() == rounds.
  uint64_t Percentile(const std::vector<uint32_t>& weights, double p) const;

 private:
  std::vector<int> buckets_;                        // union, ascending
  std::vector<std::vector<uint64_t>> cumulative_;   // [round][k]
  std::vector<uint64_t> count_, min_, max_;         // per round
};

// For paired rounds of an arm and the baseline, per percentile p (in
// percent, e.g. 99.9): the ratio of the arm's merged-histogram percentile
// to the baseline's, and its two-sided expanded percentile-bootstrap
// interval at `confidence` (rounds drawn with replacement, the same for
// both sides; kBootstrapResamples resamples, generator mt19937_64 seeded
// kBootstrapSeed drawing `generator() % rounds` per draw; quantiles of the
// log ratios at ExpandedConfidence(confidence, rounds)). `samples` is the
// number of rounds. REQUIRES: baseline.size() == arm.size() >= 1, every
// round with a count > 0, 0 < confidence < 1.
std::vector<RatioEstimate> PairedPercentileRatios(
    const std::vector<CompactHistogram>& baseline,
    const std::vector<CompactHistogram>& arm,
    const std::vector<double>& percentiles, double confidence);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_LATENCY_BOOTSTRAP_H_
