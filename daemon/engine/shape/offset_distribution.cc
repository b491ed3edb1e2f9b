#include "daemon/engine/shape/offset_distribution.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

using Bucket = OffsetSampler::Bucket;
using Kind = OffsetDistribution::Kind;

// Most buckets a skewed distribution's tail may take.
constexpr double kMaxTailBuckets = 60000;

// Unnormalized zipf mass of slots [a, b): sum_{j=a+1..b} j^-theta.
long double ZipfMass(uint64_t a, uint64_t b, long double theta) {
  if (b - a <= 64) {
    long double sum = 0;
    for (uint64_t j = a + 1; j <= b; ++j) sum += std::pow((long double)j, -theta);
    return sum;
  }
  // Midpoint rule: each j^-theta is the integral of x^-theta over
  // [j - 1/2, j + 1/2] to a relative error of theta (theta + 1) / (24 j^2),
  // below 1e-7 for j > 1024 (only tail buckets of more than 64 slots, far
  // beyond the head, come here).
  const long double lo = a + 0.5L, hi = b + 0.5L;
  const long double ratio_log = std::log(hi / lo);
  if (std::fabs(1 - theta) < 1e-12L) return ratio_log;
  // hi^(1-t) - lo^(1-t) = lo^(1-t) * expm1((1-t) ln(hi/lo)), without
  // cancellation.
  return std::pow(lo, 1 - theta) * std::expm1((1 - theta) * ratio_log) /
         (1 - theta);
}

// Pareto mass of slots [a, b) of n: (b/n)^e - (a/n)^e, e = ln(1-h)/ln(h).
long double ParetoMass(uint64_t a, uint64_t b, uint64_t n, long double e) {
  const long double upper = std::pow((long double)b / n, e);
  if (a == 0) return upper;
  // upper * (1 - (a/b)^e), without cancellation.
  return -upper * std::expm1(e * std::log((long double)a / b));
}

// Normal mass of slots [a, b) with mean mu and deviation sigma (slots).
long double NormalMass(uint64_t a, uint64_t b, long double mu,
                       long double sigma) {
  const long double za = (a - mu) / (sigma * std::sqrt(2.0L));
  const long double zb = (b - mu) / (sigma * std::sqrt(2.0L));
  // Phi(zb) - Phi(za) from the tail it lies in, keeping precision.
  if (za >= 0) return 0.5L * (std::erfc(za) - std::erfc(zb));
  if (zb <= 0) return 0.5L * (std::erfc(-zb) - std::erfc(-za));
  return 0.5L * (std::erf(zb) - std::erf(za));
}

// Singles for the head, then buckets growing by `growth` of their start.
std::vector<Bucket> SkewedBuckets(uint64_t n, double density_exponent) {
  std::vector<Bucket> buckets;
  const uint64_t head = std::min(n, OffsetSampler::kExactHead);
  for (uint64_t k = 0; k < head; ++k) buckets.push_back({k, 1});
  if (head == n) return buckets;
  // The mass of one slot changes by at most (1 + growth)^|exponent| inside
  // a bucket: 1/64 per unit of exponent, coarser if that needs too many.
  double growth = 1.0 / (64 * std::max(1.0, std::fabs(density_exponent)));
  const double needed =
      std::log(static_cast<double>(n) / head) / std::log1p(growth);
  if (needed > kMaxTailBuckets) {
    growth = std::expm1(std::log(static_cast<double>(n) / head) /
                        kMaxTailBuckets);
  }
  for (uint64_t a = head; a < n;) {
    const uint64_t count = std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(a) * growth));
    const uint64_t b = std::min(n, a + count);
    buckets.push_back({a, b - a});
    a = b;
  }
  return buckets;
}

std::vector<Bucket> NormalBuckets(uint64_t n, long double mu,
                                  long double sigma) {
  std::vector<Bucket> buckets;
  const auto lo = static_cast<uint64_t>(
      std::clamp<long double>(std::floor(mu - 8 * sigma), 0, n));
  const auto hi = static_cast<uint64_t>(
      std::clamp<long double>(std::ceil(mu + 8 * sigma), 0, n));
  if (lo > 0) buckets.push_back({0, lo});
  const uint64_t span = hi - lo;
  if (span <= OffsetSampler::kMaxBuckets) {
    for (uint64_t k = lo; k < hi; ++k) buckets.push_back({k, 1});
  } else {
    uint64_t at = lo;
    for (uint64_t i = 1; i <= OffsetSampler::kMaxBuckets; ++i) {
      const uint64_t end =
          lo + static_cast<uint64_t>((static_cast<unsigned __int128>(span) * i) /
                                     OffsetSampler::kMaxBuckets);
      buckets.push_back({at, end - at});
      at = end;
    }
  }
  if (hi < n) buckets.push_back({hi, n - hi});
  return buckets;
}

}  // namespace

absl::StatusOr<OffsetSampler> OffsetSampler::Create(
    const OffsetDistribution& distribution, uint64_t slots) {
  if (slots == 0) {
    return absl::InvalidArgumentError("an offset distribution needs >= 1 slot");
  }
  OffsetSampler sampler;
  sampler.slots_ = slots;
  sampler.rotation_ = Rotation(distribution, slots);
  sampler.scatter_ = distribution.scatter;
  std::vector<double> masses;
  const long double p = distribution.param;
  switch (distribution.kind) {
    case Kind::kUniform:
      sampler.buckets_ = {{0, slots}};
      masses = {1};
      break;
    case Kind::kZipf: {
      if (!(p > 0)) return absl::InvalidArgumentError("zipf needs THETA > 0");
      sampler.buckets_ = SkewedBuckets(slots, static_cast<double>(p));
      for (const Bucket& b : sampler.buckets_) {
        masses.push_back(
            static_cast<double>(ZipfMass(b.first, b.first + b.count, p)));
      }
      break;
    }
    case Kind::kPareto: {
      if (!(p > 0 && p < 1)) {
        return absl::InvalidArgumentError("pareto needs 0 < H < 1");
      }
      const long double e = std::log(1 - p) / std::log(p);
      sampler.buckets_ = SkewedBuckets(slots, static_cast<double>(e - 1));
      for (const Bucket& b : sampler.buckets_) {
        masses.push_back(static_cast<double>(
            ParetoMass(b.first, b.first + b.count, slots, e)));
      }
      break;
    }
    case Kind::kNormal: {
      if (!(p > 0)) return absl::InvalidArgumentError("normal needs SIGMA > 0");
      const long double mu = slots / 2.0L;
      const long double sigma = p * slots;
      sampler.buckets_ = NormalBuckets(slots, mu, sigma);
      for (const Bucket& b : sampler.buckets_) {
        masses.push_back(static_cast<double>(
            NormalMass(b.first, b.first + b.count, mu, sigma)));
      }
      break;
    }
  }
  absl::StatusOr<AliasTable> table = AliasTable::Build(masses);
  if (!table.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(OffsetDistributionName(distribution), " over ", slots,
                     " slots: ", table.status().message()));
  }
  sampler.table_ = *std::move(table);
  return sampler;
}

}  // namespace blkperf
