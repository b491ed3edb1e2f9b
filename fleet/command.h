// `blkperf fleet ...`: the fleet subcommands of the client.
//
//   blkperf fleet run --hosts=@hosts.txt [spec flags] [fleet flags]
//   blkperf fleet watch RUN_ID --hosts=...
//   blkperf fleet split RUN_ID STRATEGY --hosts=...
//   blkperf fleet inventory --hosts=... [--format=list|file_sd]
//
// The fleet flags (--hosts, --min_hosts, --arm_timeout, --on_host_loss,
// --max_in_flight, --clock_samples (and the client's --call_timeout and --tls_* flags), --retries, --run_id,
// --lease, --start_margin, --format, --metrics_port, --cohort_by,
// --report_file) are defined here and parsed with the client's other flags.
// `fleet run` prints its report as --output_format says
// (cli/output_format.h): text, json, or fio-json and fio-json+ (fio's
// client/server JSON, fleet/report.h FormatReportFioJson), on stdout or
// whole to --report_file.
#ifndef BLKPERF_FLEET_COMMAND_H_
#define BLKPERF_FLEET_COMMAND_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/blkperf.pb.h"
#include "wire/connection.h"

namespace blkperf::fleet {

// What the client's own flags say.
struct ClientSettings {
  bool json = false;      // --json: the fleet report, workloads in the report schema
  bool api_json = false;  // --api_json: the same, workloads as the API's JSON
  bool quiet = false;
  absl::Duration interval = absl::Seconds(1);
  absl::Duration connect_timeout = absl::Seconds(5);
  // The client's --tls_ca/--tls_cert/--tls_key and --call_timeout (the
  // server field is ignored): every host's channel is made with them.
  ChannelOptions channel;
  // The spec from the client's spec flags over its --fio_job, when given
  // (called by `run` only).
  std::function<absl::StatusOr<v1::WorkloadSpec>()> spec;
};

// Runs `fleet <args>` (args[0] the subcommand). Exit status: 0 done (run:
// every host completed), 3 run partial (hosts excluded under
// --on_host_loss=continue or --min_hosts), 1 failed, aborted or not
// started, 2 usage error. Blocks SIGINT/SIGTERM first: call before any
// thread starts.
int RunFleetCommand(const std::vector<std::string>& args,
                    const ClientSettings& settings);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_COMMAND_H_
