// How a large logical I/O is cut into device-sized requests (SQEs).
//
//   absl::StatusOr<SplitStrategy> s = ParseSplitStrategy("fixed:128k");
//   SplitStrategyName(*s)  // "fixed:131072"
//
// none:          one SQE per logical I/O; the kernel splits as it must.
// limits:        blkperf cuts pieces the kernel will not need to split
//                (max_sectors, chunk_sectors, max_segments of the buffer).
// fixed:<bytes>: pieces of a chosen size (multiple of the logical block size).
#ifndef BLKPERF_MODEL_SPLIT_STRATEGY_H_
#define BLKPERF_MODEL_SPLIT_STRATEGY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

struct SplitStrategy {
  enum class Kind { kNone, kLimits, kFixed };
  Kind kind = Kind::kNone;
  uint64_t fixed_bytes = 0;  // kFixed only

  friend bool operator==(const SplitStrategy& a, const SplitStrategy& b) {
    return a.kind == b.kind && a.fixed_bytes == b.fixed_bytes;
  }
};

// Accepts "none", "limits", "fixed:<bytes>" with an optional k/m suffix
// (binary). InvalidArgument naming `field` otherwise.
absl::StatusOr<SplitStrategy> ParseSplitStrategy(
    absl::string_view text, absl::string_view field = "split");
std::string SplitStrategyName(const SplitStrategy& strategy);

}  // namespace blkperf

#endif  // BLKPERF_MODEL_SPLIT_STRATEGY_H_
