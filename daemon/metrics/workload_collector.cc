#include "daemon/metrics/workload_collector.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/log.h"
#include "daemon/metrics/latency_buckets.h"
#include "model/histogram.h"
#include "model/snapshot.h"
#include "prometheus/client_metric.h"
#include "prometheus/metric_type.h"

namespace blkperf {
namespace {

using ::prometheus::ClientMetric;
using ::prometheus::MetricFamily;
using ::prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

constexpr WorkloadState kAllStates[] = {
    WorkloadState::kRamping,  WorkloadState::kRunning, WorkloadState::kStopping,
    WorkloadState::kFinished, WorkloadState::kStopped, WorkloadState::kFailed,
    WorkloadState::kFinishedWithErrors,
    WorkloadState::kArmed,    WorkloadState::kAborted,
};

// The families of one scrape, in exposition order.
struct Families {
  MetricFamily ios{"blkperf_ios_total",
                   "Logical I/Os completed in the measured phase.",
                   MetricType::Counter};
  MetricFamily bytes{"blkperf_bytes_total",
                     "Bytes transferred by completed logical I/Os.",
                     MetricType::Counter};
  MetricFamily errors{"blkperf_io_errors_total",
                      "Failed logical I/Os by error kind.",
                      MetricType::Counter};
  MetricFamily inflight{"blkperf_ios_in_flight",
                        "Logical I/Os still in flight right after the "
                        "submitter's last reap (not the peak depth).",
                        MetricType::Gauge};
  MetricFamily inflight_mean{
      "blkperf_inflight_ios_mean",
      "Mean logical I/Os submitted and not yet completed over the measured "
      "time so far (Little's law: IOPS x mean latency, submission to reap).",
      MetricType::Gauge};
  MetricFamily enter_calls{
      "blkperf_io_uring_enter_calls_total",
      "io_uring_enter system calls made to submit and reap I/O.",
      MetricType::Counter};
  MetricFamily ios_per_syscall{
      "blkperf_ios_per_syscall",
      "Logical I/Os completed per io_uring_enter call over the whole run.",
      MetricType::Gauge};
  MetricFamily sqes{"blkperf_sqes_total",
                    "SQEs submitted: the pieces logical I/Os were split into.",
                    MetricType::Counter};
  MetricFamily cache_hits{
      "blkperf_request_cache_hits_total",
      "Request objects taken from the submitter's own cache.",
      MetricType::Counter};
  MetricFamily cache_misses{
      "blkperf_request_cache_misses_total",
      "Request objects the submitter had to take from the shared pool.",
      MetricType::Counter};
  MetricFamily submitter_cpu{
      "blkperf_submitter_cpu_seconds_total",
      "CPU time of submitter threads (user, system) and of the kernel "
      "threads working for their rings (io_worker).",
      MetricType::Counter};
  MetricFamily latency{"blkperf_io_latency_seconds",
                       "Latency of completed logical I/Os.",
                       MetricType::Histogram};
  MetricFamily intended_latency{
      "blkperf_io_intended_latency_seconds",
      "Open loop: latency of completed logical I/Os from their intended "
      "issue time (queueing for a slot included).",
      MetricType::Histogram};
  MetricFamily issue_lag{
      "blkperf_io_issue_lag_seconds",
      "Open loop: issue lag of completed logical I/Os, from their intended "
      "issue time to their submission (a wait for a queue slot or a late "
      "generator); intended latency = issue lag + latency per I/O.",
      MetricType::Histogram};
  MetricFamily late_ios{
      "blkperf_late_ios_total",
      "Open loop: I/Os issued after their intended time because every queue "
      "slot was taken when they were due.",
      MetricType::Counter};
  MetricFamily sync_ios{"blkperf_sync_ios_total",
                        "fsync/fdatasync calls completed (not in ios).",
                        MetricType::Counter};
  MetricFamily slo_done{"blkperf_slo_done",
                        "SLO search: 1 once the search has ended.",
                        MetricType::Gauge};
  MetricFamily slo_best{
      "blkperf_slo_best_iops",
      "SLO search: the highest asked rate that met the objective so far.",
      MetricType::Gauge};
  MetricFamily slo_knee{"blkperf_slo_knee_iops",
                        "SLO search: the knee of the rate-latency curve (0: "
                        "none yet).",
                        MetricType::Gauge};
  MetricFamily slo_max{"blkperf_slo_max_iops",
                       "SLO search: the closed-loop step's IOPS.",
                       MetricType::Gauge};
  MetricFamily slo_step_asked{"blkperf_slo_step_asked_iops",
                              "SLO search: the rate asked in each step (0: "
                              "the closed-loop step).",
                              MetricType::Gauge};
  MetricFamily slo_step_iops{"blkperf_slo_step_iops",
                             "SLO search: the IOPS each step achieved.",
                             MetricType::Gauge};
  MetricFamily slo_step_latency{
      "blkperf_slo_step_latency_seconds",
      "SLO search: each step's intended-time latency percentiles.",
      MetricType::Gauge};
  MetricFamily slo_step_met{"blkperf_slo_step_met",
                            "SLO search: 1 when the step met the objective.",
                            MetricType::Gauge};
  MetricFamily slo_step_verdict{
      "blkperf_slo_step_verdict",
      "SLO search: each step's verdict (met, missed, undecided) from the "
      "95% interval of its percentile, as a label of value 1.",
      MetricType::Gauge};
  MetricFamily slo_step_tail_ios{
      "blkperf_slo_step_tail_ios",
      "SLO search: the I/Os above each step's percentile rank.",
      MetricType::Gauge};
  MetricFamily slo_step_interval{
      "blkperf_slo_step_interval_seconds",
      "SLO search: the 95% interval of each step's objective percentile "
      "(end=\"high\" only when the tail bounds it).",
      MetricType::Gauge};
  MetricFamily slo_best_interval{
      "blkperf_slo_best_interval_seconds",
      "SLO search: the 95% interval of the objective percentile at the "
      "answer (none without an answer).",
      MetricType::Gauge};
  MetricFamily slo_warning{
      "blkperf_slo_warning",
      "SLO search: 1 when a repeated step disagreed with its first verdict.",
      MetricType::Gauge};
  MetricFamily steady_attained{
      "blkperf_steady_state_attained",
      "Steady state: 1 once the criterion held over a window.",
      MetricType::Gauge};
  MetricFamily steady_attained_at{
      "blkperf_steady_state_attained_at_seconds",
      "Steady state: when it was attained, since the series began.",
      MetricType::Gauge};
  MetricFamily steady_left{
      "blkperf_steady_state_left",
      "Steady state: 1 when a window after attainment failed the criterion.",
      MetricType::Gauge};
  MetricFamily steady_value{
      "blkperf_steady_state_window_value",
      "Steady state: the last deciding window's deviation or |slope| (in "
      "percent of its mean for a percentage criterion), compared with the "
      "limit.",
      MetricType::Gauge};
  MetricFamily info{"blkperf_workload_info",
                    "Always 1: the workload's spec and split strategy.",
                    MetricType::Gauge};
  MetricFamily state{"blkperf_workload_state",
                     "1 for the workload's current state, 0 for the others.",
                     MetricType::Gauge};
  MetricFamily finished{
      "blkperf_workload_finished_timestamp_seconds",
      "Ended workloads only: when the workload reached its final state "
      "(Unix time); its series are final and stay until "
      "--metrics_finished_ttl after it.",
      MetricType::Gauge};
  MetricFamily elapsed{"blkperf_workload_elapsed_seconds",
                       "Measured time so far (ramp-up excluded).",
                       MetricType::Gauge};
  MetricFamily switches{"blkperf_split_strategy_switches_total",
                        "Split strategy switches of the workload.",
                        MetricType::Counter};
  MetricFamily split_ios{
      "blkperf_split_ios_total",
      "Logical I/Os completed while each split strategy was in force.",
      MetricType::Counter};
  MetricFamily split_pieces{
      "blkperf_split_pieces_total",
      "SQEs (pieces) submitted while each split strategy was in force.",
      MetricType::Counter};
  MetricFamily pieces_per_io{"blkperf_split_pieces_per_io",
                             "SQEs per logical I/O under each split strategy.",
                             MetricType::Gauge};
  MetricFamily device_requests{
      "blkperf_device_requests_total",
      "Requests the targets' block devices completed while each split "
      "strategy was in force (other users of the devices included).",
      MetricType::Counter};
  MetricFamily device_requests_per_sqe{
      "blkperf_device_requests_per_sqe",
      "Device requests per SQE under each split strategy; above 1 means "
      "the kernel split the pieces further.",
      MetricType::Gauge};
  MetricFamily split_latency{
      "blkperf_split_io_latency_seconds",
      "Latency of logical I/Os completed while each split strategy was in "
      "force.",
      MetricType::Histogram};
  MetricFamily group_latency{
      "blkperf_group_io_latency_seconds",
      "Latency of logical I/Os completed by each job group's threads.",
      MetricType::Histogram};
  MetricFamily group_ios{
      "blkperf_group_ios_total",
      "Logical I/Os completed by each job group's threads.",
      MetricType::Counter};

