#include "daemon/engine/shape/rate_pacer.h"

#include <cmath>

namespace blkperf {

void RatePacer::Reset(const Rate& rate, int64_t start_ns) {
  schedule_q16_ = 0;
  units_per_io_ = rate.per_byte ? 0 : 1;
  units_per_byte_mask_ = rate.per_byte ? ~uint64_t{0} : 0;
  open_loop_ = rate.per_second > 0;
  if (!open_loop_) {
    // Always due: the schedule stands still at the beginning of time.
    start_ns_ = std::numeric_limits<int64_t>::min();
    gaps_q16_.assign(1, 0);
    gap_mask_ = 0;
    return;
  }
  start_ns_ = start_ns;
  // 65536ths of a nanosecond per unit. Validated rates are at least 1 per
  // second over at most 256 threads, which keeps the longest Poisson gap
  // (9.1 means) far below 2^64.
  const long double q16_per_unit = 1e9L * 65536 / rate.per_second;
  if (rate.arrivals == Arrivals::kUniform) {
    gaps_q16_.assign(1, static_cast<uint64_t>(std::llround(q16_per_unit)));
    gap_mask_ = 0;
    return;
  }
  std::vector<long double> levels(kPoissonLevels);
  long double sum = 0;
  for (int i = 0; i < kPoissonLevels; ++i) {
    levels[i] = -std::log1p(-(i + 0.5L) / kPoissonLevels);
    sum += levels[i];
  }
  const long double mean = sum / kPoissonLevels;
  gaps_q16_.resize(kPoissonLevels);
  for (int i = 0; i < kPoissonLevels; ++i) {
    gaps_q16_[i] =
        static_cast<uint64_t>(std::llround(levels[i] / mean * q16_per_unit));
  }
  gap_mask_ = kPoissonLevels - 1;
}

}  // namespace blkperf
