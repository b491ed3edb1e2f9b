#include "daemon/engine/ring/ring_sizing.h"

#include <algorithm>

namespace blkperf::internal {

uint32_t RingPieceCapacity(const PieceNeeds& needs) {
  const uint32_t qd = std::max<uint32_t>(1, needs.queue_depth);
  // `limits` is the usual live switch and needs few pieces: always room for
  // it where the ring allows. Finer fixed splits get the bounded headroom.
  uint32_t capacity = std::max<uint32_t>(1, needs.named);
  if (needs.limits.has_value()) capacity = std::max(capacity, *needs.limits);
  const uint32_t headroom = std::max<uint32_t>(1, kLiveSwitchRingEntries / qd);
  capacity = std::max(capacity, std::min(needs.finest, headroom));
  return std::min(capacity, std::max<uint32_t>(1, kMaxRingEntries / qd));
}

uint32_t RingEntries(uint32_t queue_depth, uint32_t pieces) {
  const uint32_t wanted = queue_depth * pieces;
  uint32_t entries = 1;
  while (entries < wanted) entries <<= 1;
  return entries;
}

}  // namespace blkperf::internal
