#include "cli/fio_log_flags.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, write_iops_log, "",
          "fio's iops log: PREFIX_iops.1.log, averaged over --log_avg_msec.");
ABSL_FLAG(std::string, write_bw_log, "",
          "fio's bandwidth log: PREFIX_bw.1.log (KiB/s), over --log_avg_msec.");
ABSL_FLAG(std::string, write_lat_log, "",
          "fio's latency logs: PREFIX_lat/_slat/_clat.1.log (mean ns), over "
          "--log_avg_msec.");
ABSL_FLAG(int64_t, log_avg_msec, 0,
          "Window of the averaged fio logs in ms (required with them).");
ABSL_FLAG(std::string, write_hist_log, "",
          "fio's completion-latency histogram log: PREFIX_clat_hist.1.log.");
ABSL_FLAG(int64_t, log_hist_msec, 0,
          "Window of --write_hist_log in ms (required with it).");

namespace blkperf {
namespace {

absl::Status BadFlag(absl::string_view flag, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", why));
}

// 0 read, 1 write, 2 trim; -1 when the spec's I/O goes more than one way.
int SpecDirection(const WorkloadSpec& spec) {
  if (!spec.groups.empty() || spec.op == Op::kRandRW) return -1;
  if (OpTrims(spec.op)) return 2;
  return OpWrites(spec.op, 0) ? 1 : 0;
}

absl::StatusOr<absl::Duration> Period(absl::string_view flag, int64_t ms,
                                      absl::string_view log_flag) {
  if (ms <= 0) {
    return BadFlag(log_flag, absl::StrCat(
        "needs --", flag, " > 0 (blkperf keeps no per-I/O samples; it logs "
        "windows)"));
  }
  const absl::Duration d = absl::Milliseconds(ms);
  if (d < kMinFioLogPeriod) {
    return BadFlag(flag, absl::StrCat(ms, " is under the shortest window, ",
                                      absl::FormatDuration(kMinFioLogPeriod)));
  }
  return d;
}

}  // namespace

bool FioLogFlagsGiven() {
  return !absl::GetFlag(FLAGS_write_iops_log).empty() ||
         !absl::GetFlag(FLAGS_write_bw_log).empty() ||
         !absl::GetFlag(FLAGS_write_lat_log).empty() ||
         !absl::GetFlag(FLAGS_write_hist_log).empty();
}

absl::StatusOr<std::optional<FioLogPlan>> FioLogPlanFromFlags(
    const WorkloadSpec& spec, const FioLogOptions& job_file) {
  auto flag_or_file = [](const std::string& flag, const std::string& file) {
    return flag.empty() ? file : flag;
  };
  FioLogPlan plan;
  plan.settings = {
      .iops_prefix = flag_or_file(absl::GetFlag(FLAGS_write_iops_log),
                                  job_file.iops_prefix),
      .bw_prefix =
          flag_or_file(absl::GetFlag(FLAGS_write_bw_log), job_file.bw_prefix),
      .lat_prefix = flag_or_file(absl::GetFlag(FLAGS_write_lat_log),
                                 job_file.lat_prefix),
      .hist_prefix = flag_or_file(absl::GetFlag(FLAGS_write_hist_log),
                                  job_file.hist_prefix)};
  const int64_t avg_msec = absl::GetFlag(FLAGS_log_avg_msec) != 0
                               ? absl::GetFlag(FLAGS_log_avg_msec)
                               : job_file.log_avg_msec;
  const int64_t hist_msec = absl::GetFlag(FLAGS_log_hist_msec) != 0
                                ? absl::GetFlag(FLAGS_log_hist_msec)
                                : job_file.log_hist_msec;
  const FioLogSettings& s = plan.settings;
  const bool averages =
      !s.iops_prefix.empty() || !s.bw_prefix.empty() || !s.lat_prefix.empty();
  if (!averages && s.hist_prefix.empty()) return std::optional<FioLogPlan>();
  if (averages) {
    const char* first = !s.iops_prefix.empty() ? "write_iops_log"
                        : !s.bw_prefix.empty() ? "write_bw_log"
                                               : "write_lat_log";
    absl::StatusOr<absl::Duration> d =
        Period("log_avg_msec", avg_msec, first);
    if (!d.ok()) return d.status();
    plan.average_period = *d;
  }
  if (!s.hist_prefix.empty()) {
    absl::StatusOr<absl::Duration> d =
        Period("log_hist_msec", hist_msec, "write_hist_log");
    if (!d.ok()) return d.status();
    plan.histogram_period = *d;
  }
  const int direction = SpecDirection(spec);
  if (direction < 0 && (!s.lat_prefix.empty() || !s.hist_prefix.empty())) {
    return BadFlag(!s.lat_prefix.empty() ? "write_lat_log" : "write_hist_log",
                   "blkperf's latencies are not kept per direction: latency "
                   "logs need a spec whose I/O goes one way (not randrw or "
                   "job groups)");
  }
  plan.settings.latency_ddir = std::max(direction, 0);
  return std::optional<FioLogPlan>(std::move(plan));
}

absl::Status RecordFioLogs(
    const FioLogPlan& plan,
    absl::FunctionRef<bool(absl::Duration)> wait_for_end,
    absl::FunctionRef<absl::StatusOr<WorkloadSnapshot>()> snapshot,
    FioLogWriter* writer) {
  absl::Duration tick = absl::InfiniteDuration();
  for (absl::Duration p : {plan.average_period, plan.histogram_period}) {
    if (p > absl::ZeroDuration()) tick = std::min(tick, p);
  }
  // The measured counters and elapsed time start from zero when ramp-up
  // ends: the first window starts there, not at this thread's first look.
  WorkloadSnapshot last_average;
  WorkloadSnapshot last_histogram;
  auto emit = [&](const WorkloadSnapshot& now, bool final) {
    if (plan.average_period > absl::ZeroDuration() &&
        now.elapsed > last_average.elapsed &&
        (final || now.elapsed - last_average.elapsed >= plan.average_period)) {
      writer->AddAverages(last_average, now);
      last_average = now;
    }
    if (plan.histogram_period > absl::ZeroDuration() &&
        now.elapsed > last_histogram.elapsed &&
        (final || now.elapsed - last_histogram.elapsed >= plan.histogram_period)) {
      writer->AddHistogram(last_histogram, now);
      last_histogram = now;
    }
  };
  absl::Status status;
  while (status.ok() && !wait_for_end(tick)) {
    absl::StatusOr<WorkloadSnapshot> now = snapshot();
    if (now.ok()) emit(*now, false);
    else status = now.status();
  }
  if (status.ok()) {
    absl::StatusOr<WorkloadSnapshot> last = snapshot();
    if (last.ok()) emit(*last, true);
    else status = last.status();
  }
  absl::Status closed = writer->Close();
  return status.ok() ? closed : status;
}

}  // namespace blkperf
