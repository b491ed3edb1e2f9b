// Collects a result's Environment (model/environment.h) on the daemon's
// host: uname, /proc and /sys for the host, /sys/block/<disk> for each
// target's disk. Reads files only; a file that is absent or unreadable
// leaves its fact "unknown".
//
//   Environment env = CollectEnvironment(resolved.targets, spec_wire_bytes);
//   env.io_uring_features = IoUringFeatures(snapshot.ring);
#ifndef BLKPERF_DAEMON_ENGINE_HOST_ENVIRONMENT_H_
#define BLKPERF_DAEMON_ENGINE_HOST_ENVIRONMENT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "model/environment.h"
#include "model/snapshot.h"
#include "model/target_info.h"

namespace blkperf {

// The host's facts, the build's, and one TargetEnvironment per target (at
// most kMaxEnvironmentTargets). `spec_bytes`: the resolved spec in a
// deterministic serialization, hashed into spec_hash.
Environment CollectEnvironment(const std::vector<TargetInfo>& targets,
                               absl::string_view spec_bytes);

// The disk facts of one target, from /sys/block/<info.device_name>.
TargetEnvironment CollectTargetEnvironment(const TargetInfo& info);

// The ring features that took effect, '|'-joined: the setup flags, then
// registered_ring_fd, fixed_buffers, registered_files, polled, sqpoll,
// huge_pages where on, and io_mode=<mode>. Unknown before the rings exist.
std::string IoUringFeatures(const RingSetup& ring);

// "fnv1a64:" and 16 hex digits.
std::string SpecHash(absl::string_view spec_bytes);

// The version of the liburing loaded in this process, from its file name
// (liburing.so.2.3 -> "2.3"); unknown when it cannot be found.
std::string LoadedLiburingVersion();

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_ENVIRONMENT_H_
