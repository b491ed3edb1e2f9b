// Where a mapped range's 4 KiB pages lie in physical memory, from
// /proc/self/pagemap: how many are present and how many neighbours in
// virtual order are also neighbours in physical memory.
//
// On 4 KiB pages this moves I/O cost: a plain (not registered) buffer's
// pages are pinned and unpinned one struct page at a time on every I/O,
// and physically contiguous pages merge into fewer bio segments. At 1 MiB
// on zram, fixed vs plain buffers ranged from 1.08 to 1.73 in both blkperf
// and t/io_uring with where the plain buffers' pages lay (bench/RESULTS.md),
// so reports carry it beside the numbers it moves.
//
//   absl::StatusOr<PagePlacement> placement =
//       ReadPagePlacement(buffers.base(), buffers.mapped_bytes());
//   placement->AdjacentShare();  // 1.0: one contiguous run
//
// Not for the hot path: it reads 8 bytes of pagemap per page.
#ifndef BLKPERF_DAEMON_ENGINE_HOST_PAGE_PLACEMENT_H_
#define BLKPERF_DAEMON_ENGINE_HOST_PAGE_PLACEMENT_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace blkperf::internal {

struct PagePlacement {
  uint64_t pages_present = 0;  // pages faulted in (mapped)
  // Pairs of present pages next to each other in virtual order, and those
  // of them whose page frames are next to each other too (either way).
  uint64_t pairs = 0;
  uint64_t adjacent_pairs = 0;

  // adjacent_pairs / pairs; 0 when there are no pairs.
  double AdjacentShare() const;
  // Adds another range's counts (the ranges are not neighbours).
  void Merge(const PagePlacement& other);
};

// Counts /proc/PID/pagemap entries (one per 4 KiB page, in virtual order;
// bit 63 present, bits 0-54 the page frame) into *placement.
// *previous_frame carries the last entry's frame, or -1 when absent, from
// one call to the next over one range; start a range with -1.
void CountPagemapEntries(absl::Span<const uint64_t> entries,
                         int64_t* previous_frame, PagePlacement* placement);

// Reads the placement of this process's pages in [begin, begin + bytes)
// (whole 4 KiB pages). FAILED_PRECONDITION when the kernel hides page
// frames (reading them needs CAP_SYS_ADMIN), an errno status when pagemap
// cannot be read.
absl::StatusOr<PagePlacement> ReadPagePlacement(const void* begin,
                                                size_t bytes);

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_HOST_PAGE_PLACEMENT_H_
