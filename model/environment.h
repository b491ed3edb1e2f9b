// Where a result was measured: the blkperf build, the host and each target's
// device and queue settings, as plain values. Every result carries one
// (WorkloadSnapshot::environment), so results from other kernels, firmware
// and months compare with their context (docs/results.md).
//
// Facts are text as the kernel gave them, trimmed, printable ASCII only
// (SanitizeFact) and at most kMaxFactBytes; a fact that could not be read is
// kUnknownFact, never a guess.
//
//   Environment env = CollectEnvironment(...);   // daemon side
//   if (env.kernel_release == kUnknownFact) ...
#ifndef BLKPERF_MODEL_ENVIRONMENT_H_
#define BLKPERF_MODEL_ENVIRONMENT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace blkperf {

inline constexpr char kUnknownFact[] = "unknown";
inline constexpr size_t kMaxFactBytes = 128;
// Targets described at most (a spec has at most this many targets anyway).
inline constexpr size_t kMaxEnvironmentTargets = 64;

// `raw` trimmed of surrounding white space, each byte outside printable
// ASCII replaced by '?', cut to kMaxFactBytes (a cut ends in "..."); empty
// after trimming: kUnknownFact.
std::string SanitizeFact(absl::string_view raw);

// One target and the disk under it (for a regular file: the disk holding its
// file system; every device fact is unknown when there is none, as on tmpfs).
struct TargetEnvironment {
  std::string path = kUnknownFact;
  std::string device = kUnknownFact;  // the whole disk's kernel name
  std::string model = kUnknownFact;
  std::string firmware_rev = kUnknownFact;
  std::string serial = kUnknownFact;
  std::string wwid = kUnknownFact;
  std::string size_bytes = kUnknownFact;  // the target's own size
  std::string logical_block_size = kUnknownFact;
  std::string physical_block_size = kUnknownFact;
  std::string rotational = kUnknownFact;  // "0" or "1"
  std::string scheduler = kUnknownFact;   // the active one: "mq-deadline"
  std::string nomerges = kUnknownFact;
  std::string rq_affinity = kUnknownFact;
  std::string nr_requests = kUnknownFact;
  std::string max_sectors_kb = kUnknownFact;
  std::string write_cache = kUnknownFact;  // "write back", "write through"
  std::string numa_node = kUnknownFact;
};

struct Environment {
  std::string blkperf_version = kUnknownFact;  // base/version.h
  std::string blkperf_commit = kUnknownFact;
  std::string hostname = kUnknownFact;
  std::string boot_id = kUnknownFact;
  std::string kernel_release = kUnknownFact;  // uname -r
  std::string kernel_version = kUnknownFact;  // uname -v
  std::string machine = kUnknownFact;         // uname -m
  std::string cpu_model = kUnknownFact;
  std::string online_cpus = kUnknownFact;     // "0-7"
  std::string smt = kUnknownFact;             // smt/active: "1" or "0"
  std::string cpu_governor = kUnknownFact;    // cpu0's scaling_governor
  std::string numa_nodes = kUnknownFact;      // "0" or "0-1"
  std::string memory_bytes = kUnknownFact;    // MemTotal
  // The ring features that took effect ("SINGLE_ISSUER|DEFER_TASKRUN|
  // fixed_buffers|registered_files"); unknown until the rings are set up.
  std::string io_uring_features = kUnknownFact;
  std::string liburing_version = kUnknownFact;  // of the loaded library
  // "fnv1a64:<16 hex>" of the resolved spec's deterministic wire form.
  std::string spec_hash = kUnknownFact;
  std::vector<TargetEnvironment> targets;
};

// "hostname kernel_release device-model[,model...]": the text report's and
// the fleet report's one-line summary.
std::string EnvironmentSummary(const Environment& env);

}  // namespace blkperf

#endif  // BLKPERF_MODEL_ENVIRONMENT_H_
