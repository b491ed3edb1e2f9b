// A host-wide registry of the CPUs blkperf submitters hold, so that two
// runs on one machine (two `blkperfd run`, or a run beside a daemon, each
// with its own data dir) do not both pin to the first CPU and report as if
// alone.
//
// One lock file per CPU, <root>/cpus/cpuN, held with flock(LOCK_EX) for as
// long as the run's CpuRegistration lives; the kernel drops the lock when
// the process ends, so a crashed run frees its CPUs. The file holds the
// holder's pid, for the note of a run that shares the CPU.
//
//   absl::StatusOr<CpuRegistration> reg = RegisterCpus(
//       CpuRegistryRoot(), CurrentHostCpus().placement, spec.cpus,
//       TopLevelThreads(spec), /*refuse_sharing=*/false);
//   spec.cpus = reg->cpus;   // one per thread; keep `reg` alive for the run
//   if (!reg->note.empty()) notes.push_back(reg->note);
#ifndef BLKPERF_DAEMON_ENGINE_HOST_CPU_REGISTRY_H_
#define BLKPERF_DAEMON_ENGINE_HOST_CPU_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/data_paths.h"  // CpuRegistryRoot
#include "base/unique_fd.h"

namespace blkperf {

// The registry's root is CpuRegistryRoot() (base/data_paths.h):
// $BLKPERF_CPU_REGISTRY when set and not empty, else /run/blkperf.

// What a run holds. Movable; the locks are released when it is destroyed.
struct CpuRegistration {
  // One CPU per thread: the requested ones, then the chosen ones.
  std::vector<int> cpus;
  // CPUs of `cpus` another live process holds in the registry, ascending.
  std::vector<int> shared;
  // For the report's notes: the sharing, or why the registry could not be
  // used (then nothing is held and no sharing is known); empty otherwise.
  std::string note;
  std::vector<UniqueFd> locks;
};

// Registers the CPUs of a run of `threads` submitter threads under `root`:
// each entry of `requested` (the spec's `cpus`, kept as given), then for
// each further thread the first CPU of `placement` that neither this run
// nor another process holds; when none is left, the first CPU of
// placement this run has not taken (the thread then shares it with another
// run), and placement[i % placement.size()] only once this run has taken
// them all.
// A CPU another process holds is listed in `shared` and named in `note`;
// with `refuse_sharing` that is a FailedPrecondition naming the CPU and its
// holder instead. A registry that cannot be created or opened (no
// permission on /run) is not an error: the CPUs are chosen as without one
// and `note` says so. REQUIRES: placement not empty.
absl::StatusOr<CpuRegistration> RegisterCpus(const std::string& root,
                                             const std::vector<int>& placement,
                                             const std::vector<int>& requested,
                                             uint32_t threads,
                                             bool refuse_sharing);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_CPU_REGISTRY_H_
