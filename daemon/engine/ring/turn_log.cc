#include "daemon/engine/ring/turn_log.h"

#include <algorithm>
#include <bit>

#include "absl/base/internal/raw_logging.h"

namespace blkperf::internal {

TurnLog::TurnLog(uint32_t max_inflight_ios) {
  ABSL_RAW_CHECK(max_inflight_ios > 0 && max_inflight_ios <= kMaxInflight,
                 "TurnLog: max_inflight_ios out of range");
  const uint32_t capacity = std::bit_ceil(max_inflight_ios + 1);
  turns_.resize(capacity);
  mask_ = capacity - 1;
  last_ = mask_;  // the first turn takes slot 0
}

std::optional<int64_t> TurnLog::OldestSubmitNs() const {
  std::optional<int64_t> oldest;
  for (const Turn& turn : turns_) {
    if (turn.outstanding != 0 &&
        (!oldest.has_value() || turn.stamps.submit_ns < *oldest)) {
      oldest = turn.stamps.submit_ns;
    }
  }
  return oldest;
}

}  // namespace blkperf::internal
