// The statistics of an experiment: the paired ratio of an arm to the
// baseline with its percentile-bootstrap interval, the verdict against a
// margin, how many more rounds would decide, and the tests behind the
// guardrails (a trend within an arm, outlying samples). No I/O, no clock:
// the same samples give the same numbers on every machine.
//
//   RatioEstimate r = PairedRatio(baseline_iops, arm_iops, 0.95);
//   Verdict v = Decide(r.ci_lo, r.ci_hi, /*margin=*/0.02, Better::kHigher);
//   if (v == Verdict::kInconclusive) more = MoreRoundsToDecide(r, 0.02);
//
// The reference values the tests check against come from SciPy
// (experiment/testdata/make_scipy_reference.py).
#ifndef BLKPERF_EXPERIMENT_STATISTICS_H_
#define BLKPERF_EXPERIMENT_STATISTICS_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"

namespace blkperf {

// The resamples and the generator's seed of every bootstrap: fixed, so an
// interval is recomputable from the report's samples alone.
inline constexpr int kBootstrapResamples = 10000;
inline constexpr uint64_t kBootstrapSeed = 0x6b7066626f6f74;  // "kpfboot"

// The q-th quantile (0 <= q <= 1) of `values` with linear interpolation
// between order statistics (NumPy's default, "linear" / Hyndman-Fan 7).
// REQUIRES: values not empty.
double Quantile(std::vector<double> values, double q);

// Quantile(values, 0.5): the middle value, or the mean of the two middle
// ones. REQUIRES: values not empty.
double SampleMedian(const std::vector<double>& values);

// The percentile bootstrap's intervals are too narrow on few samples (by
// about sqrt((n-1)/n) and the t distribution's heavier tails). The
// expanded percentile interval (Hesterberg, 2015) takes the bootstrap
// quantiles at the level whose normal quantile is sqrt(n/(n-1)) times
// Student's t quantile: 2 Phi(sqrt(n/(n-1)) t(1-(1-c)/2, n-1)) - 1.
// Returns `confidence` itself for n < 2.
double ExpandedConfidence(double confidence, int n);

// Student's t quantile: the t with P(T > t) = p, `df` degrees of freedom.
// REQUIRES: 0 < p < 1, df > 0.
double StudentTInverseSurvival(double p, double df);

// The ratio of an arm to the baseline over paired rounds: the median of the
// per-round ratios arm[i] / baseline[i] (taken on their logs: with an even
// count, the geometric mean of the middle two), robust to a round that
// other load on the machine hit hard; and its two-sided
// expanded percentile-bootstrap interval at `confidence` (rounds resampled
// with replacement, kBootstrapResamples times, generator seeded
// kBootstrapSeed; quantiles at ExpandedConfidence(confidence, n)).
struct RatioEstimate {
  double ratio = 0;
  double ci_lo = 0;
  double ci_hi = 0;
  int samples = 0;  // paired rounds used
};
// REQUIRES: baseline.size() == arm.size() >= 1, every value > 0,
// 0 < confidence < 1.
RatioEstimate PairedRatio(const std::vector<double>& baseline,
                          const std::vector<double>& arm, double confidence);

// Two independent sets of samples (two runs' per-interval values): the
// ratio of the medians b / a (on logs), and its percentile-bootstrap interval
// with each side resampled on its own (same resamples and seed as above;
// expanded for the smaller side's count). `samples` is that count.
// REQUIRES: a and b not empty, every value > 0, 0 < confidence < 1.
RatioEstimate UnpairedRatio(const std::vector<double>& a,
                            const std::vector<double>& b, double confidence);

// The percentile-bootstrap interval of the median of `values` at exactly
// `confidence` (the engine of PairedRatio, applied to log ratios).
void BootstrapMedianInterval(const std::vector<double>& values,
                             double confidence, int resamples, uint64_t seed,
                             double* lo, double* hi);

enum class Better { kHigher, kLower };  // IOPS: higher; latency: lower
enum class Verdict { kFaster, kSlower, kEquivalent, kInconclusive };
absl::string_view VerdictName(Verdict verdict);

// The rule: faster (better) when the whole interval lies beyond 1 + margin
// on the better side (above 1 + margin when higher is better, below
// 1 - margin when lower is), slower (worse) when it lies beyond the margin
// on the other side, equivalent when it lies inside [1 - margin, 1 + margin],
// inconclusive otherwise.
Verdict Decide(double ci_lo, double ci_hi, double margin, Better better);

// For an interval that does not decide: about how many more rounds would
// shrink it (as 1/sqrt(rounds), around the same estimate) until it lies
// wholly on one side of every boundary of the margin. -1 when no number of
// rounds would (the estimate sits on a boundary, 1 - margin or 1 + margin).
int MoreRoundsToDecide(const RatioEstimate& estimate, double margin);

// Student's t distribution: P(T > t) with `df` degrees of freedom.
// REQUIRES: df > 0.
double StudentTSurvival(double t, double df);

// Least-squares line through (i, values[i]), i = 0..n-1, with the two-sided
// p-value of its slope (t test, n - 2 degrees of freedom; 1 when n < 3 or
// the values do not vary).
struct Trend {
  double slope = 0;      // per sample
  double intercept = 0;
  double p_value = 1;
};
Trend LinearTrend(const std::vector<double>& values);

// Indexes of samples whose modified z-score 0.6745 |x - median| / MAD
// exceeds `threshold` (Iglewicz and Hoaglin suggest 3.5) and which lie more
// than `relative_floor` x |median| from the median. None when the MAD is 0.
// The floor keeps a tight arm's ordinary spread from counting: with the MAD
// at 0.3 % of the median, a round 1.5 % off has a z-score over 3.5, yet it
// differs by less than any margin an experiment judges on.
std::vector<int> Outliers(const std::vector<double>& values,
                          double threshold = 3.5, double relative_floor = 0);

// Two clusters in `values`: the sorted values split at their widest gap,
// bimodal when each side holds at least max(2, n / 5) values and the gap is
// wider than `min_gap` and than twice the wider side's range (a spread of
// one mode leaves no such gap; one stray value is Outliers'). Needs n >= 4.
struct Clusters {
  bool bimodal = false;
  int low_count = 0;  // values in the lower cluster
  double low_median = 0;
  double high_median = 0;
};
Clusters TwoClusters(const std::vector<double>& values, double min_gap);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_STATISTICS_H_
