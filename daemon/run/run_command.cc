#include "daemon/run/run_command.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "daemon/common/default_target.h"
#include "daemon/common/status_macros.h"
#include "daemon/common/units.h"
#include "daemon/engine/workload.h"
#include "daemon/report/report.h"

ABSL_FLAG(std::vector<std::string>, target, {},
          "Targets (block devices or files), comma-separated. Empty: the "
          "embedded default file in --data_dir.");
ABSL_FLAG(std::string, op, "randread",
          "read, write, randread, randwrite or randrw.");
ABSL_FLAG(uint32_t, read_percent, 50, "randrw: percentage of reads.");
ABSL_FLAG(std::string, bs, "4k", "Block size (bytes, k/m suffixes).");
ABSL_FLAG(std::string, alignment, "0", "Offset alignment; 0 = block size.");
ABSL_FLAG(uint32_t, qd, 32, "Queue depth per thread.");
ABSL_FLAG(uint32_t, submit_batch, 0, "SQEs per submit; 0 = min(32, qd).");
ABSL_FLAG(uint32_t, complete_batch, 0,
          "CQEs waited for per call; 0 = min(32, qd).");
ABSL_FLAG(uint32_t, threads, 0, "Submitter threads; 0 = one per --cpus entry.");
ABSL_FLAG(std::vector<std::string>, cpus, {},
          "CPUs to pin threads to, comma-separated.");
ABSL_FLAG(absl::Duration, runtime, absl::Seconds(10), "Measured run time.");
ABSL_FLAG(uint64_t, io_count, 0, "Total I/Os to measure; 0 = no limit.");
ABSL_FLAG(absl::Duration, ramp, absl::ZeroDuration(), "Ramp-up time.");
ABSL_FLAG(bool, direct, true, "O_DIRECT.");
ABSL_FLAG(uint64_t, seed, blkperf::WorkloadSpec().seed, "Random seed.");
ABSL_FLAG(bool, fixed_buffers, true, "Registered (fixed) buffers.");
ABSL_FLAG(bool, registered_files, true, "Registered files.");
ABSL_FLAG(std::string, polled, "off", "Polled completions: off, on, auto.");
ABSL_FLAG(bool, sqpoll, false, "Kernel SQ polling thread.");
ABSL_FLAG(int, sqpoll_cpu, -1, "CPU of the SQPOLL thread; -1 = any.");
ABSL_FLAG(std::string, request_cache, "per_cpu", "per_cpu or shared.");
ABSL_FLAG(bool, latency_tracking, true, "Time every I/O.");
ABSL_FLAG(bool, verify, false,
          "Writes carry a (seed, offset) pattern; reads check it.");
ABSL_FLAG(bool, force_async, false,
          "IOSQE_ASYNC on every SQE: straight to io-wq workers.");
ABSL_FLAG(bool, continue_on_error, false, "Keep going after I/O errors.");
ABSL_FLAG(bool, allow_write, false,
          "Allow writing to (and creating) the --target paths.");
ABSL_FLAG(std::string, create_size, "0",
          "Create/extend file targets to this size (needs --allow_write).");
ABSL_FLAG(std::string, split, "none", "Split strategy: none, limits, fixed:<bytes>.");
ABSL_FLAG(std::vector<std::string>, ab, {},
          "A/B mode: split strategies to alternate, comma-separated "
          "(e.g. none,limits).");
ABSL_FLAG(absl::Duration, ab_slice, absl::Seconds(1),
          "A/B mode: length of each strategy's slice.");
ABSL_FLAG(bool, json, false, "Print the result as JSON.");
ABSL_FLAG(absl::Duration, status_interval, absl::Seconds(1),
          "Live status line interval on stderr; 0 = none.");

namespace blkperf {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view value,
                       absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, " \"", value, "\": expected ", expected));
}

absl::StatusOr<uint64_t> SizeFlag(absl::string_view flag,
                                  const std::string& value) {
  uint64_t bytes = 0;
  if (!ParseSize(value, &bytes)) {
    return FlagError(flag, value, "a size such as 4096, 4k or 1M");
  }
  return bytes;
}

absl::StatusOr<uint32_t> Size32Flag(absl::string_view flag,
                                    const std::string& value) {
  BLKPERF_ASSIGN_OR_RETURN(uint64_t bytes, SizeFlag(flag, value));
  if (bytes > UINT32_MAX) return FlagError(flag, value, "at most 4 GiB");
  return static_cast<uint32_t>(bytes);
}

std::atomic<Workload*> g_running{nullptr};

void OnSignal(int) {
  // Only an atomic store happens in the workload: safe in a handler.
  if (Workload* w = g_running.load()) w->RequestStop();
}

}  // namespace

