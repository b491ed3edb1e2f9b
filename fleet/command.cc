#include "fleet/command.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fleet/calls.h"
#include "cli/output_format.h"
#include "experiment/flags.h"
#include "experiment/fleet_analysis.h"
#include "experiment/runner.h"
#include "fleet/experiment_run.h"
#include "fleet/inventory.h"
#include "fleet/orchestrator.h"
#include "fleet/save_fleet.h"
#include "fleet/report.h"
#include "report/fio_json.h"

ABSL_FLAG(std::string, hosts, "",
          "fleet: host:port,... | @FILE | file_sd FILE.json/.yaml | "
          "dns:///name:port");
ABSL_FLAG(std::string, min_hosts, "100%",
          "fleet run: hosts that must arm within --arm_timeout (N or N%)");
ABSL_FLAG(absl::Duration, arm_timeout, absl::Seconds(30),
          "fleet run: time for every host to arm");
ABSL_FLAG(std::string, on_host_loss, "abort",
          "fleet run: abort (everywhere) or continue (exclude, report partial)");
ABSL_FLAG(int, max_in_flight, 256,
          "fleet: most calls in flight at once (how many are adapts below it)");
ABSL_FLAG(int, clock_samples, 16,
          "fleet: GetClock samples per host, taken back to back just before Go");
ABSL_FLAG(int, retries, 3,
          "fleet: retries (with backoff) of idempotent calls that fail with "
          "UNAVAILABLE, DEADLINE_EXCEEDED or ABORTED");
ABSL_FLAG(std::string, run_id, "",
          "fleet run: run id (default: generated), 1-64 of [A-Za-z0-9._-]");
ABSL_FLAG(absl::Duration, lease, absl::Seconds(60),
          "fleet run: an armed host without Go within this releases itself");
ABSL_FLAG(absl::Duration, start_margin, absl::Seconds(1),
          "fleet run/split: least time between choosing the common instant "
          "and it (more when the fleet is slow to reach)");
ABSL_FLAG(std::string, format, "list", "fleet inventory: list or file_sd");
ABSL_FLAG(std::string, cohort_by, "",
          "fleet run/report: also merge the hosts per kernel_release, "
          "device_model or label:NAME (a file_sd label) value, exactly as "
          "the whole fleet");
ABSL_FLAG(std::string, report_file, "",
          "fleet run/report: write the report to this file (a new file, or "
          "one replaced whole) instead of stdout; stdout stays empty");
ABSL_FLAG(std::string, cohort_baseline, "",
          "fleet run/report --cohort_by: the cohort the others are compared "
          "with (default: the one with the most hosts)");
ABSL_FLAG(int, metrics_port, 9477,
          "fleet inventory --format=file_sd: the daemons' metrics port");