  std::vector<MetricFamily> Release() && {
    std::vector<MetricFamily> out;
    for (MetricFamily* f : {&ios,
                            &bytes,
                            &errors,
                            &inflight,
                            &inflight_mean,
                            &enter_calls,
                            &ios_per_syscall,
                            &sqes,
                            &cache_hits,
                            &cache_misses,
                            &submitter_cpu,
                            &latency,
                            &intended_latency,
                            &issue_lag,
                            &late_ios,
                            &sync_ios,
                            &slo_done,
                            &slo_best,
                            &slo_knee,
                            &slo_max,
                            &slo_step_asked,
                            &slo_step_iops,
                            &slo_step_latency,
                            &slo_step_met,
                            &slo_step_verdict,
                            &slo_step_tail_ios,
                            &slo_step_interval,
                            &slo_best_interval,
                            &slo_warning,
                            &steady_attained,
                            &steady_attained_at,
                            &steady_left,
                            &steady_value,
                            &info,
                            &state,
                            &finished,
                            &elapsed,
                            &switches,
                            &split_ios,
                            &split_pieces,
                            &pieces_per_io,
                            &device_requests,
                            &device_requests_per_sqe,
                            &split_latency,
                            &group_latency,
                            &group_ios}) {
      if (!f->metric.empty()) out.push_back(std::move(*f));
    }
    return out;
  }
};

void AddCounter(MetricFamily& family, Labels labels, double value) {
  ClientMetric& m = family.metric.emplace_back();
  m.label = std::move(labels);
  m.counter.value = value;
}

void AddGauge(MetricFamily& family, Labels labels, double value) {
  ClientMetric& m = family.metric.emplace_back();
  m.label = std::move(labels);
  m.gauge.value = value;
}

Labels With(Labels labels, std::string name, std::string value) {
  labels.push_back({std::move(name), std::move(value)});
  return labels;
}

std::string CpuLabel(int cpu) {
  return cpu >= 0 ? absl::StrCat(cpu) : "unpinned";
}

// "EIO", "short_transfer", "verify_mismatch", "errno_200".
std::string ErrnoLabel(const ErrorCount& error) {
  if (error.errno_value == kShortTransferErrno) return "short_transfer";
  if (error.errno_value == kVerifyMismatchErrno) return "verify_mismatch";
  if (error.name.empty() || error.name.find(' ') != std::string::npos) {
    return absl::StrCat("errno_", error.errno_value);
  }
  return error.name;
}

// The error counters of one CPU: the kinds every workload can hit (and
// verify_mismatch where it verifies) from the start at 0, so that rate()
// and increase() count a workload's first errors too; any other errno from
// its first occurrence on.
void AddErrorSeries(const WorkloadMetricsView& view, const Labels& labels,
                    const ThreadSnapshot& t, Families& f) {
  std::map<std::string, uint64_t> by_kind = {{"EIO", 0},
                                             {"short_transfer", 0}};
  if (view.verify) by_kind["verify_mismatch"] = 0;
  for (const ErrorCount& e : t.errors) by_kind[ErrnoLabel(e)] += e.count;
  for (const auto& [kind, count] : by_kind) {
    AddCounter(f.errors, With(labels, "errno", kind),
               static_cast<double>(count));
  }
}

// Which `op` series the I/O counters carry: the directions the spec's op
// issues, plus any direction that has counts anyway.
void Directions(const WorkloadMetricsView& view, const ThreadSnapshot& t,
                bool* reads, bool* writes) {
  const std::string& op = view.op;
  const bool known = op == "read" || op == "randread" || op == "write" ||
                     op == "randwrite" || op == "randrw" || op == "trim" ||
                     op == "randtrim";
  *reads = !known || op == "read" || op == "randread" || op == "randrw" ||
           t.read_ios != 0;
  *writes = !known || op == "write" || op == "randwrite" || op == "randrw" ||
            t.write_ios != 0;
}

bool Trims(const WorkloadMetricsView& view, const ThreadSnapshot& t) {
  return view.op == "trim" || view.op == "randtrim" || t.trim_ios != 0;
}

// Threads pinned to the same CPU are summed, so every series is unique.
std::map<int, ThreadSnapshot> ThreadsByCpu(const WorkloadSnapshot& s) {
  std::map<int, ThreadSnapshot> by_cpu;
  if (s.threads.empty()) {
    by_cpu[s.total.cpu] = s.total;
    return by_cpu;
  }
  for (const ThreadSnapshot& t : s.threads) {
    auto [it, inserted] = by_cpu.try_emplace(t.cpu, t);
    if (!inserted) it->second.Merge(t);
  }
  return by_cpu;
}

void AddThreadSeries(const WorkloadMetricsView& view, const Labels& base,
                     int cpu, const ThreadSnapshot& t, Families& f) {
  const absl::Duration elapsed = view.snapshot.elapsed;
  const Labels labels = With(base, "cpu", CpuLabel(cpu));
  bool reads = false;
  bool writes = false;
  Directions(view, t, &reads, &writes);
  if (reads) {
    const Labels op = With(labels, "op", "read");
    AddCounter(f.ios, op, static_cast<double>(t.read_ios));
    AddCounter(f.bytes, op, static_cast<double>(t.read_bytes));
  }
  if (writes) {
    const Labels op = With(labels, "op", "write");
    AddCounter(f.ios, op, static_cast<double>(t.write_ios));
    AddCounter(f.bytes, op, static_cast<double>(t.write_bytes));
  }
  if (Trims(view, t)) {
    const Labels op = With(labels, "op", "trim");
    AddCounter(f.ios, op, static_cast<double>(t.trim_ios));
    AddCounter(f.bytes, op, static_cast<double>(t.trim_bytes));
  }
  if (view.open_loop) {
    AddCounter(f.late_ios, labels, static_cast<double>(t.late_ios));
  }
  if (view.syncs || t.sync_ios != 0) {
    AddCounter(f.sync_ios, labels, static_cast<double>(t.sync_ios));
  }
  AddErrorSeries(view, labels, t, f);
  AddGauge(f.inflight, labels, static_cast<double>(t.inflight));
  AddGauge(f.inflight_mean, labels, t.MeanInflight(elapsed));
  AddCounter(f.enter_calls, labels, static_cast<double>(t.enter_calls));
  AddGauge(f.ios_per_syscall, labels, t.IosPerCall());
  AddCounter(f.sqes, labels, static_cast<double>(t.sqes));
  AddCounter(f.cache_hits, labels, static_cast<double>(t.cache_hits));
  AddCounter(f.cache_misses, labels, static_cast<double>(t.cache_misses));
  AddCounter(f.submitter_cpu, With(labels, "mode", "user"), t.user_cpu_seconds);
  AddCounter(f.submitter_cpu, With(labels, "mode", "system"),
             t.system_cpu_seconds);
  AddCounter(f.submitter_cpu, With(labels, "mode", "io_worker"),
             t.io_worker_cpu_seconds);
}

// Counters of the phases run under one strategy.
struct StrategyTotals {
  int last_phase = -1;
  uint64_t ios = 0;
  LatencyHistogram latency;
  uint64_t sqes = 0;
  bool device_available = false;
  uint64_t device_requests = 0;
  uint64_t device_sqes = 0;  // SQEs of the phases with device counters
};

void AddStrategySeries(const WorkloadMetricsView& view, const Labels& workload,
                       Families& f) {
  const WorkloadSnapshot& s = view.snapshot;
  std::map<std::string, StrategyTotals> by_strategy;
  if (s.phases.empty()) {
    // Before measuring starts (or from an engine without phases): one
    // period under the current strategy.
    StrategyTotals& t = by_strategy[view.split_strategy];
    t.ios = s.total.ios;
    t.latency = s.total.latency;
    t.sqes = s.total.sqes;
    t.device_available = s.device.available;
    t.device_requests = s.device.requests;
    t.device_sqes = s.total.sqes;
  } else {
    for (size_t i = 0; i < s.phases.size(); ++i) {
      const PhaseSnapshot& p = s.phases[i];
      StrategyTotals& t = by_strategy[p.strategy];
      t.last_phase = static_cast<int>(i);
      t.ios += p.total.ios;
      t.latency.Merge(p.total.latency);
      t.sqes += p.total.sqes;
      if (p.device.available) {
        t.device_available = true;
        t.device_requests += p.device.requests;
        t.device_sqes += p.total.sqes;
      }
    }
  }
  // An A/B workload's arms count from the start, at 0, before their first
  // slice (so that rate() counts that slice too).
  for (const std::string& arm : view.ab_strategies) by_strategy.try_emplace(arm);
  // The per-strategy latency histogram (latency_buckets.h's 144 series)
  // only where strategies are compared: with one strategy so far it would
  // repeat blkperf_io_latency_seconds series for series.
  const bool compared = by_strategy.size() > 1;
  // Every switch, also of phases reported merged (phase_report.h).
  const size_t phases = std::max<size_t>(s.phases.size(), s.phases_total);
  AddCounter(f.switches, workload,
             phases == 0 ? 0.0 : static_cast<double>(phases - 1));

  // Keep the most recently used strategies only.
  std::vector<std::pair<const std::string*, const StrategyTotals*>> order;
  for (const auto& [name, totals] : by_strategy) {
    order.emplace_back(&name, &totals);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->last_phase > b.second->last_phase;
  });
  if (order.size() > WorkloadCollector::kMaxStrategiesPerWorkload) {
    order.resize(WorkloadCollector::kMaxStrategiesPerWorkload);
  }
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  for (const auto& [name, t] : order) {
    const Labels labels = With(workload, "strategy", *name);
    AddCounter(f.split_ios, labels, static_cast<double>(t->ios));
    if (compared) {
      ClientMetric& latency = f.split_latency.metric.emplace_back();
      latency.label = labels;
      latency.histogram = ToPrometheusHistogram(t->latency);
    }
    AddCounter(f.split_pieces, labels, static_cast<double>(t->sqes));
    AddGauge(f.pieces_per_io, labels,
             t->ios != 0
                 ? static_cast<double>(t->sqes) / static_cast<double>(t->ios)
                 : 0.0);
    if (t->device_available && view.direct) {
      AddCounter(f.device_requests, labels,
                 static_cast<double>(t->device_requests));
      AddGauge(f.device_requests_per_sqe, labels,
               t->device_sqes != 0 ? static_cast<double>(t->device_requests) /
                                         static_cast<double>(t->device_sqes)
                                   : 0.0);
    }
  }
}

// The target paths joined with ",", each backslash and comma inside a path
// preceded by a backslash, so the label splits back into exactly the paths.
std::string TargetLabel(const std::vector<std::string>& targets) {
  std::string label;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i > 0) label += ',';
    for (const char c : targets[i]) {
      if (c == '\\' || c == ',') label += '\\';
      label += c;
    }
  }
  return label;
}

