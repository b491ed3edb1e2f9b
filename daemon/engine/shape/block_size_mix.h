// Draws per-I/O block sizes from a bssplit (io_shape.h) with an alias
// table built once: one table draw and one load per I/O, no branch on
// whether the mix has one entry or many (a fixed block size is a one-entry
// mix).
//
//   absl::StatusOr<BlockSizeMix> mix = BlockSizeMix::Create(shares, 4096);
//   uint32_t length = mix->Sample(rng());
//   uint32_t slot_bytes = mix->max_block_size();   // buffer slot size
#ifndef BLKPERF_DAEMON_ENGINE_SHAPE_BLOCK_SIZE_MIX_H_
#define BLKPERF_DAEMON_ENGINE_SHAPE_BLOCK_SIZE_MIX_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/engine/shape/alias_table.h"
#include "model/io_shape.h"

namespace blkperf {

class BlockSizeMix {
 public:
  // `shares` empty: every I/O is `block_size` bytes. InvalidArgument when a
  // share has size 0 or the percents do not add up to 100.
  static absl::StatusOr<BlockSizeMix> Create(
      const std::vector<BlockSizeShare>& shares, uint32_t block_size);

  BlockSizeMix() : sizes_(1, 4096), max_(4096), min_(4096) {}

  uint32_t Sample(uint64_t random) const {
    return sizes_[table_.Sample(random)];
  }

  uint32_t max_block_size() const { return max_; }
  uint32_t min_block_size() const { return min_; }
  // Mean bytes per I/O (for reports and rate conversions).
  double mean_block_size() const { return mean_; }

 private:
  std::vector<uint32_t> sizes_;
  AliasTable table_;
  uint32_t max_;
  uint32_t min_;
  double mean_ = 4096;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SHAPE_BLOCK_SIZE_MIX_H_