namespace blkperf::fleet {
namespace {

int Fail(const absl::Status& status) {
  std::cerr << "blkperf fleet: " << status.message() << std::endl;
  return 1;
}

constexpr char kUsage[] =
    "usage: blkperf fleet run|watch RUN|split RUN STRATEGY|abort RUN|"
    "report RUN|inventory --hosts=... [flags]";

int Usage(const std::string& why) {
  std::cerr << "blkperf fleet: " << why << "\n" << kUsage << std::endl;
  return 2;
}

// A flag's value or the --hosts inventory was refused (InvalidArgument):
// a usage error, exit 2. Anything else (a file, a name that does not
// resolve): exit 1.
int FailUsage(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument) return Fail(status);
  std::cerr << "blkperf fleet: " << status.message() << std::endl;
  return 2;
}

absl::StatusOr<std::function<std::string(const HostRow&)>> CohortKey(
    const std::string& by);

absl::StatusOr<FleetOptions> OptionsFromFlags(const ClientSettings& s) {
  FleetOptions o;
  o.run_id = absl::GetFlag(FLAGS_run_id);
  if (o.run_id.empty()) o.run_id = NewRunId();
  o.max_in_flight = absl::GetFlag(FLAGS_max_in_flight);
  o.connect_timeout = s.connect_timeout;
  o.channel = s.channel;
  o.call_timeout = s.channel.call_timeout;
  o.retry.max_attempts = absl::GetFlag(FLAGS_retries) + 1;
  o.clock_samples = absl::GetFlag(FLAGS_clock_samples);
  absl::StatusOr<Quorum> q = ParseQuorum(absl::GetFlag(FLAGS_min_hosts));
  if (!q.ok()) return q.status();
  o.min_hosts = *q;
  o.arm_timeout = absl::GetFlag(FLAGS_arm_timeout);
  o.lease = absl::GetFlag(FLAGS_lease);
  o.start_margin = absl::GetFlag(FLAGS_start_margin);
  o.poll_interval = s.interval;
  const std::string loss = absl::GetFlag(FLAGS_on_host_loss);
  if (loss == "abort") {
    o.on_host_loss = OnHostLoss::kAbort;
  } else if (loss == "continue") {
    o.on_host_loss = OnHostLoss::kContinue;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "on_host_loss \"", loss.substr(0, 32), "\" is not abort or continue"));
  }
  if (absl::Status st = CheckOptions(o); !st.ok()) return st;
  if (const std::string by = absl::GetFlag(FLAGS_cohort_by); !by.empty()) {
    if (auto key = CohortKey(by); !key.ok()) return key.status();
    // The comparison's --margin, --confidence, --metric, --fail_on.
    if (auto e = ExperimentFlagsFromFlags(); !e.ok()) return e.status();
  } else if (!absl::GetFlag(FLAGS_cohort_baseline).empty()) {
    return absl::InvalidArgumentError(
        "cohort_baseline without --cohort_by: give both");
  }
  // The TLS files once, here, rather than one identical error per host.
  // Making a channel does not connect.
  ChannelOptions preflight = o.channel;
  preflight.server = "localhost:1";
  if (absl::StatusOr<std::shared_ptr<grpc::Channel>> c =
          CreateBlkperfChannel(preflight);
      !c.ok()) {
    return c.status();
  }
  return o;
}

// The control addresses of --hosts. Hosts from dns:///NAME:PORT are
// checked against NAME over TLS (their certificates need not list the
// addresses the name resolves to) unless --tls_server_name says otherwise.
using Labels = std::map<std::string, std::map<std::string, std::string>>;

absl::StatusOr<std::vector<std::string>> Addresses(ChannelOptions& channel,
                                                   Labels* labels = nullptr) {
  const std::string hosts = absl::GetFlag(FLAGS_hosts);
  if (hosts.empty()) {
    return absl::InvalidArgumentError("hosts is empty: give --hosts=...");
  }
  absl::StatusOr<Inventory> inventory = LoadInventory(hosts);
  if (!inventory.ok()) return inventory.status();
  if (channel.tls_server_name.empty() && !channel.tls_ca.empty()) {
    channel.tls_server_name = inventory->tls_server_name;
  }
  std::vector<std::string> addresses;
  for (Host& h : inventory->hosts) {
    if (labels != nullptr) (*labels)[h.address] = h.labels;
    addresses.push_back(std::move(h.address));
  }
  return addresses;
}

// The device models of a host's targets (hosts[].environment, as the
// daemon read them from sysfs), distinct, in target order, ','-joined; ""
// when the host reported none.
std::string DeviceModels(const v1::Environment& environment) {
  std::vector<std::string> models;
  for (const v1::TargetEnvironment& t : environment.targets()) {
    if (std::find(models.begin(), models.end(), t.model()) == models.end()) {
      models.push_back(t.model());
    }
  }
  return absl::StrJoin(models, ",");
}

// --cohort_by's key of a host row; InvalidArgument for an unknown key.
absl::StatusOr<std::function<std::string(const HostRow&)>> CohortKey(
    const std::string& by) {
  if (by == "kernel_release") {
    return [](const HostRow& h) { return h.kernel_release; };
  }
  if (absl::StartsWith(by, "label:") && by.size() > 6) {
    const std::string label = by.substr(6);
    return [label](const HostRow& h) {
      auto it = h.labels.find(label);
      return it == h.labels.end() ? std::string() : it->second;
    };
  }
  if (by == "device_model") {
    return [](const HostRow& h) {
      return DeviceModels(h.workload.snapshot().environment());
    };
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "cohort_by \"", by.substr(0, 32),
      "\" is not kernel_release, device_model or label:NAME"));
}

