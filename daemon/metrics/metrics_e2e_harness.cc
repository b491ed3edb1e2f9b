// Test stand-in for `blkperfd serve` + `blkperf run` in the end-to-end
// Prometheus test of the exporter: runs one engine workload on a file,
// serves its metrics with StartMetricsServer, optionally switches the split
// strategy mid-run, writes the workload's own result as JSON, keeps serving
// for --linger and exits.
//
//   metrics_e2e_harness --target=/tmp/f --runtime=12s --switch_at=6s
//       --switch_to=limits --port_file=/tmp/port
//       --result_file=/tmp/result.json --linger=4s
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/engine/snapshot.h"
#include "daemon/engine/split_strategy.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_spec.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/metrics/workload_metrics_view.h"

ABSL_FLAG(std::string, target, "", "File to run on (created).");
ABSL_FLAG(uint64_t, create_size, 64 << 20, "Bytes to create the file with.");
ABSL_FLAG(std::string, op, "randread", "Workload op.");
ABSL_FLAG(uint32_t, bs, 16384, "Block size.");
ABSL_FLAG(uint32_t, qd, 16, "Queue depth per thread.");
ABSL_FLAG(std::vector<std::string>, cpus, {}, "CPUs, one per thread.");
ABSL_FLAG(bool, direct, true, "O_DIRECT.");
ABSL_FLAG(absl::Duration, ramp, absl::Seconds(1), "Ramp-up time.");
ABSL_FLAG(absl::Duration, runtime, absl::Seconds(12), "Measured time.");
ABSL_FLAG(absl::Duration, switch_at, absl::ZeroDuration(),
          "Switch the split strategy this long after start (0: never).");
ABSL_FLAG(std::string, switch_to, "limits", "Strategy to switch to.");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:0", "Metrics address.");
ABSL_FLAG(std::string, port_file, "", "Write the metrics port here.");
ABSL_FLAG(std::string, result_file, "", "Write the result JSON here.");
ABSL_FLAG(absl::Duration, linger, absl::Seconds(3),
          "Keep serving this long after the workload ends.");

namespace blkperf {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "metrics_e2e_harness: %s\n", message.c_str());
  return 1;
}

int Main() {
  WorkloadSpec spec;
  spec.targets.push_back({.path = absl::GetFlag(FLAGS_target),
                          .create_size = absl::GetFlag(FLAGS_create_size),
                          .allow_write = true});
  if (!ParseOp(absl::GetFlag(FLAGS_op), &spec.op)) return Fail("bad --op");
  spec.block_size = absl::GetFlag(FLAGS_bs);
  spec.queue_depth = absl::GetFlag(FLAGS_qd);
  for (const std::string& cpu : absl::GetFlag(FLAGS_cpus)) {
    spec.cpus.push_back(std::stoi(cpu));
  }
  spec.direct = absl::GetFlag(FLAGS_direct);
  spec.ramp_time = absl::GetFlag(FLAGS_ramp);
  spec.runtime = absl::GetFlag(FLAGS_runtime);

  absl::StatusOr<std::unique_ptr<Workload>> workload =
      Workload::Start(spec, EngineLimits{});
  if (!workload.ok()) return Fail(workload.status().ToString());
  Workload& w = **workload;
  const WorkloadSpec resolved = w.spec().spec;

  absl::Mutex mu;
  absl::Time finished_at = absl::InfinitePast();
  WorkloadLister lister = [&]() {
    WorkloadSnapshot snapshot = w.Snapshot();
    absl::Time end = absl::InfinitePast();
    if (IsTerminal(snapshot.state)) {
      absl::MutexLock lock(&mu);
      if (finished_at == absl::InfinitePast()) finished_at = absl::Now();
      end = finished_at;
    }
    return std::vector{
        MakeWorkloadMetricsView("w1", resolved, std::move(snapshot), end)};
  };
  absl::StatusOr<std::unique_ptr<MetricsServer>> metrics = StartMetricsServer(
      absl::GetFlag(FLAGS_metrics_listen), lister,
      {.finished_ttl = absl::Minutes(10), .daemon_version = "e2e-harness"});
  if (!metrics.ok()) return Fail(metrics.status().ToString());
  if (const std::string path = absl::GetFlag(FLAGS_port_file); !path.empty()) {
    std::ofstream(path + ".tmp") << (*metrics)->port() << "\n";
    std::rename((path + ".tmp").c_str(), path.c_str());
  }

  if (const absl::Duration at = absl::GetFlag(FLAGS_switch_at);
      at > absl::ZeroDuration() && !w.WaitFor(at)) {
    absl::StatusOr<SplitStrategy> to =
        ParseSplitStrategy(absl::GetFlag(FLAGS_switch_to), "switch_to");
    if (!to.ok()) return Fail(to.status().ToString());
    if (absl::Status s = w.SetSplitStrategy(*to); !s.ok()) {
      return Fail(s.ToString());
    }
  }
  w.Wait();
  const WorkloadSnapshot result = w.Snapshot();
  if (const std::string path = absl::GetFlag(FLAGS_result_file);
      !path.empty()) {
    std::ofstream(path + ".tmp") << absl::StrFormat(
        "{\"workload\": \"w1\", \"state\": \"%s\", \"ios\": %d, "
        "\"elapsed_seconds\": %.9f, \"iops\": %.3f, \"errors\": %d}\n",
        WorkloadStateName(result.state), result.total.ios,
        absl::ToDoubleSeconds(result.elapsed),
        result.total.Iops(result.elapsed), result.total.ErrorTotal());
    std::rename((path + ".tmp").c_str(), path.c_str());
  }
  absl::SleepFor(absl::GetFlag(FLAGS_linger));
  return result.state == WorkloadState::kFinished ? 0 : 1;
}

}  // namespace
}  // namespace blkperf

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return blkperf::Main();
}
