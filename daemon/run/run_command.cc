#include "daemon/run/run_command.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "cli/output_format.h"
#include "cli/spec_flags.h"
#include "fio/job_flags.h"
#include "daemon/common/default_target.h"
#include "daemon/engine/host/cpu_isolation.h"
#include "daemon/engine/workload.h"
#include "daemon/run/experiment_command.h"
#include "daemon/run/fio_logs.h"
#include "daemon/run/stop_signal.h"
#include "report/fio_json.h"
#include "report/report.h"
#include "store/save_result.h"
#include "wire/spec_convert.h"

ABSL_FLAG(bool, json, false,
          "Print the result as JSON (the same as --output_format=json).");
ABSL_FLAG(std::string, cpu_sharing, "allow",
          "A CPU another blkperf run holds (the host's registry, "
          "$BLKPERF_CPU_REGISTRY or /run/blkperf): allow (share it, and the "
          "report says so) or refuse (exit 1 naming the CPU).");
ABSL_FLAG(absl::Duration, status_interval, absl::Seconds(1),
          "Live status line interval on stderr; 0 = none.");

namespace blkperf {
namespace {

// Exit codes (README): a run that counted errors under continue_on_error
// is not a success.
constexpr int kExitFailed = 1;
constexpr int kExitFinishedWithErrors = 3;

std::string FormatResult(OutputFormat format,
                         const std::vector<double>& percentiles,
                         const ResolvedSpec& resolved,
                         const WorkloadSnapshot& result) {
  switch (format) {
    case OutputFormat::kJson:
      return FormatJsonReport(resolved.spec, resolved.targets, result);
    case OutputFormat::kFioJson:
    case OutputFormat::kFioJsonPlus:
      return FormatFioJson(
          resolved.spec, resolved.targets, result,
          FioJsonOptions{.plus = format == OutputFormat::kFioJsonPlus,
                         .percentiles = percentiles});
    case OutputFormat::kText:
      break;
  }
  return FormatTextReport(resolved.spec, resolved.targets, result);
}

}  // namespace

absl::StatusOr<WorkloadSpec> SpecFromRunFlags(OutputFormat format,
                                              const FioImport* fio_job) {
  BLKPERF_ASSIGN_OR_RETURN(
      v1::WorkloadSpec proto,
      SpecFromFlagsOnto(fio_job ? fio_job->spec : v1::WorkloadSpec()));
  return RunSpecFromProto(proto, format);
}

absl::StatusOr<WorkloadSpec> RunSpecFromProto(v1::WorkloadSpec proto,
                                              OutputFormat format) {
  // fio's slat/clat are per-I/O: the fio formats default to per_io latency
  // (an explicit --latency_mode=batch is kept, and the output says so).
  if (IsFioFormat(format) &&
      proto.latency_mode() == v1::LATENCY_MODE_UNSPECIFIED) {
    proto.set_latency_mode(v1::LATENCY_MODE_PER_IO);
  }
  BLKPERF_ASSIGN_OR_RETURN(WorkloadSpec spec, SpecFromProto(proto));
  if (spec.targets.empty() && !spec.nop) {
    BLKPERF_ASSIGN_OR_RETURN(TargetSpec target, DefaultTarget(DataDirectory()));
    spec.targets.push_back(std::move(target));
  }
  spec.verify_state_dir = VerifyStateDirectory(DataDirectory());
  const std::string sharing = absl::GetFlag(FLAGS_cpu_sharing);
  if (sharing != "allow" && sharing != "refuse") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cpu_sharing: \"", absl::CEscape(sharing),
        "\" is not allow or refuse"));
  }
  spec.refuse_shared_cpus = sharing == "refuse";
  return spec;
}

