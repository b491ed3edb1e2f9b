// The value types of a workload's I/O shape beyond op and block size, as
// users write them (fio's spellings where fio has one), with their parsers
// and canonical names. Plain data: the samplers that draw from them live in
// offset_distribution.h, block_size_mix.h and rate_pacer.h.
//
//   absl::StatusOr<OffsetDistribution> d =
//       ParseOffsetDistribution("zipf:1.2", "distribution");
//   absl::StatusOr<std::vector<BlockSizeShare>> mix =
//       ParseBlockSizeSplit("4k/70:64k/20:1m/10", "bssplit");
//   absl::StatusOr<SloTarget> slo = ParseSloTarget("p99<1ms", "slo");
//
// Every parser returns InvalidArgument whose message starts with `field`
// and names the value and the reason.
#ifndef BLKPERF_MODEL_IO_SHAPE_H_
#define BLKPERF_MODEL_IO_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace blkperf {

// Where random offsets fall, over the target's N slots (slot k = offset
// k * alignment). The probability of slot k (0-based):
//   uniform          1 / N
//   zipf:THETA       (k + 1)^-THETA / sum_{j=1..N} j^-THETA      (THETA > 0)
//   pareto:H         ((k + 1) / N)^a - (k / N)^a, a = ln(1 - H) / ln(H)
//                    (0 < H < 1: a share H of the slots, the first ones,
//                    gets 1 - H of the I/O; fio's pareto:H)
//   normal:SIGMA     a normal density with mean N / 2 and standard
//                    deviation SIGMA * N, integrated over [k, k + 1) and
//                    renormalized to the target (0 < SIGMA <= 0.5: wider
//                    is nearly uniform). Not fio's normal:DEV, a
//                    percentage whose bell never narrows below N / 12
//                    and is hashed across the target; fio's normal:10
//                    traces like normal:0.088 here.
// zipf and pareto put the hottest slots at the start of the target unless
// given a center or scatter (below).
//
// Optional, after the parameter (fio's random_distribution form, plus
// blkperf's scatter): `zipf:THETA[:CENTER][:scatter]`, the same for
// pareto and normal.
//   CENTER in [0, 1] (fio's second float): where the distribution sits, as
//     a fraction of the target. zipf and pareto: the hottest slot is slot
//     floor(CENTER x N) and the ranks follow it upward, wrapping at the
//     end; normal: the bell's mean is at floor(CENTER x N) (default 0.5),
//     its tails wrapping at the ends, as fio's do. Every slot's probability
//     is that of the rank (slot - R) mod N of the formula above, R the
//     rotation (Rotation below).
//   scatter: the ranks are spread over the target by a multiplicative hash
//     before the rotation, as fio hashes them, so the hot set is not one
//     run of neighbouring slots: rank r goes to slot
//     floor((r x 0x61C8864680B583EB mod 2^64) x N / 2^64), fio's golden-ratio
//     constant with the product's top bits scaled to N (fio takes it modulo
//     N: the same spread, not the same slots). Not a permutation: two
//     ranks may share a slot, whose probability is then their sum.
// fio's default center of zipf and pareto is random and it always hashes:
// `zipf:1.2:0.5:scatter` is blkperf's nearest to fio's `zipf:1.2:0.5`.
// The widest normal:SIGMA accepted: at 0.5 the density at the target's
// ends is still 61 % of the center's; much wider is nearly uniform.
inline constexpr double kMaxNormalSigma = 0.5;

struct OffsetDistribution {
  enum class Kind { kUniform, kZipf, kPareto, kNormal };
  Kind kind = Kind::kUniform;
  double param = 0;  // THETA, H or SIGMA; 0 for uniform
  // CENTER in [0, 1]; unset: the start (zipf, pareto) or the middle
  // (normal). Never set for uniform.
  std::optional<double> center;
  bool scatter = false;  // never set for uniform

  bool operator==(const OffsetDistribution&) const = default;
};

// fio's multiplicative hash constant (GOLDEN_RATIO_64), for `scatter`.
inline constexpr uint64_t kScatterMultiplier = 0x61C8864680B583EBull;

// The rotation R of `distribution` over `slots` slots (CENTER above): a
// rank's slot moves R slots up, wrapping. 0 without a center (and for a
// normal centered at floor(N / 2)). REQUIRES: slots >= 1.
uint64_t Rotation(const OffsetDistribution& distribution, uint64_t slots);

// Where `scatter` puts rank `rank` of `slots`: the top 64 bits of
// (rank x kScatterMultiplier mod 2^64) x slots, in [0, slots).
inline uint64_t ScatterSlot(uint64_t rank, uint64_t slots) {
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(rank * kScatterMultiplier) * slots) >>
      64);
}

absl::StatusOr<OffsetDistribution> ParseOffsetDistribution(
    absl::string_view text, absl::string_view field);
// "uniform", "zipf:1.2", "pareto:0.2", "normal:0.05", "zipf:1.2:0.25",
// "pareto:0.2:scatter" (shortest round trip).
std::string OffsetDistributionName(const OffsetDistribution& distribution);

// One entry of a block-size mix: `percent` of the I/Os are `block_size`
// bytes.
struct BlockSizeShare {
  uint32_t block_size = 0;
  uint32_t percent = 0;

  bool operator==(const BlockSizeShare&) const = default;
};
inline constexpr size_t kMaxBlockSizeShares = 64;

// fio's bssplit syntax for one direction: SIZE/PERCENT entries joined by
// ':', e.g. "4k/70:64k/20:1m/10". An entry without a percent ("4k/" or
// "4k") shares what the others leave equally (fio's rule); the percents
// must then add up to exactly 100. Sizes take k/m/g suffixes. At most
// kMaxBlockSizeShares entries; a size may appear once. Zero-percent entries
// are dropped.
absl::StatusOr<std::vector<BlockSizeShare>> ParseBlockSizeSplit(
    absl::string_view text, absl::string_view field);
// "4k/70:64k/30" (sizes in the largest exact binary unit).
std::string BlockSizeSplitName(const std::vector<BlockSizeShare>& shares);

// Open-loop arrival process: intended issue times `1 / rate` apart
// (uniform), or with exponentially distributed gaps of mean `1 / rate`
// (poisson).
enum class Arrivals { kUniform, kPoisson };
absl::string_view ArrivalsName(Arrivals arrivals);  // "uniform", "poisson"
bool ParseArrivals(absl::string_view text, Arrivals* arrivals);

// A latency objective: the `percentile` (0 < p < 100) of the intended-time
// latency must stay below (or at most, with "<=") `bound`.
// Written "p99<1ms", "p99.9<=250us", "p50<2ms".
struct SloTarget {
  double percentile = 99;
  absl::Duration bound = absl::Milliseconds(1);
  bool inclusive = false;  // "<=": a value equal to the bound passes

  bool operator==(const SloTarget&) const = default;
  // Whether a measured value meets it.
  bool Met(uint64_t value_ns) const {
    const int64_t bound_ns = absl::ToInt64Nanoseconds(bound);
    return inclusive ? static_cast<int64_t>(value_ns) <= bound_ns
                     : static_cast<int64_t>(value_ns) < bound_ns;
  }
};
absl::StatusOr<SloTarget> ParseSloTarget(absl::string_view text,
                                         absl::string_view field);
std::string SloTargetName(const SloTarget& target);  // "p99<1ms"

}  // namespace blkperf

#endif  // BLKPERF_MODEL_IO_SHAPE_H_
