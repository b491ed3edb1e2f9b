// Pearson's chi-square goodness of fit for the generators' tests: counts
// observed in bins against the probabilities a formula gives them.
//
//   std::vector<uint64_t> observed = ...;   // draws per bin
//   std::vector<double> expected = ...;     // probabilities, sum 1
//   EXPECT_LT(ChiSquare(observed, expected),
//             ChiSquareCritical(observed.size() - 1));
#ifndef BLKPERF_DAEMON_ENGINE_TESTING_CHI_SQUARE_H_
#define BLKPERF_DAEMON_ENGINE_TESTING_CHI_SQUARE_H_

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace blkperf::testing {

// sum (O - E)^2 / E over the bins, E = probability x total draws.
inline double ChiSquare(const std::vector<uint64_t>& observed,
                        const std::vector<double>& probabilities) {
  const double total =
      static_cast<double>(std::accumulate(observed.begin(), observed.end(),
                                          uint64_t{0}));
  double chi = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double e = probabilities[i] * total;
    const double d = static_cast<double>(observed[i]) - e;
    chi += d * d / e;
  }
  return chi;
}

// The value a correct generator exceeds with probability 0.001 at `df`
// degrees of freedom (Wilson-Hilferty; within 1% for df >= 5). The draws
// use fixed seeds, so a test either always passes or always fails.
inline double ChiSquareCritical(double df) {
  constexpr double kZ = 3.090;  // the normal's 0.999 quantile
  const double a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + kZ * std::sqrt(a), 3);
}

// A fixed-seed xorshift64* for the tests' draws.
class TestRandom {
 public:
  explicit TestRandom(uint64_t seed) : state_(seed | 1) {}
  uint64_t operator()() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1DULL;
  }

 private:
  uint64_t state_;
};

}  // namespace blkperf::testing

#endif  // BLKPERF_DAEMON_ENGINE_TESTING_CHI_SQUARE_H_
