// Checks a WorkloadSpec against the system and fills in its defaults.
//
//   absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, EngineLimits{});
//   if (!resolved.ok()) return resolved.status();  // names field and reason
//
// Every impossible or unsafe combination is an error whose message starts
// with the field, e.g. "block_size 3000 is not a multiple of /dev/zram0's
// logical block size 4096". Writes need TargetSpec::allow_write
// (PermissionDenied otherwise).
#ifndef BLKPERF_DAEMON_ENGINE_SPEC_SPEC_VALIDATION_H_
#define BLKPERF_DAEMON_ENGINE_SPEC_SPEC_VALIDATION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/engine/host/host_cpus.h"  // what ResolveSpec places against
#include "daemon/engine/target/target.h"
#include "model/engine_limits.h"
#include "model/group_shape.h"
#include "model/workload_spec.h"

namespace blkperf {

// A/B slices shorter than this are refused (ab_slice).
inline constexpr absl::Duration kMinAbSlice = absl::Milliseconds(10);
// Most strategy switches one workload records (its phase table): A/B
// schedules needing more are refused, SetSplitStrategy fails past it.
inline constexpr int64_t kMaxAbSwitches = 1023;
// Shortest io_timeout (0 turns stall detection off).
inline constexpr absl::Duration kMinIoTimeout = absl::Milliseconds(10);

// A spec whose defaults are filled in (alignment, batches, threads, cpus) and
// whose targets were probed. Fields of `spec` are final.
struct ResolvedSpec {
  WorkloadSpec spec;
  std::vector<TargetInfo> targets;  // one per spec.targets entry
  bool writes = false;              // any I/O of the op writes
  // Smallest target size rounded down to the alignment: offsets stay below.
  uint64_t min_target_bytes = 0;
  // The job groups with every default filled in (one group of the spec's
  // own fields when it has none), and each thread's group: threads
  // [g.first_thread, g.first_thread + g.threads) belong to groups[g].
  // spec.threads and spec.cpus cover every group's, in group order.
  std::vector<GroupShape> groups;
  std::vector<uint16_t> thread_group;
  // Over the groups: the largest I/O, the largest queue depth, and whether
  // any needs the shaped loop.
  uint32_t max_block_size = 0;
  uint32_t max_queue_depth = 0;
  bool shaped = false;
};

// A spec whose fields passed every check that needs no target, with its
// job groups resolved: what ValidateSpec returns and ResolveSpec takes on
// without checking the fields again (a spec is validated once).
struct ValidatedSpec {
  WorkloadSpec spec;
  std::vector<GroupShape> groups;  // as ResolvedSpec::groups
  HostCpus host_cpus;              // what it was validated against
  // The limits it was validated against: the engine's own runs for it
  // (preconditioning, daemon/engine/precondition.cc) keep to them too.
  EngineLimits limits;
};

// The checks that need no target (ranges, batches, CPUs, times, permission
// to create files). InvalidArgument naming the field otherwise.
absl::StatusOr<ValidatedSpec> ValidateSpec(const WorkloadSpec& spec,
                                           const EngineLimits& limits);

// ValidateSpec's verdict alone (checking a spec well before its run).
absl::Status ValidateSpecFields(const WorkloadSpec& spec,
                                const EngineLimits& limits);

// A spec without groups placed on `cpus`: the host-wide CPU registry's
// pick (RegisterCpus), one distinct placement CPU per thread, so already
// valid for it. Specs with groups keep their own.
void PlaceOnCpus(const std::vector<int>& cpus, ValidatedSpec* validated);

// Probes each target once and checks the spec against it, without touching
// any target's data. Every target must exist: Workload::Arm creates file
// targets with create_size (after ValidateSpec) before it calls this.
// `probed`, when not empty, holds one TargetInfo per target, already probed
// through the descriptor the caller opened (TargetSpec::fd): those targets
// are not probed again.
absl::StatusOr<ResolvedSpec> ResolveSpec(ValidatedSpec validated,
                                         std::vector<TargetInfo> probed = {});

// ValidateSpec, then ResolveSpec.
absl::StatusOr<ResolvedSpec> ResolveSpec(const WorkloadSpec& spec,
                                         const EngineLimits& limits);

// A fixed piece size must be a multiple of the target's logical block size.
// InvalidArgument naming `field` otherwise.
absl::Status CheckSplitForTarget(const SplitStrategy& strategy,
                                 absl::string_view field,
                                 const TargetInfo& target);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SPEC_SPEC_VALIDATION_H_