// Run ids come from clients: export only the documented form.
bool IsRunId(absl::string_view id) {
  return !id.empty() && id.size() <= 64 &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-';
         });
}

Labels WorkloadLabels(const WorkloadMetricsView& view) {
  Labels labels = {{"workload", view.id}};
  if (!view.run_id.empty()) {
    labels.push_back({"run_id", IsRunId(view.run_id) ? view.run_id : "invalid"});
  }
  // The experiment arm (spec.experiment_arm, checked where the spec came
  // in): one per workload, so it adds no series either.
  if (!view.experiment_arm.empty()) {
    labels.push_back({"arm", IsExperimentArmName(view.experiment_arm)
                                 ? view.experiment_arm
                                 : "invalid"});
  }
  return labels;
}

// The SLO search's answer so far and its curve: one series per step (at
// most kMaxSloSteps), the objective as a label of the answer's.
void AddSloSeries(const SloSummary& slo, const Labels& workload, Families& f) {
  if (!slo.enabled) return;
  const Labels objective =
      With(workload, "objective", SloTargetName(slo.target));
  AddGauge(f.slo_done, objective, slo.done ? 1.0 : 0.0);
  AddGauge(f.slo_best, objective, slo.best_iops);
  AddGauge(f.slo_knee, objective, slo.knee_iops);
  AddGauge(f.slo_max, objective, slo.max_iops);
  AddGauge(f.slo_warning, objective, slo.warning.empty() ? 0.0 : 1.0);
  if (slo.best_iops > 0) {
    AddGauge(f.slo_best_interval, With(objective, "end", "low"),
             static_cast<double>(slo.best_value_low_ns) / 1e9);
    AddGauge(f.slo_best_interval, With(objective, "end", "high"),
             static_cast<double>(slo.best_value_high_ns) / 1e9);
  }
  for (size_t i = 0; i < slo.steps.size(); ++i) {
    const SloStep& st = slo.steps[i];
    const Labels step = With(workload, "step", absl::StrCat(i));
    AddGauge(f.slo_step_asked, step, st.asked_iops);
    AddGauge(f.slo_step_iops, step, st.iops);
    AddGauge(f.slo_step_met, step, st.met ? 1.0 : 0.0);
    // One series a step (a step's verdict never changes once recorded).
    AddGauge(f.slo_step_verdict,
             With(step, "verdict", SloVerdictName(st.verdict)), 1.0);
    AddGauge(f.slo_step_tail_ios, step, static_cast<double>(st.tail_ios));
    if (st.interval_known) {
      AddGauge(f.slo_step_interval, With(step, "end", "low"),
               static_cast<double>(st.value_low_ns) / 1e9);
      if (st.value_bounded_above) {
        AddGauge(f.slo_step_interval, With(step, "end", "high"),
                 static_cast<double>(st.value_high_ns) / 1e9);
      }
    }
    const std::pair<const char*, uint64_t> percentiles[] = {
        {"50", st.p50_ns}, {"99", st.p99_ns}, {"99.9", st.p99_9_ns}};
    for (const auto& [q, ns] : percentiles) {
      // "percentile", not "quantile": Prometheus keeps that label for
      // summaries.
      AddGauge(f.slo_step_latency, With(step, "percentile", q),
               static_cast<double>(ns) / 1e9);
    }
  }
}

