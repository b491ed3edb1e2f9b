// Entry point of `blkperfd serve` for blkperfd's main, with the daemon's
// flags (ABSL_FLAG, defined in serve.cc):
//
//   --listen=127.0.0.1:7777    host:port; port 0 picks a free one
//   --port_file=PATH           write the bound port there once serving
//   --allow_write_paths=A,B    paths/prefixes workloads may write (none)
//   --allow_read_paths=A,B     paths/prefixes workloads may read (default:
//                              block devices under /dev/ and the data dir)
//   --max_workloads=4          workloads running at once
//   --max_queue_depth=4096     per-thread queue depth
//   --max_buffer_bytes=4294967296   I/O buffer memory of one workload
//   --max_runtime=24h          ramp_time + runtime (and io_count-only runs)
//   --keep_finished=16         finished workloads kept for fetching
//   --shutdown_timeout=5s      drain time on SIGTERM/SIGINT
//
// The data directory is --data_dir, which blkperfd's `run` flags define; it
// is read by name when the binary has it (empty or absent:
// DaemonDataDirectory, base/data_paths.h). The allow lists are not called
// --allow_write/--allow_read because `run` has a bool --allow_write.
//
//   int main(int argc, char** argv) {
//     ... drop argv[1] ("serve"), absl::ParseCommandLine the rest ...
//     if (command == "serve") return blkperf::RunServe(0, nullptr);
//   }
#ifndef BLKPERF_DAEMON_SERVICE_SERVE_H_
#define BLKPERF_DAEMON_SERVICE_SERVE_H_

#include "absl/status/statusor.h"
#include "daemon/service/server.h"

namespace blkperf {

// The options from the flags above; InvalidArgument naming the flag for a
// bad --local_role or --unix_socket_mode.
absl::StatusOr<ServeOptions> ServeOptionsFromFlags();

// Serves with the options from the flags above until SIGTERM/SIGINT.
// REQUIRES: absl::ParseCommandLine has run. `argc`/`argv` are the positional
// arguments after "serve"; there must be none (exit code 2 otherwise).
// Returns the exit code: 0 after a clean shutdown.
int RunServe(int argc, char** argv);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_SERVE_H_
