// Facts about the daemon's host for GetCapabilities: kernel, io_uring
// features and the setup flags that work here, huge pages. Probed once at
// daemon start (probing sets up and tears down a few small rings).
//
//   const HostCapabilities caps = ProbeHostCapabilities();
//   if (!caps.io_uring_available) BLKPERF_LOG(WARNING) <<
//   caps.unavailable_reason;
#ifndef BLKPERF_DAEMON_ENGINE_HOST_HOST_CAPABILITIES_H_
#define BLKPERF_DAEMON_ENGINE_HOST_HOST_CAPABILITIES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace blkperf {

struct HostCapabilities {
  std::string kernel_release;  // uname -r
  std::string machine;         // uname -m
  bool io_uring_available = false;
  std::string unavailable_reason;
  std::vector<std::string> features;     // IORING_FEAT_* without the prefix
  std::vector<std::string> setup_flags;  // IORING_SETUP_* that set up here
  std::vector<std::string> opcodes;      // I/O opcodes the kernel supports
  uint64_t huge_page_size_bytes = 0;
  uint64_t huge_pages_total = 0;
  uint64_t huge_pages_free = 0;
  std::string transparent_huge_pages;  // "always", "madvise", "never", ""
};

HostCapabilities ProbeHostCapabilities();

// Names of the IORING_SETUP_* bits in `flags`, without the prefix, for
// reports of how a ring was actually set up.
std::vector<std::string> SetupFlagNames(unsigned flags);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_HOST_CAPABILITIES_H_
