// blkperf: the command-line client of blkperfd.
//
//   blkperf [--server=host:port] [--json] <command> [args] [spec flags]
//
//   caps                 what the daemon and its host can do
//   probe PATH           facts about a target (sizes, queue limits, tuning)
//   start [spec flags]   start a workload, print its id
//   stop ID              stop a workload (waits for the end unless --nowait)
//   status ID            state and live or final result of a workload
//   list                 running and kept finished workloads
//   watch ID             a status line per --interval until the end, then
//                        the final report
//   split ID STRATEGY    switch a running workload's split strategy
//   run [spec flags]     start + watch + final report (Ctrl-C stops it);
//                        with --vary an experiment (docs/experiments.md)
//   health               the standard gRPC health check of the daemon
//   compare A B            two saved reports (files or store ids): spec and environment
//                        differences, IOPS ratio (client/compare_command.h)
//   fleet run|watch RUN|split RUN STRATEGY|abort RUN|report RUN|inventory
//                        --hosts=...
//                        one workload on many daemons (fleet/command.h)
//   results list|show ID|export|delete ID
//                        the results store (client/results_command.h)
//
// Results and status lines are printed by daemon/report, the code behind
// `blkperfd run`, after converting the daemon's messages back into the
// engine's terms (result.h): a remote run reads like a local one.
// --json prints results in the report schema instead, the object
// `blkperfd run --json` prints (--report_json is the same); --api_json the
// API's own messages (protobuf JSON mapping).
//
// Exit status: 0 on success; 1 on any failure (the server's message is
// printed), including a run that ends in state failed; 2 for usage errors;
// 3 for a run that ends finished_with_errors (continue_on_error counted
// I/O errors).
#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/bounded_text.h"
#include "cli/command_line.h"
#include "cli/fio_log_flags.h"
#include "cli/output_format.h"
#include "cli/spec_flags.h"
#include "client/compare_command.h"
#include "fio/import.h"
#include "fio/job_flags.h"
#include "client/describe.h"
#include "experiment/flags.h"
#include "experiment/format.h"
#include "experiment/runner.h"
#include "client/result.h"
#include "client/results_command.h"
#include "fleet/command.h"
#include "model/snapshot.h"
#include "proto/health.grpc.pb.h"
#include "report/fio_json.h"
#include "report/report.h"
#include "store/save_result.h"
#include "wire/connection.h"
#include "wire/message_json.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

ABSL_FLAG(std::string, server, "127.0.0.1:7777",
          "blkperfd address host:port, or unix:/path");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA certificate(s) the daemon's certificate must chain to; "
          "turns TLS on");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM client certificate for mutual TLS (with --tls_key, --tls_ca)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_server_name, "",
          "the name the daemon's certificate must carry (default: the host "
          "of --server; fleet: the NAME of --hosts=dns:///NAME:PORT)");
ABSL_FLAG(absl::Duration, call_timeout, absl::Seconds(30),
          "deadline of each call but a watch");
ABSL_FLAG(bool, json, false,
          "print results in the report schema (the JSON `blkperfd run --json` "
          "prints); commands that return no result (caps, probe, start, list, "
          "split, health) print their API message as JSON");
ABSL_FLAG(bool, api_json, false,
          "print the API's messages (protobuf JSON mapping, proto field "
          "names); watch prints one per line");
ABSL_FLAG(absl::Duration, interval, absl::Seconds(1),
          "watch/run: time between status lines");
ABSL_FLAG(absl::Duration, connect_timeout, absl::Seconds(5),
          "how long to wait for the daemon to answer");
ABSL_FLAG(bool, quiet, false, "run/watch: no live status lines");
ABSL_FLAG(bool, wait, true, "stop: wait for the workload to end and report");
ABSL_FLAG(bool, thread_histograms, false,
          "status/watch/run --api_json: include per-thread histograms");
ABSL_FLAG(bool, phase_histograms, false,
          "status/watch/run --api_json: include per-phase histograms");
ABSL_FLAG(bool, report_json, false, "the same as --json (kept for scripts)");

