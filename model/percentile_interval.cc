#include "model/percentile_interval.h"

#include <math.h>  // lgamma_r

#include <algorithm>
#include <cmath>
#include <vector>

namespace blkperf {
namespace {

// ln|Gamma(x)|, thread-safe: std::lgamma writes the global signgam, a data
// race when two threads (snapshots of two workloads) compute at once.
inline double LogGamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}


// The value of 1-based rank `rank` (1 <= rank <= Count()), as Percentile().
uint64_t ValueAtRank(const LatencyHistogram& h, uint64_t rank) {
  if (rank <= 1) return h.Min();
  if (rank >= h.Count()) return h.Max();
  uint64_t seen = 0;
  for (int i = 0; i < LatencyHistogram::kNumBuckets; ++i) {
    seen += h.BucketCount(i);
    if (seen >= rank) {
      return std::clamp(LatencyHistogram::BucketMidpoint(i), h.Min(), h.Max());
    }
  }
  return h.Max();
}

}  // namespace

RankInterval PercentileRanks(uint64_t n, double p, double confidence) {
  const double q = std::clamp(p / 100.0, 0.0, 1.0);
  const double half_alpha = (1.0 - confidence) / 2.0;
  if (n == 0) return {0, 1};
  if (q <= 0.0) return {0, 1};          // B is 0: below every sample
  if (q >= 1.0) return {n, n + 1};      // B is n: above every sample
  // The pmf over a window of +-(12 sd + 30) around the mean: the mass
  // outside is below 1e-20, far under any alpha.
  const double nn = static_cast<double>(n);
  const double mean = nn * q, sd = std::sqrt(nn * q * (1 - q));
  const double reach = 12 * sd + 30;
  const uint64_t from = static_cast<uint64_t>(std::max(0.0, std::floor(mean - reach)));
  const uint64_t to = static_cast<uint64_t>(std::min(nn, std::ceil(mean + reach)));
  const double log_n = LogGamma(nn + 1);
  const double log_q = std::log(q), log_1q = std::log1p(-q);
  std::vector<double> cdf;  // cdf[k - from] = P(B <= k)
  cdf.reserve(to - from + 1);
  double sum = 0;
  for (uint64_t k = from; k <= to; ++k) {
    const double kk = static_cast<double>(k);
    sum += std::exp(log_n - LogGamma(kk + 1) - LogGamma(nn - kk + 1) +
                    kk * log_q + (nn - kk) * log_1q);
    cdf.push_back(sum);
  }
  const auto at_most = [&](int64_t k) {  // P(B <= k)
    if (k < static_cast<int64_t>(from)) return 0.0;
    if (k >= static_cast<int64_t>(to)) return 1.0;
    return cdf[static_cast<size_t>(k) - from];
  };
  RankInterval r;
  // lower: the largest k with P(B <= k - 1) <= alpha/2.
  r.lower = 0;
  for (uint64_t k = from; k <= to + 1 && k <= n; ++k) {
    if (at_most(static_cast<int64_t>(k) - 1) <= half_alpha) r.lower = k;
    else break;
  }
  // upper: the smallest k with P(B >= k) = 1 - P(B <= k - 1) <= alpha/2.
  r.upper = n + 1;
  for (uint64_t k = std::max<uint64_t>(from, 1); k <= std::min(to + 1, n); ++k) {
    if (1.0 - at_most(static_cast<int64_t>(k) - 1) <= half_alpha) {
      r.upper = k;
      break;
    }
  }
  return r;
}

PercentileInterval PercentileIntervalOf(const LatencyHistogram& h, double p,
                                        double confidence) {
  PercentileInterval ci;
  ci.samples = h.Count();
  ci.confidence = confidence;
  if (ci.samples == 0) return ci;
  const double exact_rank =
      std::ceil(std::clamp(p, 0.0, 100.0) * static_cast<double>(ci.samples) / 100.0);
  const uint64_t rank = exact_rank < 1.0 ? 1 : static_cast<uint64_t>(exact_rank);
  ci.tail_samples = ci.samples - std::min(rank, ci.samples);
  const RankInterval r = PercentileRanks(ci.samples, p, confidence);
  ci.low_ns = r.lower == 0 ? 0 : ValueAtRank(h, r.lower);
  ci.bounded_above = r.upper <= ci.samples;
  ci.high_ns = ValueAtRank(h, std::min(r.upper, ci.samples));
  return ci;
}

}  // namespace blkperf