// Fills each host row's file_sd labels and what its daemon reports about
// itself (read by the orchestrator before the start instant, ReadIdentity;
// otherwise one GetCapabilities per host now, on the run's own channel; a
// host that does not answer keeps them empty), then the cohorts.
absl::Status AddIdentityAndCohorts(const FleetOptions& options,
                                   const Labels& labels, FleetRun& run,
                                   FleetReport& report) {
  std::map<std::string, HostRun*> hosts;
  for (HostRun& h : run.hosts) hosts[h.address] = &h;
  ForEachBounded(report.hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRow& row = report.hosts[i];
    if (auto it = labels.find(row.address); it != labels.end()) {
      row.labels = it->second;
      row.labels.erase(kGrpcPortLabel);
    }
    auto h = hosts.find(row.address);
    if (h == hosts.end()) return;
    const HostRun& host = *h->second;
    if (host.identity_read) {
      row.kernel_release = host.kernel_release;
      row.daemon_version = host.daemon_version;
      return;
    }
    if (host.connection == nullptr) return;
    absl::StatusOr<v1::GetCapabilitiesResponse> caps =
        host.connection->GetCapabilities({});
    if (!caps.ok()) return;
    row.kernel_release = caps->kernel_release();
    row.daemon_version = caps->daemon_version();
  });
  const std::string by = absl::GetFlag(FLAGS_cohort_by);
  if (by.empty()) return absl::OkStatus();
  absl::StatusOr<std::function<std::string(const HostRow&)>> key =
      CohortKey(by);
  if (!key.ok()) return key.status();
  return AddCohorts(run, by, *key, report);
}

// One line per distinct error of `hosts` (those with one), naming the
// hosts that gave it: "  3 hosts (a, b, c): reason".
std::string ErrorsByCause(const std::vector<HostRun>& hosts) {
  std::vector<std::pair<std::string, std::vector<std::string>>> causes;
  for (const HostRun& h : hosts) {
    if (h.error.empty()) continue;
    // The same cause on every host reads the same: without the host's name.
    const std::string error = absl::StrReplaceAll(
        absl::StripPrefix(h.error, absl::StrCat("blkperfd at ", h.address, ": ")),
        {{h.address, "the host"}});
    auto it = std::find_if(causes.begin(), causes.end(),
                           [&](const auto& c) { return c.first == error; });
    if (it == causes.end()) {
      causes.push_back({error, {}});
      it = causes.end() - 1;
    }
    it->second.push_back(h.address);
  }
  std::string out;
  for (const auto& [error, addresses] : causes) {
    absl::StrAppend(&out, "  ", addresses.size(),
                    addresses.size() == 1 ? " host (" : " hosts (",
                    absl::StrJoin(addresses, ", "), "): ", error, "\n");
  }
  return out;
}

// Sets `flag` on the first SIGINT/SIGTERM (read from a signalfd, so no code
// runs in signal context); a second one exits at once.
void WatchSignals(std::atomic<bool>* flag) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const int fd = signalfd(-1, &signals, SFD_CLOEXEC);
  if (fd < 0) {
    std::cerr << "blkperf fleet: signalfd failed; Ctrl-C will not abort the "
                 "run everywhere"
              << std::endl;
    return;
  }
  std::thread([fd, flag] {
    signalfd_siginfo info;
    while (read(fd, &info, sizeof(info)) == sizeof(info)) {
      if (flag->exchange(true)) _exit(130);
      std::cerr << "\nblkperf fleet: aborting the run everywhere (interrupt "
                   "again to exit at once; armed hosts then release "
                   "themselves when their lease ends)"
                << std::endl;
    }
  }).detach();
}

std::string Line(const IntervalFigures& f, const ClientSettings& s) {
  if (s.json || s.api_json) {
    return absl::StrFormat(
        "{\"iops\": %.1f, \"bytes_per_second\": %.1f, \"p99_ns\": %d, "
        "\"slowest_host\": \"%s\", \"slowest_iops\": %.1f, \"running\": %d, "
        "\"hosts\": %d}",
        f.iops, f.bytes_per_second, f.p99_ns, f.slowest_host, f.slowest_iops,
        f.running, f.hosts);
  }
  return absl::StrFormat(
      "fleet IOPS=%.1fk BW=%.2fMiB/s p99(last interval)=%.1fus slowest=%s "
      "(%.1fk) running=%d/%d",
      f.iops / 1e3, f.bytes_per_second / (1024.0 * 1024.0), f.p99_ns / 1e3,
      f.slowest_host.empty() ? "-" : f.slowest_host, f.slowest_iops / 1e3,
      f.running, f.hosts);
}