namespace blkperf {
namespace {

constexpr char kUsage[] =
    "blkperf [--server=host:port] [--json] <command> [args] [flags]\n"
    "commands: caps | probe PATH | start | stop ID | status ID | list |\n"
    "          watch ID | split ID STRATEGY | run | health |\n"
    "          compare A B (report files or results store ids)\n"
    "            [--margin --confidence --results_db] |\n"
    "          import-fio JOB.fio (print the spec a fio job file maps to) |\n"
    "          fleet run|watch RUN|split RUN STRATEGY|abort RUN|report RUN|\n"
    "          inventory --hosts=...\n"
    "          results list|show ID|export|delete ID (docs/results.md)\n"
    "results (run, results): --results_db=PATH|none --tag=key=value,...\n"
    "spec flags (start, run): --target --op --bs --qd --threads --cpus\n"
    "  --runtime --io_count --ramp --direct --seed --fixed_buffers\n"
    "  --registered_files --polled --sqpoll --sqpoll_cpu --request_cache\n"
    "  --read_percent --verify --continue_on_error --latency_tracking\n"
    "  --allow_write --create_size --split --alignment --submit_batch\n"
    "  --complete_batch --force_async,\n"
    "  --distribution=zipf:1.2 --random_percent --bssplit=4k/70:64k/30\n"
    "  --rate_iops --rate_bw --arrivals=poisson --fsync --fdatasync\n"
    "  --groups=\"NAME: op=... cpus=...; ...\" --slo=p99<1ms --slo_precision\n"
    "  --slo_step --slo_settle --series_interval --precondition=sequential:2,\n"
    "  or --spec_file=spec.json\n"
    "  (protobuf JSON), or --fio_job=JOB.fio [--fio_job_lenient] (docs/fio.md)\n"
    "experiments (run, fleet run; docs/experiments.md): --vary=FIELD=V1,V2\n"
    "  or --ab=none,limits (--vary=split=none,limits) --rounds --round\n"
    "  --margin --confidence --metric --fail_on=slower --until=decided\n"
    "output: text, --json (the report schema, as `blkperfd run --json`),\n"
    "  --output_format=text|json|fio-json|fio-json+ (fio 3.x layouts,\n"
    "  docs/fio.md; --percentile_list) or --api_json (the API's protobuf JSON)";

int Fail(const absl::Status& status) {
  std::cerr << "blkperf: " << TerminalText(status.message()) << std::endl;
  return 1;
}

int Usage(const std::string& why) {
  std::cerr << "blkperf: " << why << "\nusage: " << kUsage << std::endl;
  return 2;
}

// --api_json: the API's messages. --json: results in the report schema,
// and the API message where a command returns no result.
bool ApiJson() { return absl::GetFlag(FLAGS_api_json); }
bool ReportJson() {
  return absl::GetFlag(FLAGS_json) || absl::GetFlag(FLAGS_report_json);
}
bool Json() { return ApiJson() || ReportJson(); }

ChannelOptions ChannelOptionsFromFlags() {
  return {.server = absl::GetFlag(FLAGS_server),
          .tls_ca = absl::GetFlag(FLAGS_tls_ca),
          .tls_cert = absl::GetFlag(FLAGS_tls_cert),
          .tls_key = absl::GetFlag(FLAGS_tls_key),
          .tls_server_name = absl::GetFlag(FLAGS_tls_server_name),
          .call_timeout = absl::GetFlag(FLAGS_call_timeout)};
}

absl::StatusOr<std::unique_ptr<Connection>> Connect() {
  return Connection::Open(ChannelOptionsFromFlags(),
                          absl::GetFlag(FLAGS_connect_timeout));
}

// Watches `id` to its end, printing live lines unless quiet (JSON lines with
// --json). Returns the terminal workload.
absl::StatusOr<v1::Workload> WatchToEnd(Connection& c, const std::string& id,
                                        bool live) {
  v1::WatchWorkloadRequest request;
  request.set_workload_id(id);
  const int64_t ns = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_interval));
  request.mutable_interval()->set_seconds(ns / 1000000000);
  request.mutable_interval()->set_nanos(static_cast<int32_t>(ns % 1000000000));
  request.set_thread_histograms(absl::GetFlag(FLAGS_thread_histograms));
  request.set_phase_histograms(absl::GetFlag(FLAGS_phase_histograms));
  const bool tty = isatty(STDERR_FILENO);
  StatusLines lines;
  v1::Workload last;
  bool got_terminal = false;
  absl::Status status =
      c.WatchWorkload(request, [&](const v1::WatchWorkloadResponse& response) {
        last = response.workload();
        got_terminal =
            last.state() == v1::WORKLOAD_STATE_FINISHED ||
            last.state() == v1::WORKLOAD_STATE_STOPPED ||
            last.state() == v1::WORKLOAD_STATE_FAILED ||
            last.state() == v1::WORKLOAD_STATE_FINISHED_WITH_ERRORS ||
            last.state() == v1::WORKLOAD_STATE_ABORTED;
        if (live) {
          if (ApiJson()) {
            std::cout << MessageJson(response, JsonLayout::kOneLine) << "\n"
                      << std::flush;
          } else if (tty) {
            std::cerr << "\r\033[K" << OneLine(lines.Next(response), 4096)
                      << std::flush;
          } else {
            std::cerr << OneLine(lines.Next(response), 4096) << std::endl;
          }
        }
        return true;
      });
  if (live && tty && !ApiJson()) std::cerr << std::endl;
  if (!status.ok()) return status;
  if (!got_terminal) {
    return absl::UnavailableError(
        absl::StrCat("the watch of ", id, " ended before the workload did"));
  }
  return last;
}

