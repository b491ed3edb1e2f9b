#include "daemon/service/serve.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "daemon/common/default_target.h"
#include "daemon/security/roles.h"
#include "daemon/service/server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7777",
          "serve: host:port to listen on (port 0 picks a free one), or "
          "unix:/path for a unix socket. Anything but loopback or a unix "
          "socket needs TLS (or --insecure_listen)");
ABSL_FLAG(std::string, tls_cert, "",
          "serve: PEM server certificate; with --tls_key and --tls_client_ca "
          "turns on mutual TLS");
ABSL_FLAG(std::string, tls_key, "", "serve: PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_client_ca, "",
          "serve: PEM CA certificate(s) that client certificates must chain "
          "to");
ABSL_FLAG(std::string, roles_file, "",
          "serve: grants of roles (viewer, operator, admin) to client "
          "identities, one '<role> <identity>' per line; required with TLS");
ABSL_FLAG(std::string, local_role, "admin",
          "serve: role of callers without TLS (loopback, unix socket, "
          "--insecure_listen) unless --roles_file names \"local\" or "
          "\"insecure\"");
ABSL_FLAG(bool, insecure_listen, false,
          "serve: allow --listen on a non-loopback address without TLS "
          "(every caller unauthenticated; logged, shown in capabilities)");
ABSL_FLAG(std::string, unix_socket_mode, "0660",
          "serve: permission bits (octal) of a unix:/path socket");
ABSL_FLAG(std::string, audit_log, "",
          "serve: append a JSON line per mutating call, refusal and "
          "workload end to this file (created 0600); empty: none");
ABSL_FLAG(std::string, port_file, "",
          "serve: write the bound port to this file once serving");
ABSL_FLAG(std::vector<std::string>, allow_write_paths, {},
          "serve: comma-separated paths workloads may write; an entry ending "
          "in / (or naming a directory) covers the regular files below it "
          "(opened without following links), one ending in * the files in "
          "its directory with that name prefix and the block devices whose "
          "kernel name has it (/dev/loop*), one naming a block device that "
          "device, any other that one file. Resolved when the daemon "
          "starts. Default: none");
ABSL_FLAG(std::vector<std::string>, allow_read_paths, {},
          "serve: comma-separated paths workloads may read, same syntax as "
          "--allow_write_paths. Default: every block device and the files "
          "in the data directory (--data_dir)");
ABSL_FLAG(uint32_t, max_workloads, 4, "serve: workloads running at once");
ABSL_FLAG(uint32_t, max_armed, 2,
          "serve: fleet-run workloads armed (set up, waiting for Go) at once; "
          "they count towards --max_workloads too");
ABSL_FLAG(uint32_t, max_queue_depth, 4096,
          "serve: largest queue_depth per thread");
ABSL_FLAG(uint64_t, max_buffer_bytes, uint64_t{4} << 30,
          "serve: largest I/O buffer memory of one workload, bytes "
          "(threads x queue_depth x block_size)");
ABSL_FLAG(uint64_t, max_create_bytes, uint64_t{64} << 30,
          "serve: largest create_size of one target, bytes; a create must "
          "also leave 5% of its file system free");
ABSL_FLAG(absl::Duration, max_runtime, absl::Hours(24),
          "serve: longest ramp_time + runtime of a workload");
ABSL_FLAG(uint32_t, keep_finished, 16,
          "serve: finished workloads kept for later fetching");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:9477",
          "serve: host:port of the Prometheus /metrics endpoint (port 0 "
          "picks a free one); empty disables it");
ABSL_FLAG(std::string, health_listen, "",
          "serve: host:port of a plaintext listener serving the gRPC health "
          "check alone (grpc.health.v1.Health/Check, no client certificate, "
          "nothing else served there): for the kubelet's grpc probe; empty "
          "disables it");
ABSL_FLAG(absl::Duration, metrics_finished_ttl, absl::Minutes(5),
          "serve: how long a finished workload's series stay in /metrics");
ABSL_FLAG(absl::Duration, shutdown_timeout, absl::Seconds(5),
          "serve: how long SIGTERM/SIGINT waits for workloads to drain");

namespace blkperf {

absl::StatusOr<ServeOptions> ServeOptionsFromFlags() {
  ServeOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  options.tls_key = absl::GetFlag(FLAGS_tls_key);
  options.tls_client_ca = absl::GetFlag(FLAGS_tls_client_ca);
  options.roles_file = absl::GetFlag(FLAGS_roles_file);
  options.insecure_listen = absl::GetFlag(FLAGS_insecure_listen);
  options.audit_log = absl::GetFlag(FLAGS_audit_log);
  BLKPERF_ASSIGN_OR_RETURN(
      options.local_role,
      ParseRole(absl::GetFlag(FLAGS_local_role), "--local_role"));
  const std::string mode = absl::GetFlag(FLAGS_unix_socket_mode);
  char* end = nullptr;
  const unsigned long bits = std::strtoul(mode.c_str(), &end, 8);
  if (mode.empty() || *end != '\0' || bits > 0777) {
    return absl::InvalidArgumentError(
        absl::StrCat("--unix_socket_mode \"", mode,
                     "\" is not octal permission bits such as 0660"));
  }
  options.unix_socket_mode = static_cast<mode_t>(bits);
  options.port_file = absl::GetFlag(FLAGS_port_file);
  options.allow_write = absl::GetFlag(FLAGS_allow_write_paths);
  options.allow_read = absl::GetFlag(FLAGS_allow_read_paths);
  options.data_dir = DataDirectory();
  options.limits.max_workloads = absl::GetFlag(FLAGS_max_workloads);
  options.limits.max_queue_depth = absl::GetFlag(FLAGS_max_queue_depth);
  options.limits.max_buffer_bytes = absl::GetFlag(FLAGS_max_buffer_bytes);
  options.limits.max_create_bytes = absl::GetFlag(FLAGS_max_create_bytes);
  options.limits.max_runtime = absl::GetFlag(FLAGS_max_runtime);
  options.limits.keep_finished = absl::GetFlag(FLAGS_keep_finished);
  options.limits.max_armed = absl::GetFlag(FLAGS_max_armed);
  options.shutdown_timeout = absl::GetFlag(FLAGS_shutdown_timeout);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.health_listen = absl::GetFlag(FLAGS_health_listen);
  options.metrics_finished_ttl = absl::GetFlag(FLAGS_metrics_finished_ttl);
  return options;
}

int RunServe(int argc, char** argv) {
  if (argc > 0) {
    BLKPERF_LOG(ERROR) << "serve: unexpected argument \"" << argv[0]
                       << "\" (serve takes flags only)";
    return 2;
  }
  absl::StatusOr<ServeOptions> options = ServeOptionsFromFlags();
  if (!options.ok()) {
    BLKPERF_LOG(ERROR) << "serve: " << options.status().message();
    return 2;
  }
  return RunServe(*options);
}

}  // namespace blkperf
