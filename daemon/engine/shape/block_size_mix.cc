#include "daemon/engine/shape/block_size_mix.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace blkperf {

absl::StatusOr<BlockSizeMix> BlockSizeMix::Create(
    const std::vector<BlockSizeShare>& shares, uint32_t block_size) {
  BlockSizeMix mix;
  if (shares.empty()) {
    if (block_size == 0) return absl::InvalidArgumentError("block size 0");
    mix.sizes_ = {block_size};
    mix.max_ = mix.min_ = block_size;
    mix.mean_ = block_size;
    return mix;
  }
  std::vector<double> weights;
  uint64_t total = 0;
  mix.sizes_.clear();
  mix.max_ = 0;
  mix.min_ = UINT32_MAX;
  double bytes = 0;
  for (const BlockSizeShare& s : shares) {
    if (s.block_size == 0) return absl::InvalidArgumentError("block size 0");
    mix.sizes_.push_back(s.block_size);
    weights.push_back(s.percent);
    total += s.percent;
    mix.max_ = std::max(mix.max_, s.block_size);
    mix.min_ = std::min(mix.min_, s.block_size);
    bytes += static_cast<double>(s.block_size) * s.percent;
  }
  if (total != 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("the percentages add up to ", total, ", not 100"));
  }
  mix.mean_ = bytes / 100;
  absl::StatusOr<AliasTable> table = AliasTable::Build(weights);
  if (!table.ok()) return table.status();
  mix.table_ = *std::move(table);
  return mix;
}

}  // namespace blkperf
