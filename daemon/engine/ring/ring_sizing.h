// How many pieces per logical I/O a workload's rings are sized for. The
// ring must hold queue_depth x pieces SQEs; SQEs (64 bytes) and CQEs (16
// bytes, twice as many) cost memory per submitter, and on kernels before
// 5.12 that memory counts against RLIMIT_MEMLOCK. So rings are sized for the
// strategies the spec names, plus headroom for live switches
// (SetSplitStrategy) that is bounded in entries, not in pieces:
//
//   capacity = min(max(named, limits, min(finest, kLiveSwitchRingEntries / qd)),
//                  kMaxRingEntries / qd)
//
// e.g. 1 MiB reads at queue_depth 128 with split none get 128 x 32 = 4,096
// entries, not 32,768. A live switch needing more pieces than the capacity
// is refused (Workload::SetSplitStrategy says by how much); naming the
// strategy in the spec sizes for it.
#ifndef BLKPERF_DAEMON_ENGINE_RING_RING_SIZING_H_
#define BLKPERF_DAEMON_ENGINE_RING_RING_SIZING_H_

#include <cstdint>
#include <optional>

namespace blkperf::internal {

// Most SQEs a ring can hold (IORING_MAX_ENTRIES).
inline constexpr uint32_t kMaxRingEntries = 32768;
// Ring entries a workload reserves, per submitter, for live switches to
// strategies the spec does not name.
inline constexpr uint32_t kLiveSwitchRingEntries = 4096;

struct PieceNeeds {
  uint32_t queue_depth = 1;
  // Most pieces any strategy named by the spec (split, ab_strategies) cuts
  // one I/O into. REQUIRES: queue_depth x named <= kMaxRingEntries.
  uint32_t named = 1;
  // Pieces of the `limits` strategy (the usual live switch); nullopt where
  // it cannot be planned.
  std::optional<uint32_t> limits;
  // block_size / the smallest logical block size: the finest fixed split.
  uint32_t finest = 1;
};

// Pieces per I/O to size every submitter's ring for (>= 1, >= named).
uint32_t RingPieceCapacity(const PieceNeeds& needs);

// SQ entries of a ring for `queue_depth` x `pieces` (a power of two, as
// io_uring rounds it). REQUIRES: the product <= kMaxRingEntries.
uint32_t RingEntries(uint32_t queue_depth, uint32_t pieces);

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_RING_SIZING_H_