void AddSteadyStateSeries(const SteadyStateResult& ss, const Labels& workload,
                          Families& f) {
  if (!ss.enabled) return;
  const Labels criterion =
      With(With(workload, "criterion", ss.criterion), "mode", ss.mode);
  AddGauge(f.steady_attained, criterion, ss.attained ? 1.0 : 0.0);
  if (ss.attained) {
    AddGauge(f.steady_attained_at, criterion,
             absl::ToDoubleSeconds(ss.attained_at));
  }
  AddGauge(f.steady_left, criterion, ss.left ? 1.0 : 0.0);
  const SteadyWindowFigures& w = ss.left ? ss.left_figures : ss.figures;
  if (ss.checks > 0 && std::isfinite(w.value)) {
    AddGauge(f.steady_value, criterion, w.value);
  }
}

void AddWorkload(const WorkloadMetricsView& view, Families& f) {
  const WorkloadSnapshot& s = view.snapshot;
  const Labels workload = WorkloadLabels(view);
  const Labels with_target =
      With(workload, "target", TargetLabel(view.targets));

  for (const auto& [cpu, thread] : ThreadsByCpu(s)) {
    AddThreadSeries(view, with_target, cpu, thread, f);
  }

  ClientMetric& latency = f.latency.metric.emplace_back();
  latency.label = with_target;
  latency.histogram = ToPrometheusHistogram(s.total.latency);
  if (view.open_loop || s.total.intended_latency.Count() != 0) {
    ClientMetric& intended = f.intended_latency.metric.emplace_back();
    intended.label = with_target;
    intended.histogram = ToPrometheusHistogram(s.total.intended_latency);
    ClientMetric& lag = f.issue_lag.metric.emplace_back();
    lag.label = with_target;
    lag.histogram = ToPrometheusHistogram(s.total.issue_lag);
  }
  AddSloSeries(s.slo, workload, f);
  AddSteadyStateSeries(s.steady_state, workload, f);
  for (const GroupSnapshot& g : s.groups) {
    const Labels group = With(workload, "group", g.name);
    AddCounter(f.group_ios, group, static_cast<double>(g.total.ios));
    ClientMetric& m = f.group_latency.metric.emplace_back();
    m.label = group;
    m.histogram = ToPrometheusHistogram(g.total.latency);
  }

  AddGauge(f.info,
           With(With(With(workload, "spec", view.spec_summary),
                     "split_strategy", view.split_strategy),
                "rw", view.op),
           1.0);
  for (const WorkloadState state : kAllStates) {
    AddGauge(f.state,
             With(workload, "state", std::string(WorkloadStateName(state))),
             state == s.state ? 1.0 : 0.0);
  }
  if (IsTerminal(s.state) && view.finished_at != absl::InfinitePast()) {
    AddGauge(f.finished, workload, absl::ToDoubleSeconds(
                                       view.finished_at - absl::UnixEpoch()));
  }
  AddGauge(f.elapsed, workload, absl::ToDoubleSeconds(s.elapsed));
  AddStrategySeries(view, workload, f);
}

}  // namespace

