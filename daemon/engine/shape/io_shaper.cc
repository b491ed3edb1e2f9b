#include "daemon/engine/shape/io_shaper.h"

#include "absl/strings/str_cat.h"

namespace blkperf::internal {

absl::StatusOr<IoShaper> IoShaper::Create(
    const GroupShape& group, const std::vector<uint64_t>& target_sizes,
    uint32_t thread_in_group) {
  IoShaper shaper;
  shaper.alignment_ = group.alignment;
  shaper.read_percent_ = group.read_percent;
  shaper.random_percent_ = group.random_percent;
  absl::StatusOr<BlockSizeMix> reads =
      BlockSizeMix::Create(group.read_bssplit, group.block_size);
  if (!reads.ok()) return reads.status();
  absl::StatusOr<BlockSizeMix> writes =
      BlockSizeMix::Create(group.write_bssplit, group.block_size);
  if (!writes.ok()) return writes.status();
  shaper.mixes_[0] = *std::move(reads);
  shaper.mixes_[1] = *std::move(writes);
  const uint64_t largest = group.max_block_size;
  const bool sequential_op = !OpIsRandom(group.op);
  for (uint64_t size : target_sizes) {
    if (size < largest) {
      return absl::InvalidArgumentError(
          absl::StrCat("a target of ", size, " bytes is smaller than the ",
                       largest, "-byte block"));
    }
    Target t;
    const uint64_t slots = (size - largest) / group.alignment + 1;
    absl::StatusOr<OffsetSampler> sampler =
        OffsetSampler::Create(group.distribution, slots);
    if (!sampler.ok()) return sampler.status();
    t.sampler = *std::move(sampler);
    if (sequential_op) {
      // Each thread of the group its own range, aligned down.
      const auto bound = [&](uint64_t i) {
        const uint64_t at = static_cast<uint64_t>(
            static_cast<unsigned __int128>(size) * i / group.threads);
        return at - at % group.alignment;
      };
      t.range_first = bound(thread_in_group);
      t.range_end = thread_in_group + 1 == group.threads
                        ? size
                        : bound(thread_in_group + 1);
    } else {
      t.range_first = 0;
      t.range_end = size;
    }
    t.cursor = t.range_first;
    shaper.targets_.push_back(std::move(t));
  }
  return shaper;
}

}  // namespace blkperf::internal