// The workload with every histogram a report needs (per thread, per phase).
absl::StatusOr<v1::Workload> FullWorkload(Connection& c,
                                          const std::string& id) {
  v1::GetWorkloadRequest request;
  request.set_workload_id(id);
  request.set_thread_histograms(true);
  request.set_phase_histograms(true);
  absl::StatusOr<v1::GetWorkloadResponse> r = c.GetWorkload(request);
  if (!r.ok()) return r.status();
  return r->workload();
}

// Prints `workload` through report/ (text, --json, or
// --output_format=json|fio-json|fio-json+).
int PrintReport(const v1::Workload& workload) {
  absl::StatusOr<OutputFormat> format =
      OutputFormatFromFlags(ReportJson());
  if (!format.ok()) return Fail(format.status());
  absl::StatusOr<std::vector<double>> percentiles = PercentileListFromFlags();
  if (!percentiles.ok()) return Fail(percentiles.status());
  absl::StatusOr<RemoteResult> result = ResultFromProto(workload);
  if (!result.ok()) return Fail(result.status());
  switch (*format) {
    case OutputFormat::kJson:
      std::cout << FormatJsonReport(result->spec, result->targets,
                                    result->snapshot);
      break;
    case OutputFormat::kFioJson:
    case OutputFormat::kFioJsonPlus:
      std::cout << FormatFioJson(
          result->spec, result->targets, result->snapshot,
          FioJsonOptions{.plus = *format == OutputFormat::kFioJsonPlus,
                         .percentiles = *percentiles});
      break;
    case OutputFormat::kText:
      std::cout << TerminalText(FormatResultText(*result));
      break;
  }
  return 0;
}

// The final result of a watched workload: the API's JSON of the last watched
// message with --api_json, else the report (text or --json), from a fresh
// GetWorkload that carries every histogram (the watched message when the daemon
// no longer has it).
int PrintFinal(Connection& c, const v1::Workload& watched) {
  // As `blkperfd run`: 1 failed or aborted, 3 finished but counted I/O
  // errors.
  const int code = watched.state() == v1::WORKLOAD_STATE_FAILED ||
                           watched.state() == v1::WORKLOAD_STATE_ABORTED
                       ? 1
                   : watched.state() == v1::WORKLOAD_STATE_FINISHED_WITH_ERRORS
                       ? 3
                       : 0;
  if (ApiJson()) {
    std::cout << MessageJson(watched, JsonLayout::kIndented);
    return code;
  }
  absl::StatusOr<v1::Workload> full = FullWorkload(c, watched.workload_id());
  if (!full.ok()) {
    std::cerr << "blkperf: " << TerminalText(full.status().message())
              << " (printing the watched result: per-thread and per-phase "
                 "percentiles missing)"
              << std::endl;
  }
  const int printed = PrintReport(full.ok() ? *full : watched);
  return printed != 0 ? printed : code;
}

int Caps(Connection& c) {
  std::cout << (Json() ? MessageJson(c.capabilities(), JsonLayout::kIndented)
                       : TerminalText(FormatCapabilities(c.capabilities())));
  return 0;
}

int Probe(Connection& c, const std::string& path) {
  v1::ProbeTargetRequest request;
  request.set_path(path);
  absl::StatusOr<v1::ProbeTargetResponse> r = c.ProbeTarget(request);
  if (!r.ok()) return Fail(r.status());
  std::cout << (Json() ? MessageJson(*r, JsonLayout::kIndented)
                       : TerminalText(FormatTargetInfo(r->target())));
  return 0;
}

