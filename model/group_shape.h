// What one job group's submitter threads do, with every default filled in:
// the resolved form of a WorkloadSpec's shape fields (a workload without
// groups is one group of its own fields). ResolveSpec builds these; each
// submitter thread reads its group's.
//
//   const GroupShape& g = resolved.groups[resolved.thread_group[index]];
//   if (g.shaped) ... run the loop with offset tables, mixes and a pacer
#ifndef BLKPERF_MODEL_GROUP_SHAPE_H_
#define BLKPERF_MODEL_GROUP_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/io_shape.h"
#include "model/workload_spec.h"

namespace blkperf {

struct GroupShape {
  // The group's name; "" for the one implicit group of a spec without
  // groups.
  std::string name;
  // Its threads are [first_thread, first_thread + threads) of the
  // workload's, pinned to `cpus`.
  uint32_t first_thread = 0;
  uint32_t threads = 0;
  std::vector<int> cpus;
  Op op = Op::kRandRead;
  uint32_t read_percent = 50;  // 100 for read-only ops, 0 for write/trim
  uint32_t block_size = 4096;  // when a direction has no mix
  uint32_t alignment = 4096;   // random offsets are multiples of this
  uint32_t queue_depth = 32;
  uint32_t submit_batch = 32;
  uint32_t complete_batch = 32;
  OffsetDistribution distribution;
  uint32_t random_percent = 100;  // 0 for sequential ops
  std::vector<BlockSizeShare> read_bssplit;
  std::vector<BlockSizeShare> write_bssplit;
  uint64_t rate_iops = 0;
  uint64_t rate_bw = 0;
  Arrivals arrivals = Arrivals::kUniform;
  uint32_t sync_every = 0;  // fsync or fdatasync after this many writes
  bool datasync = false;    // fdatasync rather than fsync
  // Over both mixes (and block_size where a direction has none): the
  // buffer slot size, and the smallest I/O.
  uint32_t max_block_size = 4096;
  uint32_t min_block_size = 4096;
  bool writes = false;
  // Needs the submitter's shaped loop: offset tables, size mixes, a random
  // and sequential mix, pacing, syncs or trims. Otherwise the plain loop
  // (fixed block size, uniform or sequential offsets, closed loop) runs.
  bool shaped = false;

  bool operator==(const GroupShape&) const = default;
};

// The one buffer-bytes rule: a submitter thread of `group` maps one slot of
// the largest block per queue entry (queue_depth x max_block_size). The
// buffer limit sums it over every thread; one_region needs it to fit one
// registration; SubmitterThread::AllocateBuffers maps exactly this (a NOP
// maps one page instead, and is bounded by neither).
inline uint64_t ThreadBufferBytes(const GroupShape& group) {
  return uint64_t{group.queue_depth} * group.max_block_size;
}

}  // namespace blkperf

#endif  // BLKPERF_MODEL_GROUP_SHAPE_H_
