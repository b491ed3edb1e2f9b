// One submitter thread's I/O shape, prepared at setup: what the shaped loop
// asks for each I/O (its direction, length, target offset) from random
// numbers, with the tables of offset_distribution.h and block_size_mix.h.
// Per I/O: table draws, multiply-shifts and compares only; no division,
// no allocation, no branch on anything fixed for the run except the
// random/sequential choice, which is the data.
//
//   absl::StatusOr<IoShaper> shaper =
//       IoShaper::Create(group, target_sizes, thread_in_group);
//   const bool write = shaper->NextIsWrite(rng());
//   const uint32_t length = shaper->NextLength(write, rng());
//   const uint64_t offset = shaper->NextOffset(target, length, rng(), rng(),
//                                              rng());
//
// Offsets: random I/O lands on slot * alignment, slots drawn from the
// group's distribution over (size - largest block) / alignment + 1 slots,
// so every I/O ends inside the target. Sequential I/O starts where the
// thread's previous I/O on that target ended and wraps to the start of the
// thread's range when the next would not fit: sequential ops give each of
// a group's threads its own range, size x i / n .. size x (i + 1) / n
// (aligned down), so no two threads read or write the same blocks; random
// ops use the whole target for both kinds of pick.
#ifndef BLKPERF_DAEMON_ENGINE_SHAPE_IO_SHAPER_H_
#define BLKPERF_DAEMON_ENGINE_SHAPE_IO_SHAPER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/engine/shape/block_size_mix.h"
#include "daemon/engine/shape/offset_distribution.h"
#include "model/group_shape.h"

namespace blkperf::internal {

class IoShaper {
 public:
  // `target_sizes`: bytes of each target. `thread_in_group`: 0-based index
  // of the thread among its group's. InvalidArgument when a target is
  // smaller than the largest block.
  static absl::StatusOr<IoShaper> Create(const GroupShape& group,
                                         const std::vector<uint64_t>& target_sizes,
                                         uint32_t thread_in_group);

  IoShaper() = default;

  bool NextIsWrite(uint64_t random) const {
    return (((random >> 32) * 100) >> 32) >= read_percent_;
  }

  uint32_t NextLength(bool is_write, uint64_t random) const {
    return mixes_[is_write].Sample(random);
  }

  // `choice` decides random (below random_percent) or sequential;
  // `bucket` and `slot` draw the random slot.
  uint64_t NextOffset(uint16_t target, uint32_t length, uint64_t choice,
                      uint64_t bucket, uint64_t slot) {
    Target& t = targets_[target];
    uint64_t offset;
    if ((((choice >> 32) * 100) >> 32) < random_percent_) {
      offset = t.sampler.Sample(bucket, slot) * alignment_;
    } else {
      offset = t.cursor + length <= t.range_end ? t.cursor : t.range_first;
    }
    t.cursor = offset + length;
    return offset;
  }

  // For tests: the thread's sequential range on `target`.
  uint64_t range_first(uint16_t target) const {
    return targets_[target].range_first;
  }
  uint64_t range_end(uint16_t target) const {
    return targets_[target].range_end;
  }

 private:
  struct Target {
    OffsetSampler sampler;
    uint64_t range_first = 0;  // bytes
    uint64_t range_end = 0;
    uint64_t cursor = 0;       // where the previous I/O ended
  };

  std::vector<Target> targets_;
  BlockSizeMix mixes_[2];  // reads, writes (and trims)
  uint64_t alignment_ = 4096;
  uint32_t read_percent_ = 100;
  uint32_t random_percent_ = 100;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_SHAPE_IO_SHAPER_H_