// The spec of the spec flags over the --fio_job's, when given (its notes
// to stderr): `blkperf run|start` and `blkperf fleet run`. The job file's
// log options go to `*file_logs` when given; without it (start, fleet run)
// a job file with logs is refused: only `run` writes them.
absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsAndFioJob(
    FioLogOptions* file_logs = nullptr) {
  absl::StatusOr<std::optional<FioImport>> fio_job = FioJobFromFlags();
  if (!fio_job.ok()) return fio_job.status();
  if (*fio_job) {
    PrintFioImportNotes(**fio_job, stderr);
    if (file_logs != nullptr) {
      *file_logs = (*fio_job)->logs;
    } else if ((*fio_job)->logs.AnyLog()) {
      return absl::InvalidArgumentError(
          "--fio_job: the job file's log options (write_*_log) are written "
          "by `blkperf run` (or blkperfd run), which watches one workload to "
          "its end; --fio_job_lenient does not drop logs it can write");
    }
  }
  return SpecFromFlagsOnto(*fio_job ? (*fio_job)->spec : v1::WorkloadSpec());
}

// The spec `start` and `run` send (`file_logs`: as SpecFromFlagsAndFioJob).
absl::StatusOr<v1::WorkloadSpec> StartSpecFromFlags(
    FioLogOptions* file_logs = nullptr) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlagsAndFioJob(file_logs);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<OutputFormat> format =
      OutputFormatFromFlags(ReportJson());
  if (!format.ok()) return format.status();
  // fio's slat/clat are per-I/O: the fio formats default to per_io latency.
  if (IsFioFormat(*format) &&
      spec->latency_mode() == v1::LATENCY_MODE_UNSPECIFIED) {
    spec->set_latency_mode(v1::LATENCY_MODE_PER_IO);
  }
  return spec;
}

absl::StatusOr<v1::StartWorkloadResponse> StartWithSpec(
    Connection& c, v1::WorkloadSpec spec) {
  v1::StartWorkloadRequest request;
  *request.mutable_spec() = std::move(spec);
  return c.StartWorkload(request);
}

absl::StatusOr<v1::StartWorkloadResponse> StartFromFlags(Connection& c) {
  absl::StatusOr<v1::WorkloadSpec> spec = StartSpecFromFlags();
  if (!spec.ok()) return spec.status();
  return StartWithSpec(c, *std::move(spec));
}

int Start(Connection& c) {
  absl::StatusOr<v1::StartWorkloadResponse> r = StartFromFlags(c);
  if (!r.ok()) return Fail(r.status());
  std::cout << (Json() ? MessageJson(*r, JsonLayout::kIndented)
                       : OneLine(r->workload_id(), kMaxEchoBytes) + "\n");
  return 0;
}

int Stop(Connection& c, const std::string& id) {
  v1::StopWorkloadRequest request;
  request.set_workload_id(id);
  absl::StatusOr<v1::StopWorkloadResponse> r = c.StopWorkload(request);
  if (!r.ok()) return Fail(r.status());
  if (!absl::GetFlag(FLAGS_wait)) {
    std::cout << (Json() ? MessageJson(*r, JsonLayout::kIndented)
                         : FormatWorkloadLine(r->workload()) + "\n");
    return 0;
  }
  absl::StatusOr<v1::Workload> end = WatchToEnd(c, id, /*live=*/false);
  if (!end.ok()) return Fail(end.status());
  PrintFinal(c, *end);
  return 0;
}

void SaveRemoteResult(Connection& c, const std::string& id,
                      const SaveSettings& save, const std::string& source);

// `status ID`: the workload's live or final result; a finished one is
// saved to the results store (once: its record id is stable).
int Status(Connection& c, const std::string& id) {
  const absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();
  if (!save.ok()) return Usage(std::string(save.status().message()));
  v1::WorkloadState state = v1::WORKLOAD_STATE_UNSPECIFIED;
  if (!ApiJson()) {
    absl::StatusOr<v1::Workload> full = FullWorkload(c, id);
    if (!full.ok()) return Fail(full.status());
    state = full->state();
    if (const int code = PrintReport(*full); code != 0) return code;
  } else {
    v1::GetWorkloadRequest request;
    request.set_workload_id(id);
    request.set_thread_histograms(absl::GetFlag(FLAGS_thread_histograms));
    request.set_phase_histograms(absl::GetFlag(FLAGS_phase_histograms));
    absl::StatusOr<v1::GetWorkloadResponse> r = c.GetWorkload(request);
    if (!r.ok()) return Fail(r.status());
    state = r->workload().state();
    std::cout << MessageJson(r->workload(), JsonLayout::kIndented);
  }
  std::cout << std::flush;
  if (IsTerminal(StateFromProto(state))) {
    SaveRemoteResult(c, id, *save, "blkperf status");
  }
  return 0;
}