namespace {

// What the run's flags (and fio job file) ask for, checked.
struct RunSettings {
  OutputFormat format = OutputFormat::kText;
  std::vector<double> percentiles;
  std::optional<FioImport> fio_job;
  WorkloadSpec spec;
  SaveSettings save;
  std::optional<FioLogPlan> log_plan;
};

absl::StatusOr<RunSettings> RunSettingsFromFlags() {
  RunSettings run;
  BLKPERF_ASSIGN_OR_RETURN(run.format,
                           OutputFormatFromFlags(absl::GetFlag(FLAGS_json)));
  BLKPERF_ASSIGN_OR_RETURN(run.percentiles, PercentileListFromFlags());
  BLKPERF_ASSIGN_OR_RETURN(run.fio_job, FioJobFromFlags());
  if (run.fio_job) {
    PrintFioImportNotes(*run.fio_job, stderr);
    // The job file's percentile_list, unless --percentile_list says otherwise.
    if (!run.fio_job->percentiles.empty() && !PercentileListFlagGiven()) {
      run.percentiles = run.fio_job->percentiles;
    }
  }
  BLKPERF_ASSIGN_OR_RETURN(
      run.spec,
      SpecFromRunFlags(run.format, run.fio_job ? &*run.fio_job : nullptr));
  BLKPERF_ASSIGN_OR_RETURN(run.save, SaveSettingsFromFlags());
  BLKPERF_ASSIGN_OR_RETURN(
      run.log_plan,
      FioLogPlanFromFlags(run.spec,
                          run.fio_job ? run.fio_job->logs : FioLogOptions{}));
  return run;
}

// Until the workload ends: fio's logs, window by window, when asked for;
// else a live status line on a terminal every --status_interval.
void FollowWorkload(Workload& workload, const RunSettings& run,
                    FioLogWriter* logs) {
  const absl::Duration interval = absl::GetFlag(FLAGS_status_interval);
  const bool live = interval > absl::ZeroDuration() && isatty(STDERR_FILENO);
  if (logs != nullptr) {  // fio's logs: this thread snapshots each window
    if (absl::Status s = RecordFioLogs(workload, *run.log_plan, logs);
        !s.ok()) {
      std::fprintf(stderr, "blkperfd run: %s\n", s.ToString().c_str());
    }
  } else if (live) {
    WorkloadSnapshot previous = workload.Snapshot();
    while (!workload.WaitFor(interval)) {
      WorkloadSnapshot current = workload.Snapshot();
      std::fprintf(stderr, "\r%s   ",
                   FormatStatusLine(previous, current).c_str());
      previous = std::move(current);
    }
    std::fprintf(stderr, "\n");
  }
  workload.Wait();
}

int ExitCodeOf(WorkloadState state) {
  if (state == WorkloadState::kFailed) return kExitFailed;
  if (state == WorkloadState::kFinishedWithErrors) {
    return kExitFinishedWithErrors;
  }
  return 0;
}

// spec.precondition: a stderr line at each pass and each further 10 % of
// it until the passes end (the measured run starts after them).
void PrintPreconditionProgress(const Workload& workload) {
  std::string last;
  while (workload.Preconditioning()) {
    const WorkloadSnapshot s = workload.Snapshot();
    if (s.state == WorkloadState::kCreating) {
      // The pass and its tens of percent: a line when either moves.
      const std::string line = PreconditionProgressText(s.precondition);
      const size_t percent = line.find(" % (");
      const std::string key =
          percent == std::string::npos ? line : line.substr(0, percent - 1);
      if (key != last) {
        std::fprintf(stderr, "blkperfd run: %s\n", line.c_str());
        last = key;
      }
    }
    absl::SleepFor(absl::Milliseconds(200));
  }
  const PreconditionSummary p = workload.Snapshot().precondition;
  if (p.passes != 0) {
    std::fprintf(stderr, "blkperfd run: %s\n",
                 PreconditionProgressText(p).c_str());
  }
}

}  // namespace

int RunCommand() {
  if (ExperimentRequested()) return RunExperiment(absl::GetFlag(FLAGS_json));
  absl::StatusOr<RunSettings> run = RunSettingsFromFlags();
  std::optional<FioLogWriter> logs;
  if (run.ok() && run->log_plan) {
    absl::StatusOr<FioLogWriter> opened = FioLogWriter::Open(run->log_plan->settings);
    if (!opened.ok()) run = opened.status();
    else logs.emplace(*std::move(opened));
  }
  if (!run.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n", run.status().ToString().c_str());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Workload>> workload =
      Workload::Start(run->spec, EngineLimits{});
  if (!workload.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n",
                 workload.status().ToString().c_str());
    return workload.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  // Ctrl-C: the handler asks the workload to stop with atomic stores only,
  // on whichever thread the signal lands; no thread waits for signals.
  StopSignalHandler stop_on_signal(
      [](void* w) { static_cast<Workload*>(w)->RequestStopFromSignal(); },
      workload->get());
  // This thread's status lines stay off the submitters' CPUs.
  KeepControlThreadsOff((*workload)->spec().spec.cpus);
  PrintPreconditionProgress(**workload);
  FollowWorkload(**workload, *run, logs ? &*logs : nullptr);
  const WorkloadSnapshot result = (*workload)->Snapshot();
  const ResolvedSpec& resolved = (*workload)->spec();
  const std::string text =
      FormatResult(run->format, run->percentiles, resolved, result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  // After the report: a store that is down or locked costs the run nothing
  // (the record waits in the spool; store/spool.h).
  SaveResult(run->save,
             MakeResultRecord(resolved.spec, resolved.targets, result,
                              /*run_id=*/"", "blkperfd run", run->save.tags));
  return ExitCodeOf(result.state);
}

}  // namespace blkperf
