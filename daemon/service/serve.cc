#include "daemon/service/serve.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/common/default_target.h"
#include "daemon/common/log.h"
#include "daemon/service/server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7777",
          "serve: host:port to listen on (port 0 picks a free one)");
ABSL_FLAG(std::string, port_file, "",
          "serve: write the bound port to this file once serving");
ABSL_FLAG(std::vector<std::string>, allow_write_paths, {},
          "serve: comma-separated paths workloads may write; an entry ending "
          "in / (or naming a directory) covers everything below it, one "
          "ending in * every path with that prefix. Default: none");
ABSL_FLAG(std::vector<std::string>, allow_read_paths, {},
          "serve: comma-separated paths workloads may read, same syntax as "
          "--allow_write_paths. Default: block devices under /dev/ and the "
          "data directory (--data_dir)");
ABSL_FLAG(uint32_t, max_workloads, 4, "serve: workloads running at once");
ABSL_FLAG(uint32_t, max_armed, 2,
          "serve: fleet-run workloads armed (set up, waiting for Go) at once; "
          "they count towards --max_workloads too");
ABSL_FLAG(uint32_t, max_queue_depth, 4096,
          "serve: largest queue_depth per thread");
ABSL_FLAG(uint64_t, max_buffer_bytes, uint64_t{4} << 30,
          "serve: largest I/O buffer memory of one workload, bytes "
          "(threads x queue_depth x block_size)");
ABSL_FLAG(absl::Duration, max_runtime, absl::Hours(24),
          "serve: longest ramp_time + runtime of a workload");
ABSL_FLAG(uint32_t, keep_finished, 16,
          "serve: finished workloads kept for later fetching");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:9477",
          "serve: host:port of the Prometheus /metrics endpoint (port 0 "
          "picks a free one); empty disables it");
ABSL_FLAG(absl::Duration, metrics_finished_ttl, absl::Minutes(5),
          "serve: how long a finished workload's series stay in /metrics");
ABSL_FLAG(absl::Duration, shutdown_timeout, absl::Seconds(5),
          "serve: how long SIGTERM/SIGINT waits for workloads to drain");

namespace blkperf {
namespace {

}  // namespace

ServeOptions ServeOptionsFromFlags() {
  ServeOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.port_file = absl::GetFlag(FLAGS_port_file);
  options.allow_write = absl::GetFlag(FLAGS_allow_write_paths);
  options.allow_read = absl::GetFlag(FLAGS_allow_read_paths);
  options.data_dir = DataDirectory();
  options.limits.max_workloads = absl::GetFlag(FLAGS_max_workloads);
  options.limits.max_queue_depth = absl::GetFlag(FLAGS_max_queue_depth);
  options.limits.max_buffer_bytes = absl::GetFlag(FLAGS_max_buffer_bytes);
  options.limits.max_runtime = absl::GetFlag(FLAGS_max_runtime);
  options.limits.keep_finished = absl::GetFlag(FLAGS_keep_finished);
  options.limits.max_armed = absl::GetFlag(FLAGS_max_armed);
  options.shutdown_timeout = absl::GetFlag(FLAGS_shutdown_timeout);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.metrics_finished_ttl = absl::GetFlag(FLAGS_metrics_finished_ttl);
  return options;
}

int RunServe(int argc, char** argv) {
  if (argc > 0) {
    BLKPERF_LOG(ERROR) << "serve: unexpected argument \"" << argv[0]
                       << "\" (serve takes flags only)";
    return 2;
  }
  return RunServe(ServeOptionsFromFlags());
}

}  // namespace blkperf