int List(Connection& c) {
  v1::ListWorkloadsRequest request;
  request.set_with_snapshots(true);
  absl::StatusOr<v1::ListWorkloadsResponse> r = c.ListWorkloads(request);
  if (!r.ok()) return Fail(r.status());
  if (Json()) {
    std::cout << MessageJson(*r, JsonLayout::kIndented);
  } else if (r->workloads().empty()) {
    std::cout << "no workloads\n";
  } else {
    for (const v1::Workload& w : r->workloads()) {
      std::cout << TerminalText(FormatWorkloadLine(w)) << "\n";
    }
  }
  return 0;
}

int Watch(Connection& c, const std::string& id) {
  absl::StatusOr<v1::Workload> end =
      WatchToEnd(c, id, /*live=*/!absl::GetFlag(FLAGS_quiet));
  if (!end.ok()) return Fail(end.status());
  // With --api_json the stream itself is the output; its last line is final.
  if (ApiJson()) return 0;
  const int code = PrintFinal(c, *end);
  // Watching a workload that failed (or counted errors) is itself a success.
  return end->state() == v1::WORKLOAD_STATE_FAILED ||
                 end->state() == v1::WORKLOAD_STATE_FINISHED_WITH_ERRORS
             ? 0
             : code;
}

int Split(Connection& c, const std::string& id, const std::string& split) {
  v1::SetSplitStrategyRequest request;
  request.set_workload_id(id);
  request.set_split(split);
  absl::StatusOr<v1::SetSplitStrategyResponse> r = c.SetSplitStrategy(request);
  if (!r.ok()) return Fail(r.status());
  std::cout << (Json() ? MessageJson(*r, JsonLayout::kIndented)
                       : absl::StrCat(id, ": split ", OneLine(r->split()),
                                      "\n"));
  return 0;
}

// The first SIGINT/SIGTERM stops the workload (the report still follows);
// a second one exits at once.
void StopOnSignals(Connection* c, std::string id, sigset_t signals) {
  int count = 0;
  while (true) {
    int signal_number = 0;
    if (sigwait(&signals, &signal_number) != 0) continue;
    if (++count > 1) _exit(130);
    std::cerr << "\nblkperf: stopping " << id
              << " (interrupt again to leave it running and exit)" << std::endl;
    v1::StopWorkloadRequest request;
    request.set_workload_id(id);
    absl::StatusOr<v1::StopWorkloadResponse> r = c->StopWorkload(request);
    if (!r.ok()) {
      std::cerr << "blkperf: " << TerminalText(r.status().message())
                << std::endl;
    }
  }
}

// Saves the finished workload `id` to the results store (store/spool.h:
// a store that is down costs the run nothing). One record per workload of
// a daemon's boot however often it is saved (`run`, then `status`).
void SaveRemoteResult(Connection& c, const std::string& id,
                      const SaveSettings& save, const std::string& source) {
  if (save.location.empty()) return;
  absl::StatusOr<v1::Workload> full = FullWorkload(c, id);
  absl::StatusOr<ResultRecord> record =
      full.ok() ? RemoteResultRecord(*full, source, save.tags) : full.status();
  if (!record.ok()) {
    std::cerr << "blkperf: result not saved: "
              << TerminalText(record.status().message()) << std::endl;
    return;
  }
  SaveResult(save, *record);
}

// The fio logs the flags ask for, opened (nullopt: none asked for), for
// the spec `spec` will run; InvalidArgument naming the flag or file.
absl::StatusOr<std::optional<std::pair<FioLogPlan, FioLogWriter>>>
OpenFioLogs(const v1::WorkloadSpec& spec, const FioLogOptions& file_logs) {
  using Logs = std::optional<std::pair<FioLogPlan, FioLogWriter>>;
  if (!FioLogFlagsGiven() && !file_logs.AnyLog()) return Logs();
  // Decoded only: the daemon checks the spec it is sent.
  absl::StatusOr<WorkloadSpec> decoded =
      SpecFromProto(spec, SpecOrigin::kDaemonResult);
  if (!decoded.ok()) return decoded.status();
  absl::StatusOr<std::optional<FioLogPlan>> plan =
      FioLogPlanFromFlags(*decoded, file_logs);
  if (!plan.ok()) return plan.status();
  if (!*plan) return Logs();
  absl::StatusOr<FioLogWriter> writer = FioLogWriter::Open((*plan)->settings);
  if (!writer.ok()) return writer.status();
  return Logs(std::in_place, **plan, *std::move(writer));
}

