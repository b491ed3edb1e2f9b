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

#include "absl/time/time.h"

namespace blkperf {

// Bounds an operator (or the defaults) puts on one workload.
struct EngineLimits {
  uint32_t max_queue_depth = 4096;
  uint32_t max_block_size = 64u << 20;
  uint32_t max_threads = 256;
  // I/O buffer memory of one workload: threads x queue_depth x block_size.
  uint64_t max_buffer_bytes = 4ull << 30;
  absl::Duration max_runtime = absl::Hours(24);
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_ENGINE_LIMITS_H_