absl::StatusOr<WorkloadSpec> SpecFromRunFlags() {
  WorkloadSpec spec;
  const std::vector<std::string> targets = absl::GetFlag(FLAGS_target);
  const bool allow_write = absl::GetFlag(FLAGS_allow_write);
  BLKPERF_ASSIGN_OR_RETURN(uint64_t create_size,
                           SizeFlag("create_size", absl::GetFlag(FLAGS_create_size)));
  if (targets.empty()) {
    BLKPERF_ASSIGN_OR_RETURN(TargetSpec target, DefaultTarget(DataDirectory()));
    spec.targets.push_back(std::move(target));
    if (create_size != 0 || allow_write) {
      return absl::InvalidArgumentError(
          "--create_size/--allow_write apply to --target paths; none given");
    }
  }
  for (const std::string& path : targets) {
    spec.targets.push_back(
        {.path = path, .create_size = create_size, .allow_write = allow_write});
  }
  const std::string op = absl::GetFlag(FLAGS_op);
  if (!ParseOp(op, &spec.op)) {
    return FlagError("op", op, "read, write, randread, randwrite or randrw");
  }
  if (targets.empty() && OpWrites(spec.op, absl::GetFlag(FLAGS_read_percent))) {
    // Writing the default file is harmless, but say so plainly.
    spec.targets[0].allow_write = true;
  }
  spec.read_percent = absl::GetFlag(FLAGS_read_percent);
  BLKPERF_ASSIGN_OR_RETURN(spec.block_size, Size32Flag("bs", absl::GetFlag(FLAGS_bs)));
  BLKPERF_ASSIGN_OR_RETURN(spec.alignment,
                           Size32Flag("alignment", absl::GetFlag(FLAGS_alignment)));
  spec.queue_depth = absl::GetFlag(FLAGS_qd);
  spec.submit_batch = absl::GetFlag(FLAGS_submit_batch);
  spec.complete_batch = absl::GetFlag(FLAGS_complete_batch);
  spec.threads = absl::GetFlag(FLAGS_threads);
  for (const std::string& cpu : absl::GetFlag(FLAGS_cpus)) {
    int value = 0;
    if (!absl::SimpleAtoi(cpu, &value) || value < 0) {
      return FlagError("cpus", cpu, "a CPU number");
    }
    spec.cpus.push_back(value);
  }
  spec.runtime = absl::GetFlag(FLAGS_runtime);
  spec.io_count = absl::GetFlag(FLAGS_io_count);
  if (spec.io_count != 0 && absl::GetFlag(FLAGS_runtime) == absl::Seconds(10)) {
    // An I/O count alone means "until done", not "10 s or done".
    spec.runtime = absl::ZeroDuration();
  }
  spec.ramp_time = absl::GetFlag(FLAGS_ramp);
  spec.direct = absl::GetFlag(FLAGS_direct);
  spec.seed = absl::GetFlag(FLAGS_seed);
  spec.fixed_buffers = absl::GetFlag(FLAGS_fixed_buffers);
  spec.registered_files = absl::GetFlag(FLAGS_registered_files);
  const std::string polled = absl::GetFlag(FLAGS_polled);
  if (!ParsePollMode(polled, &spec.polled)) {
    return FlagError("polled", polled, "off, on or auto");
  }
  spec.sqpoll = absl::GetFlag(FLAGS_sqpoll);
  spec.sqpoll_cpu = absl::GetFlag(FLAGS_sqpoll_cpu);
  const std::string cache = absl::GetFlag(FLAGS_request_cache);
  if (!ParseRequestCacheMode(cache, &spec.request_cache)) {
    return FlagError("request_cache", cache, "per_cpu or shared");
  }
  spec.latency_tracking = absl::GetFlag(FLAGS_latency_tracking);
  spec.verify = absl::GetFlag(FLAGS_verify);
  spec.continue_on_error = absl::GetFlag(FLAGS_continue_on_error);
  spec.force_async = absl::GetFlag(FLAGS_force_async);
  BLKPERF_ASSIGN_OR_RETURN(spec.split,
                           ParseSplitStrategy(absl::GetFlag(FLAGS_split), "--split"));
  const std::vector<std::string> ab = absl::GetFlag(FLAGS_ab);
  for (size_t i = 0; i < ab.size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(
        SplitStrategy strategy,
        ParseSplitStrategy(ab[i], absl::StrCat("--ab[", i, "]")));
    spec.ab_strategies.push_back(strategy);
  }
  spec.ab_slice = absl::GetFlag(FLAGS_ab_slice);
  return spec;
}

int RunCommand() {
  absl::StatusOr<WorkloadSpec> spec = SpecFromRunFlags();
  if (!spec.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n", spec.status().ToString().c_str());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Workload>> workload =
      Workload::Start(*spec, EngineLimits{});
  if (!workload.ok()) {
    std::fprintf(stderr, "blkperfd run: %s\n",
                 workload.status().ToString().c_str());
    return workload.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  g_running.store(workload->get());
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);

  const absl::Duration interval = absl::GetFlag(FLAGS_status_interval);
  const bool live = interval > absl::ZeroDuration() && isatty(STDERR_FILENO);
  WorkloadSnapshot previous = (*workload)->Snapshot();
  while (!(*workload)->WaitFor(interval > absl::ZeroDuration() ? interval
                                                               : absl::Seconds(1))) {
    if (!live) continue;
    WorkloadSnapshot current = (*workload)->Snapshot();
    std::fprintf(stderr, "\r%s   ", FormatStatusLine(previous, current).c_str());
    previous = std::move(current);
  }
  if (live) std::fprintf(stderr, "\n");
  (*workload)->Wait();
  g_running.store(nullptr);
  const WorkloadSnapshot result = (*workload)->Snapshot();
  const ResolvedSpec& resolved = (*workload)->spec();
  const std::string text =
      absl::GetFlag(FLAGS_json)
          ? FormatJsonReport(resolved.spec, resolved.targets, result)
          : FormatTextReport(resolved.spec, resolved.targets, result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return result.state == WorkloadState::kFailed ? 1 : 0;
}

}  // namespace blkperf