// Writes fio's logs of workload `id` from its snapshots (GetWorkload every
// window) until `ended` is notified, on a thread of its own; join() it.
std::thread RecordRemoteFioLogs(Connection& c, const std::string& id,
                                std::pair<FioLogPlan, FioLogWriter>& logs,
                                absl::Notification& ended) {
  return std::thread([&c, id, &logs, &ended] {
    auto snapshot = [&]() -> absl::StatusOr<WorkloadSnapshot> {
      v1::GetWorkloadRequest request;
      request.set_workload_id(id);
      absl::StatusOr<v1::GetWorkloadResponse> r = c.GetWorkload(request);
      if (!r.ok()) return r.status();
      absl::StatusOr<RemoteResult> result = ResultFromProto(r->workload());
      if (!result.ok()) return result.status();
      return std::move(result->snapshot);
    };
    const absl::Status s = RecordFioLogs(
        logs.first,
        [&](absl::Duration d) { return ended.WaitForNotificationWithTimeout(d); },
        snapshot, &logs.second);
    if (!s.ok()) {
      std::cerr << "blkperf: fio logs: " << TerminalText(s.message())
                << std::endl;
    }
  });
}

int Run(Connection& c, sigset_t signals) {
  const absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();
  if (!save.ok()) return Usage(std::string(save.status().message()));
  FioLogOptions file_logs;
  absl::StatusOr<v1::WorkloadSpec> spec = StartSpecFromFlags(&file_logs);
  if (!spec.ok()) return Fail(spec.status());
  auto logs = OpenFioLogs(*spec, file_logs);
  if (!logs.ok()) return Usage(std::string(logs.status().message()));
  absl::StatusOr<v1::StartWorkloadResponse> started =
      StartWithSpec(c, *std::move(spec));
  if (!started.ok()) return Fail(started.status());
  const std::string id = started->workload_id();
  std::cerr << "blkperf: started workload " << OneLine(id, kMaxEchoBytes)
            << " on " << c.server()
            << std::endl;
  std::thread(StopOnSignals, &c, id, signals).detach();
  absl::Notification ended;
  std::thread logger;
  if (*logs) logger = RecordRemoteFioLogs(c, id, **logs, ended);
  // --api_json: only the final result goes to stdout (live lines would be
  // JSON there); other live lines go to stderr.
  const bool live = !absl::GetFlag(FLAGS_quiet) && !ApiJson();
  absl::StatusOr<v1::Workload> end = WatchToEnd(c, id, live);
  ended.Notify();
  if (logger.joinable()) logger.join();
  if (!end.ok()) return Fail(end.status());
  const int code = PrintFinal(c, *end);
  SaveRemoteResult(c, id, *save, "blkperf run");
  return code;
}

// `import-fio JOB.fio`: the spec a fio job file maps to, as protobuf JSON
// (read here; nothing is sent to a daemon). Exit 2 naming file, line and
// option when the file cannot be imported exactly.
int ImportFio(const std::string& path) {
  absl::StatusOr<FioImport> imported = ImportFioJobWithFlags(path);
  if (!imported.ok()) {
    std::cerr << "blkperf: " << imported.status().message() << std::endl;
    return 2;
  }
  PrintFioImportNotes(*imported, stderr);
  std::cout << MessageJson(imported->spec, JsonLayout::kIndented);
  return 0;
}

// The experiment's record (docs/results.md): the baseline's last round with
// the experiment's JSON, verdicts included, as its report.
void SaveExperiment(const SaveSettings& save, const v1::Workload& baseline,
                    const ExperimentResult& result) {
  if (save.location.empty()) return;
  absl::StatusOr<ResultRecord> record =
      RemoteResultRecord(baseline, "blkperf run --vary", save.tags);
  if (!record.ok()) {
    std::cerr << "blkperf: experiment not saved: "
              << TerminalText(record.status().message()) << std::endl;
    return;
  }
  record->id = NewResultId();  // not the baseline round's own record
  record->report_json = FormatExperimentJson(result);
  while (!record->report_json.empty() && record->report_json.back() == '\n') {
    record->report_json.pop_back();
  }
  SaveResult(save, *record);
}