// What --output_format (or --json / --api_json) asks of a report, with
// --percentile_list checked; InvalidArgument naming the flag otherwise.
absl::StatusOr<OutputFormat> ReportFormat(const ClientSettings& s) {
  absl::StatusOr<OutputFormat> format = OutputFormatFromFlags(s.json);
  if (!format.ok()) return format.status();
  if (absl::Status p = PercentileListFromFlags().status(); !p.ok()) return p;
  if (s.api_json && *format != OutputFormat::kText &&
      *format != OutputFormat::kJson) {
    return absl::InvalidArgumentError(
        absl::StrCat("--api_json conflicts with --output_format=",
                     OutputFormatName(*format)));
  }
  return *format;
}

// The report as text or in one of fio's formats, as ReportFormat says.
absl::StatusOr<std::string> FormatReport(const FleetReport& report,
                                         const ClientSettings& s) {
  absl::StatusOr<OutputFormat> format = ReportFormat(s);
  if (!format.ok()) return format.status();
  if (IsFioFormat(*format)) {
    absl::StatusOr<std::vector<double>> percentiles = PercentileListFromFlags();
    if (!percentiles.ok()) return percentiles.status();
    return FormatReportFioJson(
        report, FioJsonOptions{.plus = *format == OutputFormat::kFioJsonPlus,
                               .percentiles = *std::move(percentiles)});
  }
  return FormatReportText(report);
}

// With --cohort_by: the cohorts compared (experiment_run.h), or why not
// (on stderr: fewer than two cohorts is a fact of the run, not an error).
std::optional<CohortComparison> CohortComparisonOf(const FleetReport& report) {
  if (report.cohort_by.empty()) return std::nullopt;
  absl::StatusOr<ExperimentFlags> flags = ExperimentFlagsFromFlags();
  if (!flags.ok()) return std::nullopt;  // checked in OptionsFromFlags
  absl::StatusOr<CohortComparison> c = CompareReportCohorts(
      report, absl::GetFlag(FLAGS_cohort_baseline), flags->margin,
      flags->confidence, flags->headline);
  if (!c.ok()) {
    std::cerr << "blkperf fleet: no cohort comparison: " << c.status().message()
              << std::endl;
    return std::nullopt;
  }
  return *std::move(c);
}

