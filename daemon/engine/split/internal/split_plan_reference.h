// A plain, slow reference for Splitter::NextPieceLength, for tests and the
// benchmark only. It grows the piece one logical block at a time and counts
// the buffer segments each block adds by walking them, so that it shares no
// arithmetic with the O(1) version it checks.
//
//   uint32_t piece = internal::NextPieceLengthReference(
//       strategy, limits, page_shift, dev_off, buf_off, remaining);
#ifndef BLKPERF_DAEMON_ENGINE_SPLIT_INTERNAL_SPLIT_PLAN_REFERENCE_H_
#define BLKPERF_DAEMON_ENGINE_SPLIT_INTERNAL_SPLIT_PLAN_REFERENCE_H_

#include <cstdint>

#include "daemon/engine/split/split_plan.h"
#include "model/split_strategy.h"

namespace blkperf::internal {

// Same contract as Splitter::NextPieceLength for a Splitter that
// Splitter::Create(strategy, limits, page_shift) accepted.
// REQUIRES: remaining > 0.
inline uint32_t NextPieceLengthReference(const SplitStrategy& strategy,
                                         const DeviceSplitLimits& limits,
                                         unsigned page_shift, uint64_t dev_off,
                                         uint64_t buf_off, uint32_t remaining) {
  switch (strategy.kind) {
    case SplitStrategy::Kind::kNone:
      return remaining;
    case SplitStrategy::Kind::kFixed:
      return remaining < strategy.fixed_bytes
                 ? remaining
                 : static_cast<uint32_t>(strategy.fixed_bytes);
    case SplitStrategy::Kind::kLimits:
      break;
  }
  const uint64_t block = limits.logical_block_size;
  // A segment is a page, halved until it is no longer than max_segment_size.
  uint64_t unit = uint64_t{1} << page_shift;
  if (limits.max_segment_size != 0) {
    while (unit > limits.max_segment_size) unit /= 2;
  }

  uint64_t len = 0;       // piece so far: whole blocks that fit every limit
  uint64_t segments = 0;  // segments [buf_off, buf_off + len) spans
  while (remaining - len >= block) {
    const uint64_t next = len + block;
    if (limits.max_io_bytes != 0 && next > limits.max_io_bytes) break;
    // The piece's first and last byte must lie in the same chunk.
    if (limits.chunk_bytes != 0 && (dev_off + next - 1) / limits.chunk_bytes !=
                                       dev_off / limits.chunk_bytes) {
      break;
    }
    // Walk the block's bytes segment by segment: each step starts at a byte
    // that begins a segment (the piece's first byte or a unit boundary) or
    // continues the segment the previous block ended in.
    uint64_t added = 0;
    const uint64_t end = buf_off + next;
    for (uint64_t p = buf_off + len; p < end; p = (p / unit + 1) * unit) {
      if (p == buf_off || p % unit == 0) ++added;
    }
    if (limits.max_segments != 0 && segments + added > limits.max_segments) {
      break;
    }
    segments += added;
    len = next;
  }
  if (len == 0) len = remaining < block ? remaining : block;
  return static_cast<uint32_t>(len);
}

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_SPLIT_INTERNAL_SPLIT_PLAN_REFERENCE_H_
