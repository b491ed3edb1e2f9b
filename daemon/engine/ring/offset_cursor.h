// The plain loop's offsets (submitter.h): on each target, a uniformly random
// slot of the group's alignment, or the next block of the thread's own
// sequential range (1/n of the target for a group of n threads, read or
// written once per pass, then from its start again). Every offset leaves
// room for a whole block before the target's end. Sized at setup; Next
// never allocates, locks or calls.
//
//   OffsetCursor offsets({.target_sizes = {1 << 30},
//                         .block_size = 4096,
//                         .alignment = 4096,
//                         .random = false,
//                         .thread_in_group = 1,
//                         .group_threads = 4});
//   Xorshift rng(XorshiftState(seed, thread_index));
//   const uint64_t offset = offsets.Next(/*target=*/0, rng);  // 256 MiB
#ifndef BLKPERF_DAEMON_ENGINE_RING_OFFSET_CURSOR_H_
#define BLKPERF_DAEMON_ENGINE_RING_OFFSET_CURSOR_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "daemon/engine/ring/xorshift.h"

namespace blkperf::internal {

class OffsetCursor {
 public:
  struct Layout {
    // Bytes of each target. REQUIRES: each >= block_size.
    std::vector<uint64_t> target_sizes;
    uint32_t block_size = 4096;  // bytes of one I/O; sequential I/O's step
    uint32_t alignment = 4096;   // random offsets are multiples of this
    bool random = false;
    // The thread's place in its group. REQUIRES: thread_in_group <
    // group_threads.
    uint32_t thread_in_group = 0;
    uint32_t group_threads = 1;
  };

  OffsetCursor() = default;
  // Slot k of a target is at k * stride (the alignment for random offsets,
  // the block size for sequential ones), for slots whose block ends inside
  // the target; a thread's sequential range is at least one slot.
  explicit OffsetCursor(const Layout& layout)
      : stride_(layout.random ? layout.alignment : layout.block_size),
        random_(layout.random) {
    targets_.reserve(layout.target_sizes.size());
    for (const uint64_t size : layout.target_sizes) {
      Target t;
      t.slots = (size - layout.block_size) / stride_ + 1;
      t.first = t.slots * layout.thread_in_group / layout.group_threads;
      t.end = std::max(t.first + 1, t.slots * (layout.thread_in_group + 1) /
                                        layout.group_threads);
      t.next = t.first;
      targets_.push_back(t);
    }
  }

  // The next offset on `target`: random ones draw one number of `rng`
  // (sequential ones draw none). REQUIRES: target < the layout's targets.
  uint64_t Next(uint16_t target, Xorshift& rng) {
    Target& t = targets_[target];
    uint64_t slot;
    if (random_) {
      // Lemire's multiply-shift maps a 64-bit random onto [0, slots).
      slot = static_cast<uint64_t>(
          (static_cast<unsigned __int128>(rng.Next()) * t.slots) >> 64);
    } else {
      slot = t.next;
      t.next = slot + 1 == t.end ? t.first : slot + 1;
    }
    return slot * stride_;
  }

  // Of `target`: how many slots it has, and the thread's sequential range
  // [range_first, range_end) in bytes.
  uint64_t slots(uint16_t target) const { return targets_[target].slots; }
  uint64_t range_first(uint16_t target) const {
    return targets_[target].first * stride_;
  }
  uint64_t range_end(uint16_t target) const {
    return targets_[target].end * stride_;
  }

 private:
  // One line's worth per target: a draw touches one.
  struct Target {
    uint64_t slots = 0;
    uint64_t first = 0;  // the thread's sequential range [first, end)
    uint64_t end = 0;
    uint64_t next = 0;  // sequential: the next slot
  };
  std::vector<Target> targets_;
  uint64_t stride_ = 0;
  bool random_ = false;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_OFFSET_CURSOR_H_