// Writes the report to `out` as --output_format / --json / --api_json /
// text ask, with the cohort comparison (may be null) in text and JSON; JSON
// without a comparison as it is made (WriteReportJson), never whole in
// memory.
absl::Status WriteReport(const FleetReport& report, const ClientSettings& s,
                         const CohortComparison* comparison,
                         std::ostream& out) {
  absl::StatusOr<OutputFormat> format = ReportFormat(s);
  if (!format.ok()) return format.status();
  const WorkloadJson schema =
      s.api_json ? WorkloadJson::kApi : WorkloadJson::kReport;
  if (s.api_json || *format == OutputFormat::kJson) {
    if (comparison == nullptr) {
      WriteReportJson(report, schema, out);
    } else {
      out << WithCohortComparison(FormatReportJson(report, schema), *comparison);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> text = FormatReport(report, s);
  if (!text.ok()) return text.status();
  if (comparison != nullptr && *format == OutputFormat::kText) {
    absl::StrAppend(&*text, FormatCohortText(*comparison));
  }
  out << *text;
  return absl::OkStatus();
}

// Writes the report (WriteReport) to `path` whole: a temporary file beside
// it, then renamed over it, so a reader never sees half a report.
absl::Status WriteReportFile(const std::string& path,
                             const FleetReport& report, const ClientSettings& s,
                             const CohortComparison* comparison) {
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const absl::Status written = WriteReport(report, s, comparison, out);
    out.close();
    if (!written.ok() || !out) {
      std::remove(tmp.c_str());
      if (!written.ok()) return written;
      return absl::UnavailableError(absl::StrCat(
          "report_file ", path, ": cannot write ", tmp, ": ", strerror(errno)));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat(
        "report_file ", path, ": cannot rename ", tmp, " to it: ",
        strerror(error)));
  }
  return absl::OkStatus();
}

// Prints the report (WriteReport; to --report_file when given); the exit
// status of its outcome (4 under --fail_on=slower when a cohort is slower).
int Print(const FleetReport& report, const ClientSettings& s) {
  const std::optional<CohortComparison> comparison = CohortComparisonOf(report);
  const CohortComparison* compared =
      comparison.has_value() ? &*comparison : nullptr;
  if (const std::string file = absl::GetFlag(FLAGS_report_file);
      !file.empty()) {
    if (absl::Status w = WriteReportFile(file, report, s, compared); !w.ok()) {
      // Not lost: stdout after all.
      (void)WriteReport(report, s, compared, std::cout);
      std::cout << std::flush;
      return Fail(w);
    }
    std::cerr << "blkperf fleet: report of run " << report.run_id
              << " written to " << file << std::endl;
  } else {
    const absl::Status written = WriteReport(report, s, compared, std::cout);
    std::cout << std::flush;
    if (!written.ok()) return Fail(written);
  }
  if (report.outcome == "completed") {
    const bool slower =
        comparison.has_value() &&
        std::any_of(comparison->cohorts.begin(), comparison->cohorts.end(),
                    [](const CohortResult& c) {
                      return !c.baseline && c.verdict == Verdict::kSlower;
                    });
    absl::StatusOr<ExperimentFlags> flags = ExperimentFlagsFromFlags();
    return slower && flags.ok() && flags->fail_on_slower ? kExitSlower : 0;
  }
  return report.outcome == "partial" ? 3 : 1;
}

// `fleet run --vary=...`: the experiment over every host (experiment_run.h),
// its report in text or --json (the experiment schema).
int RunExperiment(const FleetOptions& options,
                  const std::vector<std::string>& addresses,
                  const ClientSettings& s, OutputFormat format,
                  const std::atomic<bool>* interrupted) {
  const std::string arms = ArmsFlagName();
  if (format != OutputFormat::kText && format != OutputFormat::kJson) {
    return FailUsage(absl::InvalidArgumentError(absl::StrCat(
        arms, " with --output_format=", OutputFormatName(format),
        ": an experiment reports as text or json")));
  }
  if (s.api_json || !absl::GetFlag(FLAGS_cohort_by).empty()) {
    return FailUsage(absl::InvalidArgumentError(absl::StrCat(
        arms, s.api_json ? " with --api_json: an experiment reports as text "
                           "or --json"
                         : " with --cohort_by: give one of them")));
  }
  // Every arm runs in rounds (split too: each arm-round is a fleet run).
  absl::StatusOr<ExperimentPlan> plan =
      PlanExperimentFromFlags(/*live_arms=*/false);
  if (!plan.ok()) return FailUsage(plan.status());
  if (plan->flags.until_decided) {
    return FailUsage(absl::InvalidArgumentError(
        "--until=decided with fleet run: a fleet experiment runs its --rounds "
        "(the stopping rule is blkperfd run's and blkperf run's)"));
  }
  // Each arm-round's run id is run_id + "-r<round>-<arm>" (up to 8 more).
  if (options.run_id.size() > 56) {
    return FailUsage(absl::InvalidArgumentError(absl::StrCat(
        "run_id \"", options.run_id.substr(0, 64), "\" with --vary: at most 56 "
        "characters (each arm of each round runs as run_id-r<round>-<arm>)")));
  }
  std::cerr << "blkperf fleet: experiment " << options.run_id << " on "
            << addresses.size() << " hosts: " << plan->order.size()
            << " rounds x " << plan->arms.size() << " arms" << std::endl;
  const FleetExperimentOutcome outcome =
      RunFleetExperiment(*plan, options, addresses, interrupted,
                         !s.quiet && isatty(STDERR_FILENO));
  if (outcome.exit_code != 0) {
    std::cerr << "blkperf fleet: " << outcome.message << std::endl;
    return outcome.exit_code;
  }
  std::cout << (format == OutputFormat::kJson
                    ? FormatFleetExperimentJson(outcome.result)
                    : FormatFleetExperimentText(outcome.result))
            << std::flush;
  return FleetExitCode(*plan, outcome.result);
}

// Holds a finished run and its report until the process exits, never torn
// down: closing a fleet's channels and freeing its results one by one costs
// seconds at 10,000 hosts, and the exit frees them at once. (Reachable from
// here, so LeakSanitizer does not count them.)
void KeepUntilExit(FleetRun run, FleetReport report) {
  static auto* const kept = new std::vector<std::pair<FleetRun, FleetReport>>();
  kept->emplace_back(std::move(run), std::move(report));
}

int Run(const ClientSettings& s, const std::atomic<bool>* interrupted) {
  absl::StatusOr<OutputFormat> format = ReportFormat(s);
  if (!format.ok()) return FailUsage(format.status());
  absl::StatusOr<FleetOptions> options = OptionsFromFlags(s);
  if (!options.ok()) return FailUsage(options.status());
  const absl::StatusOr<SaveSettings> save = SaveSettingsFromFlags();
  if (!save.ok()) return FailUsage(save.status());
  Labels labels;
  absl::StatusOr<std::vector<std::string>> addresses =
      Addresses(options->channel, &labels);
  if (!addresses.ok()) return FailUsage(addresses.status());
  // Each host's own target paths, where its file_sd group gives them.
  for (const auto& [address, host_labels] : labels) {
    if (auto it = host_labels.find(kTargetsLabel); it != host_labels.end()) {
      options->target_paths[address] = absl::StrSplit(it->second, ',');
    }
  }
  if (ExperimentGiven()) {
    return RunExperiment(*options, *addresses, s, *format, interrupted);
  }
  absl::StatusOr<v1::WorkloadSpec> spec = s.spec();
  if (!spec.ok()) return FailUsage(spec.status());
  // fio's slat/clat are per I/O: the fio formats default to per_io latency.
  if (IsFioFormat(*format) &&
      spec->latency_mode() == v1::LATENCY_MODE_UNSPECIFIED) {
    spec->set_latency_mode(v1::LATENCY_MODE_PER_IO);
  }
  const bool machine = *format != OutputFormat::kText || s.api_json;
  std::cerr << "blkperf fleet: run " << options->run_id << " on "
            << addresses->size() << " hosts" << std::endl;
  Orchestrator o(*options, *std::move(addresses), interrupted);
  if (!s.quiet && !machine) {
    o.OnInterval([&](const IntervalFigures& f) {
      std::cerr << Line(f, s) << std::endl;
    });
  }
  absl::StatusOr<FleetRun> run = o.Run(*spec);
  if (!run.ok()) return Fail(run.status());
  // Cohorts merge again from the run's workloads; otherwise the report
  // takes them (one copy of 10,000 hosts' results, not two).
  absl::StatusOr<FleetReport> report =
      absl::GetFlag(FLAGS_cohort_by).empty() ? BuildReportTakingWorkloads(*run)
                                             : BuildReport(*run);
  if (!report.ok()) return Fail(report.status());
  if (absl::Status st = AddIdentityAndCohorts(*options, labels, *run, *report);
      !st.ok()) {
    return Fail(st);
  }
  const int code = Print(*report, s);
  // After the report: host by host, a store that is down costs nothing.
  SaveFleetResult(*save, *report);
  KeepUntilExit(*std::move(run), *std::move(report));
  return code;
}

// The hosts of --hosts, those holding run `run_id` with its workload.
absl::StatusOr<std::vector<HostRun>> FindRunOfFlags(FleetOptions& options,
                                                    const std::string& run_id,
                                                    Labels* labels = nullptr) {
  absl::StatusOr<std::vector<std::string>> addresses =
      Addresses(options.channel, labels);
  if (!addresses.ok()) return addresses.status();
  return FindRun(options, *addresses, run_id);
}

int Holding(const std::vector<HostRun>& hosts) {
  return static_cast<int>(std::count_if(
      hosts.begin(), hosts.end(),
      [](const HostRun& h) { return !h.workload_id.empty(); }));
}

// NotFound naming the run and why each host does not hold it.
absl::Status NotOnAnyHost(const std::string& run_id,
                          const std::vector<HostRun>& hosts) {
  return absl::NotFoundError(
      absl::StrCat("run ", run_id, " is on none of the ", hosts.size(),
                   " hosts of --hosts:\n", ErrorsByCause(hosts)));
}

int Watch(const ClientSettings& s, const std::string& run_id,
          const std::atomic<bool>* interrupted) {
  absl::StatusOr<FleetOptions> options = OptionsFromFlags(s);
  if (!options.ok()) return FailUsage(options.status());
  absl::StatusOr<std::vector<HostRun>> hosts = FindRunOfFlags(*options, run_id);
  if (!hosts.ok()) return FailUsage(hosts.status());
  if (Holding(*hosts) == 0) return Fail(NotOnAnyHost(run_id, *hosts));
  const bool running =
      std::any_of(hosts->begin(), hosts->end(), [](const HostRun& h) {
        return h.state == HostState::kStarted;
      });
  if (!running) {
    std::cerr << "blkperf fleet: run " << run_id << " has ended on every host "
              << "holding it; `blkperf fleet report " << run_id
              << " --hosts=...` merges its result" << std::endl;
  } else {
    WatchRun(*options, *hosts, interrupted, [&](const IntervalFigures& f) {
      std::cout << Line(f, s) << std::endl;
    });
  }
  int bad = 0;
  for (const HostRun& h : *hosts) bad += h.state != HostState::kCompleted;
  std::cerr << ErrorsByCause(*hosts);
  return bad == 0 ? 0 : 1;
}

// `fleet abort RUN`: AbortRun on every host of --hosts holding the run
// (armed or running; one that has ended keeps its result). 0 when at
// least one host held it and every such host answered.
int Abort(const ClientSettings& s, const std::string& run_id) {
  absl::StatusOr<FleetOptions> options = OptionsFromFlags(s);
  if (!options.ok()) return FailUsage(options.status());
  absl::StatusOr<std::vector<HostRun>> hosts = FindRunOfFlags(*options, run_id);
  if (!hosts.ok()) return FailUsage(hosts.status());
  if (Holding(*hosts) == 0) return Fail(NotOnAnyHost(run_id, *hosts));
  std::vector<std::string> outcome(hosts->size());
  ForEachBounded(hosts->size(), options->max_in_flight, [&](size_t i) {
    HostRun& h = (*hosts)[i];
    if (h.workload_id.empty()) return;
    v1::AbortRunRequest request;
    request.set_run_id(run_id);
    request.set_reason("blkperf fleet abort");
    RetryPolicy policy = options->retry;
    policy.deadline = absl::Now() + options->call_timeout;
    absl::StatusOr<v1::AbortRunResponse> r =
        CallWithRetry<v1::AbortRunResponse>(
            policy, Idempotency::kIdempotent,
            [&] { return h.connection->AbortRun(request, policy.budget()); });
    if (!r.ok()) {
      h.error = std::string(r.status().message());
      return;
    }
    h.error.clear();
    outcome[i] = absl::AsciiStrToLower(absl::StripPrefix(
        v1::WorkloadState_Name(r->workload().state()), "WORKLOAD_STATE_"));
  });
  int failed = 0;
  for (size_t i = 0; i < hosts->size(); ++i) {
    const HostRun& h = (*hosts)[i];
    if (h.workload_id.empty()) continue;
    failed += outcome[i].empty();
    if (!outcome[i].empty()) {
      std::cout << h.address << ": " << outcome[i] << "\n";
    }
  }
  std::cout << std::flush;
  std::cerr << ErrorsByCause(*hosts);
  return failed == 0 ? 0 : 1;
}

// `fleet report RUN`: the merged report of a run that has ended, from the
// results its hosts keep (--keep_finished), e.g. after the orchestrator
// died. Totals and histograms merge exactly as in `fleet run`; the hosts'
// final results carry no interval samples, so each host's count inside the
// overlap window is interpolated over its whole run (the report says so).
int Report(const ClientSettings& s, const std::string& run_id) {
  if (absl::Status f = ReportFormat(s).status(); !f.ok()) return FailUsage(f);
  absl::StatusOr<FleetOptions> options = OptionsFromFlags(s);
  if (!options.ok()) return FailUsage(options.status());
  Labels labels;
  absl::StatusOr<std::vector<HostRun>> hosts =
      FindRunOfFlags(*options, run_id, &labels);
  if (!hosts.ok()) return FailUsage(hosts.status());
  const int holding = Holding(*hosts);
  if (holding == 0) return Fail(NotOnAnyHost(run_id, *hosts));
  const int running = static_cast<int>(
      std::count_if(hosts->begin(), hosts->end(), [](const HostRun& h) {
        return h.state == HostState::kStarted;
      }));
  if (running > 0) {
    return Fail(absl::FailedPreconditionError(absl::StrCat(
        "run ", run_id, " is still running on ", running, " of ", holding,
        " hosts; `blkperf fleet watch ", run_id, "` follows it")));
  }
  ReadRunClocks(*options, *hosts);
  FleetRun run;
  run.run_id = run_id;
  run.started = true;
  run.needed = holding;
  std::vector<int64_t> starts;
  for (HostRun& h : *hosts) {
    h.go_host_ns = h.workload.start().scheduled_monotonic_ns();
    if (h.state == HostState::kCompleted && h.go_host_ns != 0) {
      starts.push_back(h.go_host_ns - h.clock.offset_ns);
    }
  }
  if (!starts.empty()) {
    std::sort(starts.begin(), starts.end());
    run.start_local_ns = starts[starts.size() / 2];
  }
  run.hosts = *std::move(hosts);
  absl::StatusOr<FleetReport> report = BuildReport(run);
  if (!report.ok()) return Fail(report.status());
  if (absl::Status st = AddIdentityAndCohorts(*options, labels, run, *report);
      !st.ok()) {
    return Fail(st);
  }
  report->merged.mutable_snapshot()->add_notes(
      "re-merged by `blkperf fleet report` from the results the hosts keep: "
      "ios, bytes and histograms are exact; the hosts' interval samples are "
      "gone, so each host's I/Os inside the overlap window are interpolated "
      "over its whole measured run (a steady rate)");
  return Print(*report, s);
}

int Split(const ClientSettings& s, const std::string& run_id,
          const std::string& strategy) {
  absl::StatusOr<FleetOptions> options = OptionsFromFlags(s);
  if (!options.ok()) return FailUsage(options.status());
  absl::StatusOr<std::vector<HostRun>> hosts = FindRunOfFlags(*options, run_id);
  if (!hosts.ok()) return FailUsage(hosts.status());
  SplitRun(*options, *hosts, strategy);
  int bad = 0;
  for (const HostRun& h : *hosts) {
    const bool ok = h.state == HostState::kStarted && h.error.empty();
    bad += !ok;
    std::cout << h.address << ": "
              << (ok ? absl::StrCat("split ", strategy, " at monotonic ",
                                    h.go_host_ns, " (+-", h.clock.error_ns,
                                    "ns)")
                     : absl::StrCat("not switched: ", h.error))
              << "\n";
  }
  return bad == 0 ? 0 : 1;
}

int ShowInventory() {
  const std::string hosts = absl::GetFlag(FLAGS_hosts);
  if (hosts.empty()) {
    return FailUsage(absl::InvalidArgumentError("hosts is empty: give --hosts=..."));
  }
  absl::StatusOr<Inventory> inventory = LoadInventory(hosts);
  if (!inventory.ok()) return FailUsage(inventory.status());
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format == "file_sd") {
    const int port = absl::GetFlag(FLAGS_metrics_port);
    if (port < 1 || port > 65535) {
      return FailUsage(absl::InvalidArgumentError(
          absl::StrCat("metrics_port ", port, " is not in 1..65535")));
    }
    std::cout << FormatFileSd(*inventory, port) << "\n";
    return 0;
  }
  if (format != "list") {
    return FailUsage(absl::InvalidArgumentError(absl::StrCat(
        "format \"", format.substr(0, 32), "\" is not list or file_sd")));
  }
  std::cerr << inventory->source << std::endl;
  for (const Host& h : inventory->hosts) std::cout << h.address << "\n";
  return 0;
}

}  // namespace

int RunFleetCommand(const std::vector<std::string>& args,
                    const ClientSettings& settings) {
  if (args.empty()) return Usage("no fleet command given");
  const std::string& command = args[0];
  static std::atomic<bool> interrupted{false};
  if (ExperimentGiven() && command != "run") {
    return Usage(ArmsFlagName() + ": experiments run on `fleet run` "
                 "(docs/experiments.md)");
  }
  if (command == "run" && args.size() == 1) {
    WatchSignals(&interrupted);
    return Run(settings, &interrupted);
  }
  if (command == "watch" && args.size() == 2) {
    WatchSignals(&interrupted);
    return Watch(settings, args[1], &interrupted);
  }
  if (command == "split" && args.size() == 3) {
    return Split(settings, args[1], args[2]);
  }
  if (command == "abort" && args.size() == 2) return Abort(settings, args[1]);
  if (command == "report" && args.size() == 2) {
    return Report(settings, args[1]);
  }
  if (command == "inventory" && args.size() == 1) return ShowInventory();
  return Usage(absl::StrCat("unknown fleet command or wrong arguments: \"",
                            command.substr(0, 32), "\""));
}

}  // namespace blkperf::fleet
