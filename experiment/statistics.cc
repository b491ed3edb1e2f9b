#include "experiment/statistics.h"

#include <math.h>  // lgamma_r

#include <algorithm>
#include <cmath>
#include <random>

namespace blkperf {

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

double SampleMedian(const std::vector<double>& values) { return Quantile(values, 0.5); }

namespace {

// ln|Gamma(x)|, thread-safe: std::lgamma writes the global signgam, a data
// race when two threads (snapshots of two workloads) compute at once.
inline double LogGamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}


// `values` drawn with replacement into `*out` (same size). Index draws: the
// generator's next value modulo n (n is at most a few thousand, so the
// modulo's bias is below 1e-15).
void Resample(const std::vector<double>& values, std::mt19937_64& generator,
              std::vector<double>* out) {
  out->resize(values.size());
  for (double& v : *out) v = values[generator() % values.size()];
}

std::vector<double> Logs(const std::vector<double>& values) {
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values) logs.push_back(std::log(v));
  return logs;
}

}  // namespace

void BootstrapMedianInterval(const std::vector<double>& values,
                             double confidence, int resamples, uint64_t seed,
                             double* lo, double* hi) {
  std::mt19937_64 generator(seed);
  std::vector<double> medians(static_cast<size_t>(resamples)), drawn;
  for (double& median : medians) {
    Resample(values, generator, &drawn);
    median = SampleMedian(drawn);
  }
  const double tail = (1 - confidence) / 2;
  *lo = Quantile(medians, tail);
  *hi = Quantile(std::move(medians), 1 - tail);
}

RatioEstimate PairedRatio(const std::vector<double>& baseline,
                          const std::vector<double>& arm, double confidence) {
  std::vector<double> log_ratios(baseline.size());
  for (size_t i = 0; i < baseline.size(); ++i) {
    log_ratios[i] = std::log(arm[i] / baseline[i]);
  }
  RatioEstimate estimate;
  estimate.samples = static_cast<int>(baseline.size());
  estimate.ratio = std::exp(SampleMedian(log_ratios));
  double lo = 0, hi = 0;
  BootstrapMedianInterval(log_ratios,
                          ExpandedConfidence(confidence, estimate.samples),
                          kBootstrapResamples, kBootstrapSeed, &lo, &hi);
  estimate.ci_lo = std::exp(lo);
  estimate.ci_hi = std::exp(hi);
  return estimate;
}

RatioEstimate UnpairedRatio(const std::vector<double>& a,
                            const std::vector<double>& b, double confidence) {
  const std::vector<double> log_a = Logs(a), log_b = Logs(b);
  std::mt19937_64 generator(kBootstrapSeed);
  std::vector<double> differences(kBootstrapResamples), drawn_a, drawn_b;
  for (double& difference : differences) {
    Resample(log_a, generator, &drawn_a);
    Resample(log_b, generator, &drawn_b);
    difference = SampleMedian(drawn_b) - SampleMedian(drawn_a);
  }
  RatioEstimate estimate;
  estimate.samples = static_cast<int>(std::min(a.size(), b.size()));
  estimate.ratio = std::exp(SampleMedian(log_b) - SampleMedian(log_a));
  const double tail = (1 - ExpandedConfidence(confidence, estimate.samples)) / 2;
  estimate.ci_lo = std::exp(Quantile(differences, tail));
  estimate.ci_hi = std::exp(Quantile(std::move(differences), 1 - tail));
  return estimate;
}

absl::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSlower: return "slower";
    case Verdict::kEquivalent: return "equivalent";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "inconclusive";
}

Verdict Decide(double ci_lo, double ci_hi, double margin, Better better) {
  const bool above = ci_lo > 1 + margin;
  const bool below = ci_hi < 1 - margin;
  if (above) return better == Better::kHigher ? Verdict::kFaster : Verdict::kSlower;
  if (below) return better == Better::kHigher ? Verdict::kSlower : Verdict::kFaster;
  if (ci_lo >= 1 - margin && ci_hi <= 1 + margin) return Verdict::kEquivalent;
  return Verdict::kInconclusive;
}

