// A distribution-free confidence interval on a percentile of measured
// latencies, from order statistics: with n samples, the number B of them
// below the true p-th percentile is Binomial(n, p/100), so the sorted
// samples of ranks `lower` and `upper` bracket the true percentile with
// probability P(lower <= B < upper) >= the confidence. At p99 the interval
// is wide when few samples lie in the tail (100 samples: the upper rank is
// past the largest sample, no upper bound).
//
//   PercentileInterval ci = PercentileIntervalOf(step_histogram, 99, 0.95);
//   if (ci.bounded_above && target.Met(ci.high_ns)) ...  // met
//   else if (!target.Met(ci.low_ns)) ...                  // missed
//   else ...                                              // undecided
#ifndef BLKPERF_MODEL_PERCENTILE_INTERVAL_H_
#define BLKPERF_MODEL_PERCENTILE_INTERVAL_H_

#include <cstdint>

#include "model/histogram.h"

namespace blkperf {

// 1-based ranks in sorted order. lower == 0: no sample is low enough (the
// interval is open below); upper == n + 1: none is high enough (open above).
struct RankInterval {
  uint64_t lower = 0;
  uint64_t upper = 0;
};

// The ranks, exact from the binomial distribution: `lower` the largest k
// with P(B <= k - 1) <= alpha/2, `upper` the smallest k with P(B >= k) <=
// alpha/2, alpha = 1 - confidence. REQUIRES: 0 < confidence < 1.
RankInterval PercentileRanks(uint64_t n, double p, double confidence);

struct PercentileInterval {
  uint64_t samples = 0;       // n
  uint64_t tail_samples = 0;  // samples above the percentile's rank
  uint64_t low_ns = 0;        // 0 when open below
  uint64_t high_ns = 0;       // Max() when open above
  bool bounded_above = false; // false: the true percentile may exceed Max()
  double confidence = 0;
};

// The interval of histogram `h`'s p-th percentile: the values of the ranks
// above (bucket midpoints clamped to [Min(), Max()], as Percentile()).
PercentileInterval PercentileIntervalOf(const LatencyHistogram& h, double p,
                                        double confidence);

}  // namespace blkperf

#endif  // BLKPERF_MODEL_PERCENTILE_INTERVAL_H_
