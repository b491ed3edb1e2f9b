// Walker's alias method: draws index i of a discrete distribution with
// probability weights[i] / sum(weights) from one 64-bit random number, in
// constant time, with one multiply, one compare and two table loads: no
// division, no loop, no allocation. Built once (Vose's O(n) construction);
// the workload shapes' offset, block-size and op choices are drawn with it.
//
//   absl::StatusOr<AliasTable> t = AliasTable::Build({70, 20, 10});
//   uint32_t i = t->Sample(rng());       // 0 with p 0.7, 1 with 0.2, 2 with 0.1
//
// Precision: each column keeps its own probability to 2^-32, so every
// probability is exact to n * 2^-32 (n = number of weights).
#ifndef BLKPERF_DAEMON_ENGINE_SHAPE_ALIAS_TABLE_H_
#define BLKPERF_DAEMON_ENGINE_SHAPE_ALIAS_TABLE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace blkperf {

class AliasTable {
 public:
  // Most weights one table takes (an offset distribution uses a few
  // thousand buckets, a block-size mix at most 64 entries).
  static constexpr size_t kMaxEntries = 1 << 20;

  // InvalidArgument when `weights` is empty, longer than kMaxEntries, has a
  // negative or non-finite weight, or sums to 0.
  static absl::StatusOr<AliasTable> Build(absl::Span<const double> weights);

  // A one-entry table: always 0.
  AliasTable() : columns_(1, Column{kAlways, 0}), size_(1) {}

  // Index in [0, size()) drawn with the built probabilities. The high 32
  // bits pick a column, the low 32 bits decide between it and its alias.
  uint32_t Sample(uint64_t random) const {
    const uint32_t column = static_cast<uint32_t>(
        ((random >> 32) * static_cast<uint64_t>(size_)) >> 32);
    const Column& c = columns_[column];
    return (random & 0xffffffffu) < c.threshold ? column : c.alias;
  }

  uint32_t size() const { return size_; }

  // The probability Sample() returns `index` with, as built (the exact
  // fixed-point value, for tests). REQUIRES: index < size().
  double Probability(uint32_t index) const;

 private:
  // Keep `column` when the low 32 random bits are below `threshold`
  // (2^32 = always); else take `alias`.
  struct Column {
    uint64_t threshold;
    uint32_t alias;
  };
  static constexpr uint64_t kAlways = uint64_t{1} << 32;

  std::vector<Column> columns_;
  uint32_t size_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SHAPE_ALIAS_TABLE_H_
