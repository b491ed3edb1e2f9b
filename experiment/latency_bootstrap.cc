#include "experiment/latency_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace blkperf {

CompactHistogram CompactHistogram::Of(const LatencyHistogram& histogram) {
  CompactHistogram compact;
  compact.buckets = histogram.NonEmptyBuckets();
  compact.count = histogram.Count();
  compact.min_ns = histogram.Min();
  compact.max_ns = histogram.Max();
  return compact;
}

MergeableRounds::MergeableRounds(const std::vector<CompactHistogram>& rounds) {
  for (const CompactHistogram& round : rounds) {
    for (const auto& [index, count] : round.buckets) buckets_.push_back(index);
    count_.push_back(round.count);
    min_.push_back(round.min_ns);
    max_.push_back(round.max_ns);
  }
  std::sort(buckets_.begin(), buckets_.end());
  buckets_.erase(std::unique(buckets_.begin(), buckets_.end()), buckets_.end());
  for (const CompactHistogram& round : rounds) {
    std::vector<uint64_t> cumulative(buckets_.size(), 0);
    size_t next = 0;
    uint64_t seen = 0;
    for (size_t k = 0; k < buckets_.size(); ++k) {
      if (next < round.buckets.size() && round.buckets[next].first == buckets_[k]) {
        seen += round.buckets[next++].second;
      }
      cumulative[k] = seen;
    }
    cumulative_.push_back(std::move(cumulative));
  }
}

uint64_t MergeableRounds::Percentile(const std::vector<uint32_t>& weights,
                                     double p) const {
  uint64_t count = 0;
  uint64_t min = std::numeric_limits<uint64_t>::max(), max = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] == 0 || count_[i] == 0) continue;
    count += weights[i] * count_[i];
    min = std::min(min, min_[i]);
    max = std::max(max, max_[i]);
  }
  if (count == 0) return 0;
  // LatencyHistogram::Percentile's rank rule, step by step.
  if (!(p > 0.0)) p = 0.0;
  if (p > 100.0) p = 100.0;
  const double exact_rank = std::ceil(p * static_cast<double>(count) / 100.0);
  const uint64_t rank = exact_rank < 1.0 ? 1 : static_cast<uint64_t>(exact_rank);
  if (rank >= count) return max;
  if (rank == 1) return min;
  // The first bucket whose merged cumulative count reaches the rank.
  const auto merged_up_to = [&](size_t k) {
    uint64_t seen = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (weights[i] != 0) seen += weights[i] * cumulative_[i][k];
    }
    return seen;
  };
  size_t lo = 0, hi = buckets_.size() - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (merged_up_to(mid) >= rank) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return std::clamp(LatencyHistogram::BucketMidpoint(buckets_[lo]), min, max);
}

std::vector<RatioEstimate> PairedPercentileRatios(
    const std::vector<CompactHistogram>& baseline,
    const std::vector<CompactHistogram>& arm,
    const std::vector<double>& percentiles, double confidence) {
  const MergeableRounds a(baseline), b(arm);
  const size_t n = baseline.size();
  const auto log_ratio = [&](const std::vector<uint32_t>& weights, double p) {
    return std::log(static_cast<double>(b.Percentile(weights, p)) /
                    static_cast<double>(a.Percentile(weights, p)));
  };
  std::vector<RatioEstimate> estimates(percentiles.size());
  const std::vector<uint32_t> all(n, 1);
  for (size_t j = 0; j < percentiles.size(); ++j) {
    estimates[j].samples = static_cast<int>(n);
    estimates[j].ratio = std::exp(log_ratio(all, percentiles[j]));
  }
  std::vector<std::vector<double>> logs(
      percentiles.size(), std::vector<double>(kBootstrapResamples));
  std::mt19937_64 generator(kBootstrapSeed);
  std::vector<uint32_t> weights(n);
  for (int r = 0; r < kBootstrapResamples; ++r) {
    std::fill(weights.begin(), weights.end(), 0);
    for (size_t draw = 0; draw < n; ++draw) ++weights[generator() % n];
    for (size_t j = 0; j < percentiles.size(); ++j) {
      logs[j][static_cast<size_t>(r)] = log_ratio(weights, percentiles[j]);
    }
  }
  const double tail =
      (1 - ExpandedConfidence(confidence, static_cast<int>(n))) / 2;
  for (size_t j = 0; j < percentiles.size(); ++j) {
    estimates[j].ci_lo = std::exp(Quantile(logs[j], tail));
    estimates[j].ci_hi = std::exp(Quantile(std::move(logs[j]), 1 - tail));
  }
  return estimates;
}

}  // namespace blkperf
