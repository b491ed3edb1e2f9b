// Cutting one logical I/O into pieces (SQEs) that the kernel will not split.
//
//   DeviceSplitLimits limits = ...;  // from the target's sysfs queue/
//   absl::StatusOr<Splitter> splitter =
//       Splitter::Create(strategy, limits, /*page_shift=*/12);
//   // Ring sizing, once: splitter->MaxPieces(block_size, block_size).
//   // Hot path, per piece:
//   for (uint32_t done = 0; done < len;) {
//     const uint32_t piece = splitter->NextPieceLength(
//         dev_off + done, buf_off + done, len - done);
//     PrepareSqe(dev_off + done, buf_off + done, piece);
//     done += piece;
//   }
//
// The model. A logical I/O of `len` bytes at device byte offset `dev_off`
// reads into (or writes from) registered-buffer memory at byte offset
// `buf_off` of a buffer region made of pages of 2^page_shift bytes (4 KiB
// pages or 2 MiB huge pages); the region starts page aligned. The `limits`
// strategy cuts it so that no piece
//   - is longer than max_sectors (max_io_bytes),
//   - crosses a chunk_sectors boundary of the device offset, or
//   - spans more than max_segments segments of the buffer.
// Segments are counted in units of 2^unit_shift bytes of the buffer region,
// unit = min(page size, largest power of two <= max_segment_size), with
// SegmentCount() below. That is conservative, never optimistic:
//   - Pages that are adjacent in the region need not be physically
//     contiguous, so every page is assumed to be its own bio_vec and hence
//     its own segment; the kernel may merge physically contiguous pages and
//     then needs fewer.
//   - A page longer than max_segment_size is cut by the kernel into
//     ceil(bytes / max_segment_size) segments; whole power-of-two units no
//     longer than max_segment_size touched by the piece are at least as many.
//   - virt_boundary_mask (NVMe, RDMA): every bio_vec but the first must start
//     on the boundary and every one but the last must end on it. Page-
//     granular bio_vecs do, as long as a page is at least the boundary, which
//     Create() checks (it is 4 KiB on every such device). Within one page the
//     kernel splits at max_segment_size without creating gaps, so the mask
//     needs no further cuts.
//   - seg_boundary_mask is not modelled (4 GiB, or larger, on current
//     devices, beyond any page).
// All of it is arithmetic, O(1) per piece; nothing walks the segments.
#ifndef BLKPERF_DAEMON_ENGINE_SPLIT_SPLIT_PLAN_H_
#define BLKPERF_DAEMON_ENGINE_SPLIT_SPLIT_PLAN_H_

#include <cstdint>
#include <limits>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/status/statusor.h"
#include "model/split_strategy.h"

namespace blkperf {

// A block device's queue limits as the splitter needs them, from sysfs
// queue/, converted to bytes.
struct DeviceSplitLimits {
  uint32_t logical_block_size = 512;  // >= 512, power of two
  uint64_t max_io_bytes = 0;          // max_sectors_kb * 1024; 0 = unlimited
  uint32_t max_segments = 0;          // 0 = unlimited
  uint32_t max_segment_size = 0;      // bytes; 0 = unlimited
  uint64_t chunk_bytes = 0;           // chunk_sectors * 512; 0 = none
  uint64_t virt_boundary_mask = 0;    // 0 = none
};

// Segments that `len` bytes at byte offset `off` of a region made of units of
// 2^shift bytes span: (off mod 2^shift + len + 2^shift - 1) >> shift.
// REQUIRES: len > 0, shift < 64, off mod 2^shift + len + 2^shift < 2^64.
[[nodiscard]] inline uint64_t SegmentCount(uint64_t off, uint64_t len,
                                           unsigned shift) {
  return ((off & ((uint64_t{1} << shift) - 1)) + len + (uint64_t{1} << shift) -
          1) >>
         shift;
}

// Cuts logical I/Os by one SplitStrategy for one target. Immutable and cheap
// to copy (a few words): build one per strategy switch, off the hot path, and
// hand copies to the submitters.
class Splitter {
 public:
  // Strategy `none` on a target with 512-byte blocks: every I/O is one piece.
  Splitter() = default;

