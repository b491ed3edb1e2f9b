// Checks and resolution of a spec's I/O shape: offset distributions,
// random/sequential mixes, block-size mixes, rates, syncs, trims, job groups
// and the SLO search. Part of ResolveSpec (spec_validation.h); every error
// is InvalidArgument naming the field ("groups[1].read_bssplit[0]",
// "rate_bw", "slo.precision") and the value.
//
//   BLKPERF_ASSIGN_OR_RETURN(std::vector<GroupShape> groups,
//                            ResolveGroups(spec, limits, CurrentHostCpus()));
//   for (each target) BLKPERF_RETURN_IF_ERROR(
//       ValidateGroupsAgainstTarget(spec, groups, i, info));
#ifndef BLKPERF_DAEMON_ENGINE_SPEC_SHAPE_VALIDATION_H_
#define BLKPERF_DAEMON_ENGINE_SPEC_SHAPE_VALIDATION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/engine/host/host_cpus.h"
#include "model/engine_limits.h"
#include "model/group_shape.h"
#include "model/target_info.h"
#include "model/workload_spec.h"

namespace blkperf {

namespace internal {

// Validates the shape fields (of the workload and of each group) and
// returns the groups with every default filled in: one group of the
// workload's own fields when it has none. `cpus`: every `cpus` entry must
// be online; threads without one go round-robin over cpus.placement.
absl::StatusOr<std::vector<GroupShape>> ResolveGroups(
    const WorkloadSpec& spec, const EngineLimits& limits,
    const HostCpus& cpus);

// What each group's I/O sizes, alignment, sequential ranges and trims need
// of target `index`.
absl::Status ValidateGroupsAgainstTarget(const WorkloadSpec& spec,
                                         const std::vector<GroupShape>& groups,
                                         size_t index, const TargetInfo& info);

// Bytes of I/O buffers: threads x ThreadBufferBytes (queue_depth x largest
// block), summed over the groups.
uint64_t GroupBufferBytes(const std::vector<GroupShape>& groups);

// "" without groups, else "groups[<i>].": the prefix of a group's fields.
std::string GroupFieldPrefix(const WorkloadSpec& spec, size_t group);

}  // namespace internal
}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SPEC_SHAPE_VALIDATION_H_