// `blkperf run --vary=...`: an experiment on the daemon (experiment/
// runner.h), each arm of each round a workload started and watched to its
// end. Ctrl-C ends the client; the round's workload ends by its runtime.
int RunExperimentRemotely(Connection& c) {
  absl::StatusOr<ExperimentPlan> plan = PlanExperimentFromFlags();
  if (!plan.ok()) {
    std::cerr << "blkperf: " << plan.status().ToString() << std::endl;
    return kExitBadFlags;
  }
  const absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();
  if (!save.ok()) return Usage(std::string(save.status().message()));
  const google::protobuf::Duration& ramp = plan->arms[0].ramp_time();
  v1::Workload baseline_round;  // the baseline's last round, for the store
  const ExperimentOutcome outcome = RunExperimentPlan(
      *plan, absl::Seconds(ramp.seconds()) + absl::Nanoseconds(ramp.nanos()),
      c.capabilities().cpu_frequency_governor(),
      [&](int arm) -> absl::StatusOr<WorkloadSnapshot> {
        v1::StartWorkloadRequest request;
        *request.mutable_spec() = plan->arms[static_cast<size_t>(arm)];
        absl::StatusOr<v1::StartWorkloadResponse> started = c.StartWorkload(request);
        if (!started.ok()) return started.status();
        absl::StatusOr<v1::Workload> end =
            WatchToEnd(c, started->workload_id(), /*live=*/false);
        if (!end.ok()) return end.status();
        absl::StatusOr<v1::Workload> full = FullWorkload(c, started->workload_id());
        absl::StatusOr<RemoteResult> result =
            ResultFromProto(full.ok() ? *full : *end);
        if (!result.ok()) return result.status();
        if (arm == 0) baseline_round = full.ok() ? *full : *end;
        return result->snapshot;
      },
      !absl::GetFlag(FLAGS_quiet) && isatty(STDERR_FILENO));
  if (outcome.exit_code != 0) {
    std::cerr << "blkperf: " << outcome.message << std::endl;
    return outcome.exit_code;
  }
  std::cout << (Json() ? FormatExperimentJson(outcome.result)
                       : FormatExperimentText(outcome.result))
            << std::flush;
  SaveExperiment(*save, baseline_round, outcome.result);
  return ExitCodeOf(*plan, outcome.result);
}

int Health() {
  const std::string server = absl::GetFlag(FLAGS_server);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      CreateBlkperfChannel(ChannelOptionsFromFlags());
  if (!channel.ok()) return Fail(channel.status());
  auto stub = grpc::health::v1::Health::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(
                           absl::GetFlag(FLAGS_connect_timeout))));
  context.set_wait_for_ready(true);
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) {
    return Fail(absl::UnavailableError(absl::StrCat(
        "health check of ", server, ": ", status.error_message())));
  }
  const std::string name =
      grpc::health::v1::HealthCheckResponse::ServingStatus_Name(
          response.status());
  std::cout << (Json() ? MessageJson(response, JsonLayout::kIndented)
                       : name + "\n");
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING
             ? 0
             : 1;
}

// gRPC core logs each failed connection attempt (TLS handshake errors,
// refused connects) on stderr, pages of them for a fleet; the client says
// what went wrong itself (wire/connect_diagnosis.h), so those lines are
// dropped and every other one is kept.
void FilteredGrpcLog(gpr_log_func_args* args) {
  for (const char* noisy : {"ssl_transport_security", "handshaker",
                            "subchannel", "tcp_client", "chttp2",
                            "secure_endpoint", "ssl_utils"}) {
    if (std::strstr(args->file, noisy) != nullptr) return;
  }
  std::fprintf(stderr, "grpc %s:%d: %s\n", args->file, args->line,
               args->message);
}

// --help lists the flags of the client, its spec, fio and fleet flags (Abseil
// lists only those of a file named like the program by default, and says
// "No flags matched").
void ConfigureFlagsUsage() {
  absl::SetProgramUsageMessage(kUsage);
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    for (absl::string_view dir :
         {"client/", "cli/", "fleet/", "experiment/", "fio/"}) {
      if (absl::StrContains(file, dir)) return true;
    }
    return false;
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
}