  // Errors, all InvalidArgument:
  //   - fixed size 0 or not a multiple of limits.logical_block_size
  //     (`split "fixed:1000" : size 1000 is not a multiple of the logical
  //     block size 4096`);
  //   - page_shift outside [12, 30];
  //   - limits.logical_block_size not a power of two >= 512;
  //   - for `limits` only: chunk_bytes not a multiple of the logical block
  //     size, or a virt_boundary_mask that is not 2^k - 1 below the page
  //     size (see the model above).
  static absl::StatusOr<Splitter> Create(const SplitStrategy& strategy,
                                         const DeviceSplitLimits& limits,
                                         unsigned page_shift);

  // Length of the next piece of a logical I/O that has `remaining` bytes left
  // starting at device offset `dev_off` and buffer-region offset `buf_off`.
  // Always > 0 and <= remaining. For `limits` it is the longest multiple of
  // the logical block size that fits every limit, and at least one block
  // (or `remaining` when less than a block is left); for `fixed:N`
  // min(N, remaining); for `none` remaining.
  // REQUIRES: remaining > 0. For the limits to hold: dev_off and buf_off are
  // multiples of the logical block size, and one block alone fits them.
  [[nodiscard]] ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t NextPieceLength(
      uint64_t dev_off, uint64_t buf_off, uint32_t remaining) const {
    switch (strategy_.kind) {
      case SplitStrategy::Kind::kNone:
        return remaining;
      case SplitStrategy::Kind::kFixed:
        return remaining < strategy_.fixed_bytes
                   ? remaining
                   : static_cast<uint32_t>(strategy_.fixed_bytes);
      case SplitStrategy::Kind::kLimits:
        break;
    }
    uint64_t cap = remaining < max_io_bytes_ ? remaining : max_io_bytes_;
    // Bytes to the next chunk boundary; a division only for chunk sizes that
    // are not powers of two.
    if (chunk_bytes_ != 0) {
      const uint64_t into_chunk =
          chunk_mask_ != 0 ? dev_off & chunk_mask_ : dev_off % chunk_bytes_;
      const uint64_t to_boundary = chunk_bytes_ - into_chunk;
      if (to_boundary < cap) cap = to_boundary;
    }
    // SegmentCount(buf_off, len, unit_shift) <= max_segments
    //   <=> (buf_off mod unit) + len <= max_segments * unit.
    // Unlimited: segment_window_ is ~0 and unit_mask_ 0, so this never binds.
    const uint64_t segment_room = segment_window_ - (buf_off & unit_mask_);
    if (segment_room < cap) cap = segment_room;
    const uint64_t piece = cap & block_round_mask_;
    if (ABSL_PREDICT_FALSE(piece == 0)) {
      // A limit tighter than one block, or less than a block left: one block
      // (or what is left) is the smallest I/O there is.
      return remaining < logical_block_size_ ? remaining : logical_block_size_;
    }
    return static_cast<uint32_t>(piece);
  }

  // An upper bound on the pieces NextPieceLength cuts an I/O of `io_len`
  // bytes into, for every start whose dev_off and buf_off are multiples of
  // `alignment` (a power of two; pass the logical block size when nothing
  // better is known, smaller values count as the logical block size). Exact
  // for I/Os cut by max_io_bytes or chunk_bytes alone; for the segment limit
  // it allows each piece to start up to a page (or unit) minus a block into
  // its first segment. For ring sizing, not the hot path. 0 for io_len 0.
  [[nodiscard]] uint32_t MaxPieces(uint32_t io_len, uint32_t alignment) const;

  const SplitStrategy& strategy() const { return strategy_; }

 private:
  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

  SplitStrategy strategy_;
  uint32_t logical_block_size_ = 512;
  uint64_t block_round_mask_ = ~uint64_t{511};  // rounds down to a block
  // kLimits only:
  uint64_t max_io_bytes_ = kUnlimited;
  uint64_t chunk_bytes_ = 0;              // 0 = none
  uint64_t chunk_mask_ = 0;               // chunk_bytes_ - 1 if a power of two
  uint64_t segment_window_ = kUnlimited;  // max_segments << unit_shift
  uint64_t unit_mask_ = 0;     // (1 << unit_shift) - 1; 0 = unlimited
  uint32_t max_segments_ = 0;  // 0 = unlimited
  unsigned unit_shift_ = 0;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SPLIT_SPLIT_PLAN_H_
