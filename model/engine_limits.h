// The bounds an operator (or the defaults) puts on one workload: the
// engine's spec validation (daemon/engine/spec) refuses a spec past them,
// and the daemon's flags (--max_queue_depth, ...) set them.
//
//   EngineLimits limits;               // the defaults
//   limits.max_buffer_bytes = 1ull << 30;
//   ResolveSpec(spec, limits);
#ifndef BLKPERF_MODEL_ENGINE_LIMITS_H_
#define BLKPERF_MODEL_ENGINE_LIMITS_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace blkperf {

// Bounds an operator (or the defaults) puts on one workload.
struct EngineLimits {
  uint32_t max_queue_depth = 4096;
  uint32_t max_block_size = 64u << 20;
  uint32_t max_threads = 256;
  // I/O buffer memory of one workload: threads x queue_depth x the largest
  // block, summed over the job groups (GroupBufferBytes, the one rule).
  uint64_t max_buffer_bytes = 4ull << 30;
  absl::Duration max_runtime = absl::Hours(24);
  // Set by a daemon whose flags (--max_buffer_bytes, ...) these are: a
  // refusal names the flag ("the daemon limit --max_buffer_bytes=1048576")
  // rather than the field ("the limit max_buffer_bytes 1048576").
  bool daemon_flags = false;
};

// How a refusal names limit `name` of `limits` at `value`.
inline std::string LimitText(const EngineLimits& limits, absl::string_view name,
                             uint64_t value) {
  return limits.daemon_flags
             ? absl::StrCat("the daemon limit --", name, "=", value)
             : absl::StrCat("the limit ", name, " ", value);
}

}  // namespace blkperf

#endif  // BLKPERF_MODEL_ENGINE_LIMITS_H_