int MoreRoundsToDecide(const RatioEstimate& estimate, double margin) {
  const double center = std::log(estimate.ratio);
  const double half_width =
      (std::log(estimate.ci_hi) - std::log(estimate.ci_lo)) / 2;
  const double upper = std::log(1 + margin);
  const double lower = std::log(1 - margin);
  // The widest half-width that still decides around this estimate.
  double room;
  if (center > upper) {
    room = center - upper;
  } else if (center < lower) {
    room = lower - center;
  } else {
    room = std::min(center - lower, upper - center);
  }
  if (!(room > 0) || estimate.samples <= 0) return -1;
  if (half_width <= room) return 0;
  const double needed =
      estimate.samples * (half_width / room) * (half_width / room);
  if (needed > 1e9) return -1;
  return std::max(1, static_cast<int>(std::ceil(needed)) - estimate.samples);
}

namespace {

// The continued fraction of the regularized incomplete beta function
// (modified Lentz's method; Numerical Recipes' betacf).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return h;
}

// I_x(a, b).
double RegularizedBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(LogGamma(a + b) - LogGamma(a) -
                                LogGamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) {
    return front * BetaContinuedFraction(a, b, x) / a;
  }
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

}  // namespace

double StudentTSurvival(double t, double df) {
  const double tail = 0.5 * RegularizedBeta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? tail : 1 - tail;
}

double StudentTInverseSurvival(double p, double df) {
  // P(T > t) falls as t grows: bisect on a bracket that holds the answer.
  double lo = -1, hi = 1;
  while (StudentTSurvival(lo, df) < p) lo *= 2;
  while (StudentTSurvival(hi, df) > p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * std::max(1.0, std::fabs(hi)); ++i) {
    const double mid = (lo + hi) / 2;
    (StudentTSurvival(mid, df) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double ExpandedConfidence(double confidence, int n) {
  if (n < 2) return confidence;
  const double t = StudentTInverseSurvival((1 - confidence) / 2, n - 1);
  const double z = std::sqrt(static_cast<double>(n) / (n - 1)) * t;
  return 1 - std::erfc(z / std::sqrt(2.0));  // 2 Phi(z) - 1
}

Trend LinearTrend(const std::vector<double>& values) {
  Trend trend;
  const size_t n = values.size();
  if (n == 0) return trend;
  double mean_x = (static_cast<double>(n) - 1) / 2, mean_y = 0;
  for (double v : values) mean_y += v;
  mean_y /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = static_cast<double>(i) - mean_x, dy = values[i] - mean_y;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  trend.intercept = mean_y;
  if (sxx == 0) return trend;
  trend.slope = sxy / sxx;
  trend.intercept = mean_y - trend.slope * mean_x;
  if (n < 3 || syy == 0) return trend;
  const double residual = std::max(0.0, syy - trend.slope * sxy);
  const double df = static_cast<double>(n) - 2;
  const double standard_error = std::sqrt(residual / df / sxx);
  if (standard_error == 0) {
    trend.p_value = 0;
    return trend;
  }
  trend.p_value = 2 * StudentTSurvival(std::fabs(trend.slope / standard_error), df);
  return trend;
}

std::vector<int> Outliers(const std::vector<double>& values, double threshold,
                          double relative_floor) {
  std::vector<int> outliers;
  if (values.empty()) return outliers;
  const double median = Quantile(values, 0.5);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - median));
  const double mad = Quantile(deviations, 0.5);
  if (mad == 0) return outliers;
  const double floor = relative_floor * std::fabs(median);
  for (size_t i = 0; i < values.size(); ++i) {
    if (0.6745 * deviations[i] / mad > threshold && deviations[i] > floor) {
      outliers.push_back(static_cast<int>(i));
    }
  }
  return outliers;
}

Clusters TwoClusters(const std::vector<double>& values, double min_gap) {
  Clusters clusters;
  const size_t n = values.size();
  if (n < 4) return clusters;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const size_t least = std::max<size_t>(2, n / 5);
  size_t split = 0;  // the lower cluster is sorted[0 .. split]
  double widest = -1;
  for (size_t i = least - 1; i + least < n; ++i) {
    const double gap = sorted[i + 1] - sorted[i];
    if (gap > widest) {
      widest = gap;
      split = i;
    }
  }
  if (widest < 0) return clusters;
  const double low_range = sorted[split] - sorted[0];
  const double high_range = sorted[n - 1] - sorted[split + 1];
  if (widest > min_gap && widest > 2 * std::max(low_range, high_range)) {
    clusters.bimodal = true;
    clusters.low_count = static_cast<int>(split + 1);
    clusters.low_median = SampleMedian(
        std::vector<double>(sorted.begin(), sorted.begin() + split + 1));
    clusters.high_median = SampleMedian(
        std::vector<double>(sorted.begin() + split + 1, sorted.end()));
  }
  return clusters;
}

}  // namespace blkperf
