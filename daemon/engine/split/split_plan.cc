#include "daemon/engine/split/split_plan.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "model/split_strategy.h"

namespace blkperf {
namespace {

constexpr unsigned kMinPageShift = 12;  // 4 KiB
constexpr unsigned kMaxPageShift = 30;  // 1 GiB huge pages

uint64_t CeilDiv(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// Largest power of two dividing `x`; `x` must be nonzero.
uint64_t LowestBit(uint64_t x) { return x & (~x + 1); }

}  // namespace

absl::StatusOr<Splitter> Splitter::Create(const SplitStrategy& strategy,
                                          const DeviceSplitLimits& limits,
                                          unsigned page_shift) {
  if (page_shift < kMinPageShift || page_shift > kMaxPageShift) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_shift ", page_shift, " is outside [", kMinPageShift,
                     ", ", kMaxPageShift, "]"));
  }
  const uint32_t block = limits.logical_block_size;
  if (block < 512 || !std::has_single_bit(block)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "limits.logical_block_size ", block, " is not a power of two >= 512"));
  }

  Splitter splitter;
  splitter.strategy_ = strategy;
  splitter.logical_block_size_ = block;
  splitter.block_round_mask_ = ~(uint64_t{block} - 1);

  switch (strategy.kind) {
    case SplitStrategy::Kind::kNone:
      return splitter;
    case SplitStrategy::Kind::kFixed: {
      const std::string quoted =
          absl::StrCat("split \"", SplitStrategyName(strategy), "\" : ");
      if (strategy.fixed_bytes == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(quoted, "size must be greater than 0"));
      }
      if (strategy.fixed_bytes % block != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            quoted, "size ", strategy.fixed_bytes,
            " is not a multiple of the logical block size ", block));
      }
      return splitter;
    }
    case SplitStrategy::Kind::kLimits:
      break;
  }

  if (limits.chunk_bytes % block != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("limits.chunk_bytes ", limits.chunk_bytes,
                     " is not a multiple of the logical block size ", block));
  }
  const uint64_t page_bytes = uint64_t{1} << page_shift;
  const uint64_t virt = limits.virt_boundary_mask;
  if ((virt & (virt + 1)) != 0 || virt >= page_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "limits.virt_boundary_mask %#x is not 2^k - 1 below the page size "
        "%d, so page-granular segments cannot honour it",
        virt, page_bytes));
  }

  if (limits.max_io_bytes != 0) splitter.max_io_bytes_ = limits.max_io_bytes;
  splitter.chunk_bytes_ = limits.chunk_bytes;
  if (limits.chunk_bytes != 0 && std::has_single_bit(limits.chunk_bytes)) {
    splitter.chunk_mask_ = limits.chunk_bytes - 1;
  }
  splitter.unit_shift_ = page_shift;
  if (limits.max_segment_size != 0) {
    splitter.unit_shift_ = std::min<unsigned>(
        page_shift, std::bit_width(limits.max_segment_size) - 1);
  }
  splitter.max_segments_ = limits.max_segments;
  if (limits.max_segments != 0) {
    // < 2^32 * 2^30: no overflow.
    splitter.segment_window_ = uint64_t{limits.max_segments}
                               << splitter.unit_shift_;
    splitter.unit_mask_ = (uint64_t{1} << splitter.unit_shift_) - 1;
  }
  return splitter;
}

uint32_t Splitter::MaxPieces(uint32_t io_len, uint32_t alignment) const {
  if (io_len == 0) return 0;
  const uint64_t len = io_len;
  switch (strategy_.kind) {
    case SplitStrategy::Kind::kNone:
      return 1;
    case SplitStrategy::Kind::kFixed:
      return static_cast<uint32_t>(CeilDiv(len, strategy_.fixed_bytes));
    case SplitStrategy::Kind::kLimits:
      break;
  }
  const uint64_t block = logical_block_size_;

  // Every piece except the last one of a chunk section (and the sub-block
  // tail below) ended because one more block would break max_io_bytes (so it
  // is exactly max_io_bytes rounded down to a block) or the segment limit.
  // A piece [b, e) that ends on the segment limit has
  // (b mod unit) + (e - b) + block > max_segments * unit, and b is a multiple
  // of min(block, unit), so it is at least `min_segment_piece` long. Pieces
  // are never shorter than a block. So within one chunk section of s bytes
  // there are at most ceil(s / min_piece) pieces.
  uint64_t min_piece = kUnlimited;
  if (max_io_bytes_ != kUnlimited)
    min_piece = max_io_bytes_ & block_round_mask_;
  if (max_segments_ != 0) {
    const uint64_t unit = uint64_t{1} << unit_shift_;
    const uint64_t room = segment_window_ + std::min(block, unit);
    uint64_t min_segment_piece = block;
    if (room > block + unit) {
      // Smallest multiple of a block > room - block - unit.
      min_segment_piece = ((room - block - unit) / block + 1) * block;
    }
    min_piece = std::min(min_piece, min_segment_piece);
  }
  min_piece = std::max(min_piece, block);

  uint64_t pieces;
  if (chunk_bytes_ == 0) {
    pieces = CeilDiv(len, min_piece);
  } else {
    // Pieces never cross a chunk boundary: they split the I/O into sections
    // at the boundaries inside it. dev_off mod chunk is a multiple of
    // g = gcd(alignment, chunk), so at most (chunk - g + len - 1) / chunk
    // boundaries fall inside.
    const uint64_t chunk = chunk_bytes_;
    const uint64_t align =
        std::max<uint64_t>(alignment == 0 ? 1 : LowestBit(alignment), block);
    const uint64_t g = std::min(align, LowestBit(chunk));
    const uint64_t per_chunk = CeilDiv(chunk, min_piece);
    if (g == chunk) {
      // Starts on a boundary: full chunks, then the rest.
      const uint64_t full = len / chunk;
      pieces = full * per_chunk + CeilDiv(len % chunk, min_piece);
    } else {
      const uint64_t boundaries = (chunk - g + len - 1) / chunk;
      if (boundaries == 0) {
        pieces = CeilDiv(len, min_piece);
      } else {
        // boundaries - 1 full chunks in the middle; the partial first and
        // last sections together hold the rest, in at most one piece more
        // than the rest would need on its own. More boundaries never give
        // fewer pieces, so the most that fit is the worst case.
        const uint64_t middle = (boundaries - 1) * chunk;
        pieces =
            (boundaries - 1) * per_chunk + CeilDiv(len - middle, min_piece) + 1;
      }
    }
  }
  // When len is not a multiple of a block, the last whole-block piece may be
  // cut short by `remaining` and a sub-block tail follows: one more.
  const uint64_t tail = len % block != 0 ? 1 : 0;
  pieces += tail;
  // No piece but the tail is shorter than a block.
  pieces = std::min(pieces, len / block + tail);
  return static_cast<uint32_t>(pieces);
}

}  // namespace blkperf