// Flags that only some commands take: "" when `command` may have them, else
// the usage error.
std::string MisplacedFlags(const std::string& command) {
  if (ExperimentGiven() && command != "run" && command != "fleet") {
    return "--vary, --ab, --ab_slice or a --spec_file's experiment.arms[]: "
           "experiments run on `blkperfd run`, `blkperf run` and `blkperf "
           "fleet run` (docs/experiments.md)";
  }
  if (FioLogFlagsGiven() && (command != "run" || VaryGiven())) {
    return "fio's log options are for `blkperf run` without --vary (the "
           "client writes the logs of the one workload it watches)";
  }
  return "";
}

int RunFleet(const std::vector<std::string>& rest) {
  fleet::ClientSettings settings;
  settings.json = ReportJson();
  settings.api_json = ApiJson();
  settings.quiet = absl::GetFlag(FLAGS_quiet);
  settings.interval = absl::GetFlag(FLAGS_interval);
  settings.connect_timeout = absl::GetFlag(FLAGS_connect_timeout);
  settings.channel = ChannelOptionsFromFlags();
  settings.spec = [] { return SpecFromFlagsAndFioJob(); };
  return fleet::RunFleetCommand(rest, settings);
}

// A command and its argument count checked: "" or the usage error.
std::string ArityError(const std::string& command, size_t arguments) {
  static const auto* const kArity = new std::map<std::string, size_t>{
      {"caps", 0}, {"probe", 1}, {"start", 0}, {"stop", 1}, {"status", 1},
      {"list", 0}, {"watch", 1}, {"split", 2}, {"run", 0},  {"health", 0},
      {"compare", 2}, {"import-fio", 1}};
  auto it = kArity->find(command);
  if (it == kArity->end()) return "unknown command \"" + command + "\"";
  if (arguments == it->second) return "";
  return absl::StrCat(command, " takes ", it->second, " argument(s), got ",
                      arguments);
}

// The commands that talk to one daemon, connected once the output flags
// are checked (a bad value is a usage error, before connecting).
int RunOnDaemon(const std::string& command,
                const std::vector<std::string>& rest) {
  if (absl::Status format = OutputFormatFromFlags(ReportJson()).status();
      !format.ok()) {
    return Usage(std::string(format.message()));
  }
  if (absl::Status list = PercentileListFromFlags().status(); !list.ok()) {
    return Usage(std::string(list.message()));
  }
  // `run` handles SIGINT/SIGTERM on a thread of its own; block them before
  // gRPC starts threads so that every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  if (command == "run" && !ExperimentGiven()) {
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  }
  absl::StatusOr<std::unique_ptr<Connection>> connection = Connect();
  if (!connection.ok()) return Fail(connection.status());
  Connection& c = **connection;
  if (command == "caps") return Caps(c);
  if (command == "probe") return Probe(c, rest[0]);
  if (command == "start") return Start(c);
  if (command == "stop") return Stop(c, rest[0]);
  if (command == "status") return Status(c, rest[0]);
  if (command == "list") return List(c);
  if (command == "watch") return Watch(c, rest[0]);
  if (command == "split") return Split(c, rest[0], rest[1]);
  if (ExperimentGiven()) return RunExperimentRemotely(c);
  return Run(c, signals);
}

int Main(int argc, char** argv) {
  gpr_set_log_function(FilteredGrpcLog);
  ConfigureFlagsUsage();
  // Abseil's parser exits 1 on a flag error; a usage error exits 2.
  if (absl::Status s = CheckCommandLineFlags(argc, argv); !s.ok()) {
    return Usage(std::string(s.message()));
  }
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() < 2) return Usage("no command given");
  const std::string command = args[1];
  std::vector<std::string> rest(args.begin() + 2, args.end());
  if (std::string error = MisplacedFlags(command); !error.empty()) {
    return Usage(error);
  }
  if (command == "fleet") return RunFleet(rest);
  if (command == "results") return RunResultsCommand(rest, Json());
  if (std::string error = ArityError(command, rest.size()); !error.empty()) {
    return Usage(error);
  }
  if (command == "health") return Health();
  if (command == "compare") return CompareCommand(rest[0], rest[1]);
  if (command == "import-fio") return ImportFio(rest[0]);
  return RunOnDaemon(command, rest);
}

}  // namespace
}  // namespace blkperf

int main(int argc, char** argv) { return blkperf::Main(argc, argv); }
