// The threads of this process as /proc/self/task lists them, with their
// names: for finding io_uring's kernel workers and the daemon's own threads.
//
//   ForEachProcessThread([](pid_t tid, const std::string& name) { ... });
//
// Not for the I/O hot path: it reads procfs.
#ifndef BLKPERF_DAEMON_ENGINE_HOST_PROCESS_THREADS_H_
#define BLKPERF_DAEMON_ENGINE_HOST_PROCESS_THREADS_H_

#include <sys/types.h>

#include <string>

#include "absl/functional/function_ref.h"

namespace blkperf {

// Calls `visit` with the id and name (comm) of every thread alive now.
// Threads that exit during the walk are skipped.
void ForEachProcessThread(
    absl::FunctionRef<void(pid_t tid, const std::string& name)> visit);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_HOST_PROCESS_THREADS_H_
