// Draws random offset slots from an OffsetDistribution (io_shape.h) over a
// target's N slots, with everything computed at setup: per I/O it costs two
// random numbers, one alias-table draw and one multiply-shift, with no
// division, no transcendental function and no allocation.
//
//   absl::StatusOr<OffsetSampler> s = OffsetSampler::Create(zipf_1_2, slots);
//   uint64_t slot = s->Sample(rng(), rng());      // in [0, slots)
//   uint64_t offset = slot * alignment;
//
// The model: the slots are cut into buckets, each bucket gets exactly the
// distribution's probability mass over its slots (io_shape.h gives the
// formulas), and a slot inside a bucket is drawn uniformly:
//   uniform  one bucket: plain uniform slots.
//   zipf, pareto  the first kExactHead slots have a bucket each (their
//            masses are exact), the rest buckets growing by 1/64 (the mass
//            of one slot varies by at most (65/64)^THETA inside a bucket).
//   normal   N <= kMaxBuckets: a bucket per slot; else kMaxBuckets equal
//            buckets over mean +- 8 sigma (clipped to the target) and one
//            bucket for each tail outside.
// The slot drawn is the distribution's rank; a `scatter` distribution then
// hashes it across the target (ScatterSlot, io_shape.h) and a CENTER
// rotates it (Rotation): one multiply-shift, an add and a compare more,
// still no division.
// fio computes zipf and pareto ranks per I/O with pow(); the tables here
// give the same distributions for a few thousand entries built once.
#ifndef BLKPERF_DAEMON_ENGINE_SHAPE_OFFSET_DISTRIBUTION_H_
#define BLKPERF_DAEMON_ENGINE_SHAPE_OFFSET_DISTRIBUTION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/engine/shape/alias_table.h"
#include "model/io_shape.h"

namespace blkperf {

class OffsetSampler {
 public:
  static constexpr uint64_t kExactHead = 1024;
  static constexpr uint64_t kMaxBuckets = 4096;

  struct Bucket {
    uint64_t first = 0;  // first slot
    uint64_t count = 0;  // slots in the bucket, >= 1
  };

  // InvalidArgument when `slots` is 0 or the parameter is out of range.
  static absl::StatusOr<OffsetSampler> Create(
      const OffsetDistribution& distribution, uint64_t slots);

  // Uniform over one slot until Create() replaces it.
  OffsetSampler() : buckets_(1, Bucket{0, 1}) {}

  // A slot in [0, slots): `bucket_random` picks the bucket, `slot_random`
  // the rank inside it; scatter and rotation place the rank.
  uint64_t Sample(uint64_t bucket_random, uint64_t slot_random) const {
    const Bucket& b = buckets_[table_.Sample(bucket_random)];
    uint64_t slot = b.first + static_cast<uint64_t>(
                                  (static_cast<unsigned __int128>(slot_random) *
                                   b.count) >> 64);
    if (scatter_) slot = ScatterSlot(slot, slots_);
    slot += rotation_;
    return slot >= slots_ ? slot - slots_ : slot;
  }

  // For tests and reports: the buckets are of ranks (before scatter and
  // rotation).
  const std::vector<Bucket>& buckets() const { return buckets_; }
  uint64_t rotation() const { return rotation_; }
  double BucketProbability(size_t index) const {
    return table_.Probability(static_cast<uint32_t>(index));
  }

 private:
  std::vector<Bucket> buckets_;
  AliasTable table_;
  uint64_t slots_ = 1;
  uint64_t rotation_ = 0;  // < slots_
  bool scatter_ = false;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SHAPE_OFFSET_DISTRIBUTION_H_