WorkloadCollector::WorkloadCollector(WorkloadLister lister, Options options)
    : lister_(std::move(lister)), options_(options) {}

std::vector<MetricFamily> WorkloadCollector::Collect() const {
  // The exposer calls this on a civetweb worker, whose stack is far smaller
  // than a thread's default; engine snapshots (a ~18 KiB histogram inline,
  // several per Workload::Snapshot() frame) overflow it. A thread of our own
  // per scrape costs tens of microseconds once a second.
  std::vector<MetricFamily> families;
  try {
    std::thread collector([&] { families = CollectAt(absl::Now()); });
    collector.join();
  } catch (const std::system_error& e) {
    // No thread to spare: this scrape goes without workload metrics rather
    // than risk the small stack.
    BLKPERF_LOG(WARNING) << "metrics: cannot start a collector thread: "
                         << e.what();
  }
  return families;
}

std::vector<MetricFamily> WorkloadCollector::CollectAt(absl::Time now) const {
  Families families;
  absl::flat_hash_set<std::string> seen;
  for (const WorkloadMetricsView& view : lister_()) {
    if (IsTerminal(view.snapshot.state) &&
        view.finished_at != absl::InfinitePast() &&
        now - view.finished_at > options_.finished_ttl) {
      continue;
    }
    if (!seen.insert(view.id).second) continue;
    AddWorkload(view, families);
  }
  return std::move(families).Release();
}

}  // namespace blkperf
