#include "wire/snapshot_convert.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "wire/context_convert.h"
#include "wire/steady_state_convert.h"

namespace blkperf {
namespace {

constexpr char kLayoutName[] = "log-linear-64";

uint64_t Minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

void TimeToProto(absl::Time time, google::protobuf::Timestamp* proto) {
  const int64_t nanos = absl::ToUnixNanos(time);
  int64_t seconds = nanos / 1000000000;
  int64_t rest = nanos % 1000000000;
  if (rest < 0) {
    rest += 1000000000;
    --seconds;
  }
  proto->set_seconds(seconds);
  proto->set_nanos(static_cast<int32_t>(rest));
}

absl::Time TimeFromProto(const google::protobuf::Timestamp& proto) {
  return absl::FromUnixSeconds(proto.seconds()) +
         absl::Nanoseconds(proto.nanos());
}

void DurationToProto(absl::Duration duration,
                     google::protobuf::Duration* proto) {
  const int64_t nanos = absl::ToInt64Nanoseconds(duration);
  proto->set_seconds(nanos / 1000000000);
  proto->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

absl::Duration DurationFromProto(const google::protobuf::Duration& proto) {
  return absl::Seconds(proto.seconds()) + absl::Nanoseconds(proto.nanos());
}

WorkloadState StateFromProto(v1::WorkloadState state) {
  switch (state) {
    case v1::WORKLOAD_STATE_RAMPING:
      return WorkloadState::kRamping;
    case v1::WORKLOAD_STATE_STOPPING:
      return WorkloadState::kStopping;
    case v1::WORKLOAD_STATE_FINISHED:
      return WorkloadState::kFinished;
    case v1::WORKLOAD_STATE_STOPPED:
      return WorkloadState::kStopped;
    case v1::WORKLOAD_STATE_FAILED:
      return WorkloadState::kFailed;
    case v1::WORKLOAD_STATE_FINISHED_WITH_ERRORS:
      return WorkloadState::kFinishedWithErrors;
    case v1::WORKLOAD_STATE_ARMED:
      return WorkloadState::kArmed;
    case v1::WORKLOAD_STATE_ABORTED:
      return WorkloadState::kAborted;
    case v1::WORKLOAD_STATE_CREATING:
      return WorkloadState::kCreating;
    default:
      return WorkloadState::kRunning;
  }
}

v1::WorkloadState StateToProto(WorkloadState state) {
  switch (state) {
    case WorkloadState::kRamping:
      return v1::WORKLOAD_STATE_RAMPING;
    case WorkloadState::kRunning:
      return v1::WORKLOAD_STATE_RUNNING;
    case WorkloadState::kStopping:
      return v1::WORKLOAD_STATE_STOPPING;
    case WorkloadState::kFinished:
      return v1::WORKLOAD_STATE_FINISHED;
    case WorkloadState::kStopped:
      return v1::WORKLOAD_STATE_STOPPED;
    case WorkloadState::kFailed:
      return v1::WORKLOAD_STATE_FAILED;
    case WorkloadState::kFinishedWithErrors:
      return v1::WORKLOAD_STATE_FINISHED_WITH_ERRORS;
    case WorkloadState::kArmed:
      return v1::WORKLOAD_STATE_ARMED;
    case WorkloadState::kAborted:
      return v1::WORKLOAD_STATE_ABORTED;
    case WorkloadState::kCreating:
      return v1::WORKLOAD_STATE_CREATING;
  }
  return v1::WORKLOAD_STATE_UNSPECIFIED;
}

void StartTimesToProto(const StartTimes& start, v1::StartReport* proto) {
  proto->set_scheduled_monotonic_ns(start.scheduled_monotonic_ns);
  proto->set_first_submit_monotonic_ns(start.first_monotonic_ns);
  proto->set_first_submit_realtime_ns(start.first_realtime_ns);
  proto->set_last_thread_first_submit_monotonic_ns(start.last_monotonic_ns);
  proto->set_threads_started(start.threads_started);
  proto->set_realtime_wait_threads(start.realtime_wait_threads);
  proto->set_realtime_wait_error(start.realtime_wait_error);
  proto->set_measure_start_monotonic_ns(start.measure_start_monotonic_ns);
}

StartTimes StartTimesFromProto(const v1::StartReport& proto) {
  StartTimes start;
  start.scheduled_monotonic_ns = proto.scheduled_monotonic_ns();
  start.first_monotonic_ns = proto.first_submit_monotonic_ns();
  start.first_realtime_ns = proto.first_submit_realtime_ns();
  start.last_monotonic_ns = proto.last_thread_first_submit_monotonic_ns();
  start.threads_started = proto.threads_started();
  start.realtime_wait_threads = proto.realtime_wait_threads();
  start.realtime_wait_error = proto.realtime_wait_error();
  start.measure_start_monotonic_ns = proto.measure_start_monotonic_ns();
  return start;
}

v1::HistogramLayout HistogramLayoutProto() {
  v1::HistogramLayout layout;
  layout.set_name(kLayoutName);
  layout.set_linear_buckets(128);
  layout.set_sub_buckets(64);
  layout.set_num_buckets(LatencyHistogram::kNumBuckets);
  layout.set_max_trackable_ns(LatencyHistogram::kMaxTrackableNs);
  return layout;
}

void HistogramToProto(const LatencyHistogram& histogram,
                      v1::LatencyHistogram* proto) {
  proto->Clear();
  *proto->mutable_layout() = HistogramLayoutProto();
  for (const auto& [index, count] : histogram.NonEmptyBuckets()) {
    v1::HistogramBucket* bucket = proto->add_buckets();
    bucket->set_index(static_cast<uint32_t>(index));
    bucket->set_count(count);
    bucket->set_lower_bound_ns(LatencyHistogram::BucketLowerBound(index));
    bucket->set_upper_bound_ns(LatencyHistogram::BucketUpperBound(index));
  }
  proto->set_count(histogram.Count());
  proto->set_sum_ns(histogram.Sum());
  proto->set_min_ns(histogram.Min());
  proto->set_max_ns(histogram.Max());
}

absl::StatusOr<LatencyHistogram> HistogramFromProto(
    const v1::LatencyHistogram& proto) {
  if (proto.layout().name() != kLayoutName) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram.layout.name \"", proto.layout().name(),
                     "\" is not the layout of this build (", kLayoutName, ")"));
  }
  std::vector<std::pair<int, uint64_t>> buckets;
  uint64_t total = 0;
  for (int i = 0; i < proto.buckets_size(); ++i) {
    const v1::HistogramBucket& b = proto.buckets(i);
    if (b.index() >= static_cast<uint32_t>(LatencyHistogram::kNumBuckets)) {
      return absl::InvalidArgumentError(
          absl::StrCat("histogram.buckets[", i, "].index ", b.index(),
                       " is not below ", LatencyHistogram::kNumBuckets));
    }
    buckets.emplace_back(static_cast<int>(b.index()), b.count());
    total += b.count();
  }
  if (total != proto.count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram.count ", proto.count(),
                     " is not the sum of the bucket counts ", total));
  }
  std::sort(buckets.begin(), buckets.end());
  return LatencyHistogram::FromBuckets(buckets, proto.sum_ns(), proto.min_ns(),
                                       proto.max_ns());
}

void PercentilesToProto(const LatencyHistogram& h,
                        v1::LatencyPercentiles* proto) {
  proto->set_p50_ns(h.Percentile(50));
  proto->set_p90_ns(h.Percentile(90));
  proto->set_p99_ns(h.Percentile(99));
  proto->set_p99_9_ns(h.Percentile(99.9));
  proto->set_p99_99_ns(h.Percentile(99.99));
  proto->set_max_ns(h.Max());
  proto->set_min_ns(h.Min());
  proto->set_mean_ns(h.Mean());
  proto->set_count(h.Count());
}

void ThreadToProto(const ThreadSnapshot& t, absl::Duration elapsed,
                   bool with_histogram, v1::ThreadStats* proto) {
  proto->Clear();
  proto->set_thread_index(t.thread_index);
  proto->set_cpu(t.cpu);
  proto->set_ios(t.ios);
  proto->set_bytes(t.bytes);
  proto->set_read_ios(t.read_ios);
  proto->set_read_bytes(t.read_bytes);
  proto->set_write_ios(t.write_ios);
  proto->set_write_bytes(t.write_bytes);
  proto->set_sqes(t.sqes);
  proto->set_enter_calls(t.enter_calls);
  proto->set_inflight(t.inflight);
  proto->set_cache_hits(t.cache_hits);
  proto->set_cache_misses(t.cache_misses);
  proto->set_user_cpu_seconds(t.user_cpu_seconds);
  proto->set_system_cpu_seconds(t.system_cpu_seconds);
  proto->set_io_worker_cpu_seconds(t.io_worker_cpu_seconds);
  for (const ErrorCount& e : t.errors) {
    v1::ErrorCount* out = proto->add_errors();
    out->set_errno_value(e.errno_value);
    out->set_name(e.name);
    out->set_count(e.count);
  }
  proto->set_error_total(t.ErrorTotal());
  proto->set_iops(t.Iops(elapsed));
  proto->set_bytes_per_second(t.BytesPerSecond(elapsed));
  proto->set_ios_per_call(t.IosPerCall());
  proto->set_mean_inflight(t.MeanInflight(elapsed));
  PercentilesToProto(t.latency, proto->mutable_latency());
  // Batch turns' two parts under their own names (ThreadSnapshot).
  proto->set_batch_turns(t.batch_turns);
  PercentilesToProto(t.submit_latency,
                     t.batch_turns ? proto->mutable_batch_wait_latency()
                                   : proto->mutable_submit_latency());
  PercentilesToProto(t.completion_latency,
                     t.batch_turns ? proto->mutable_after_wait_latency()
                                   : proto->mutable_completion_latency());
  PercentilesToProto(t.intended_latency, proto->mutable_intended_latency());
  PercentilesToProto(t.issue_lag, proto->mutable_issue_lag());
  proto->set_late_ios(t.late_ios);
  proto->set_trim_ios(t.trim_ios);
  proto->set_trim_bytes(t.trim_bytes);
  proto->set_sync_ios(t.sync_ios);
  if (with_histogram) {
    HistogramToProto(t.latency, proto->mutable_histogram());
    HistogramToProto(t.submit_latency,
                     t.batch_turns ? proto->mutable_batch_wait_histogram()
                                   : proto->mutable_submit_histogram());
    HistogramToProto(t.completion_latency,
                     t.batch_turns ? proto->mutable_after_wait_histogram()
                                   : proto->mutable_completion_histogram());
    HistogramToProto(t.intended_latency, proto->mutable_intended_histogram());
    HistogramToProto(t.issue_lag, proto->mutable_issue_lag_histogram());
  }
}

namespace {

void VerifyToProto(const VerifySummary& v, v1::VerifyResult* proto) {
  proto->set_checked(v.checked);
  proto->set_unwritten(v.unwritten);
  proto->set_mismatches(v.mismatches);
  for (const auto& [kind, count] : v.by_kind) {
    (*proto->mutable_mismatches_by_kind())[kind] = count;
  }
  for (const VerifyMismatchRecord& r : v.records) {
    v1::VerifyMismatch* out = proto->add_first();
    out->set_target(r.target);
    out->set_offset(r.offset);
    out->set_bad_byte_offset(r.bad_byte_offset);
    out->set_kind(r.kind);
    out->set_expected_target_id(r.expected_target_id);
    out->set_expected_length(r.expected_length);
    out->set_expected_seed(r.expected_seed);
    out->set_expected_generation_min(r.expected_generation_lo);
    out->set_expected_generation_max(r.expected_generation_hi);
    out->set_found_magic_ok(r.found_magic_ok);
    out->set_found_target_id(r.found_target_id);
    out->set_found_offset(r.found_offset);
    out->set_found_length(r.found_length);
    out->set_found_seed(r.found_seed);
    out->set_found_generation(r.found_generation);
    out->set_found_crc(r.found_crc);
    out->set_computed_crc(r.computed_crc);
    out->set_dump_path(r.dump_path);
    out->set_message(r.message);
  }
}

VerifySummary VerifyFromProto(const v1::VerifyResult& proto) {
  VerifySummary v;
  v.enabled = true;
  v.checked = proto.checked();
  v.unwritten = proto.unwritten();
  v.mismatches = proto.mismatches();
  for (const auto& [kind, count] : proto.mismatches_by_kind()) {
    v.by_kind.emplace_back(kind, count);
  }
  std::sort(v.by_kind.begin(), v.by_kind.end());
  for (const v1::VerifyMismatch& in : proto.first()) {
    VerifyMismatchRecord r;
    r.target = in.target();
    r.offset = in.offset();
    r.bad_byte_offset = in.bad_byte_offset();
    r.kind = in.kind();
    r.expected_target_id = in.expected_target_id();
    r.expected_length = in.expected_length();
    r.expected_seed = in.expected_seed();
    r.expected_generation_lo = in.expected_generation_min();
    r.expected_generation_hi = in.expected_generation_max();
    r.found_magic_ok = in.found_magic_ok();
    r.found_target_id = in.found_target_id();
    r.found_offset = in.found_offset();
    r.found_length = in.found_length();
    r.found_seed = in.found_seed();
    r.found_generation = in.found_generation();
    r.found_crc = in.found_crc();
    r.computed_crc = in.computed_crc();
    r.dump_path = in.dump_path();
    r.message = in.message();
    v.records.push_back(std::move(r));
  }
  return v;
}

void SloToProto(const SloSummary& slo, v1::SloResult* proto) {
  proto->set_objective(SloTargetName(slo.target));
  proto->set_precision(slo.precision);
  DurationToProto(slo.step, proto->mutable_step());
  DurationToProto(slo.settle, proto->mutable_settle());
  for (const SloStep& st : slo.steps) {
    v1::SloStepResult* out = proto->add_steps();
    out->set_asked_iops(st.asked_iops);
    out->set_iops(st.iops);
    out->set_ios(st.ios);
    out->set_late_ios(st.late_ios);
    out->set_p50_ns(st.p50_ns);
    out->set_p99_ns(st.p99_ns);
    out->set_p99_9_ns(st.p99_9_ns);
    out->set_value_ns(st.value_ns);
    out->set_met(st.met);
    DurationToProto(st.elapsed, out->mutable_elapsed());
    out->set_verdict(SloVerdictName(st.verdict));
    out->set_tail_ios(st.tail_ios);
    out->set_interval_known(st.interval_known);
    out->set_value_low_ns(st.value_low_ns);
    out->set_value_high_ns(st.value_high_ns);
    out->set_value_bounded_above(st.value_bounded_above);
    out->set_retest(st.retest);
  }
  proto->set_done(slo.done);
  proto->set_max_iops(slo.max_iops);
  proto->set_best_iops(slo.best_iops);
  proto->set_best_achieved_iops(slo.best_achieved_iops);
  proto->set_failed_iops(slo.failed_iops);
  proto->set_knee_iops(slo.knee_iops);
  proto->set_note(slo.note);
  proto->set_best_value_low_ns(slo.best_value_low_ns);
  proto->set_best_value_high_ns(slo.best_value_high_ns);
  proto->set_warning(slo.warning);
}

// A step's verdict from its name; "" (a daemon before verdicts) from `met`.
absl::StatusOr<SloVerdict> SloVerdictFromProto(const v1::SloStepResult& step,
                                               size_t index) {
  if (step.verdict().empty()) {
    return step.met() ? SloVerdict::kMet : SloVerdict::kMissed;
  }
  for (SloVerdict v :
       {SloVerdict::kMet, SloVerdict::kMissed, SloVerdict::kUndecided}) {
    if (step.verdict() == SloVerdictName(v)) return v;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "snapshot.slo.steps[", index,
      "].verdict is not \"met\", \"missed\" or \"undecided\""));
}

absl::StatusOr<SloSummary> SloFromProto(const v1::SloResult& proto) {
  SloSummary slo;
  slo.enabled = true;
  absl::StatusOr<SloTarget> target =
      ParseSloTarget(proto.objective(), "snapshot.slo.objective");
  if (!target.ok()) return target.status();
  slo.target = *target;
  slo.precision = proto.precision();
  slo.step = DurationFromProto(proto.step());
  slo.settle = DurationFromProto(proto.settle());
  for (const v1::SloStepResult& in : proto.steps()) {
    absl::StatusOr<SloVerdict> verdict =
        SloVerdictFromProto(in, slo.steps.size());
    if (!verdict.ok()) return verdict.status();
    slo.steps.push_back({.asked_iops = in.asked_iops(),
                         .iops = in.iops(),
                         .ios = in.ios(),
                         .late_ios = in.late_ios(),
                         .p50_ns = in.p50_ns(),
                         .p99_ns = in.p99_ns(),
                         .p99_9_ns = in.p99_9_ns(),
                         .value_ns = in.value_ns(),
                         .met = in.met(),
                         .elapsed = DurationFromProto(in.elapsed()),
                         .interval_known = in.interval_known(),
                         .tail_ios = in.tail_ios(),
                         .value_low_ns = in.value_low_ns(),
                         .value_high_ns = in.value_high_ns(),
                         .value_bounded_above = in.value_bounded_above(),
                         .verdict = *verdict,
                         .retest = in.retest()});
  }
  slo.done = proto.done();
  slo.max_iops = proto.max_iops();
  slo.best_iops = proto.best_iops();
  slo.best_achieved_iops = proto.best_achieved_iops();
  slo.failed_iops = proto.failed_iops();
  slo.knee_iops = proto.knee_iops();
  slo.note = proto.note();
  slo.best_value_low_ns = proto.best_value_low_ns();
  slo.best_value_high_ns = proto.best_value_high_ns();
  slo.warning = proto.warning();
  return slo;
}

void RingToProto(const RingSetup& r, v1::RingSetup* ring) {
  for (const std::string& flag : r.setup_flags) ring->add_setup_flags(flag);
  ring->set_registered_ring_fd(r.registered_ring_fd);
  ring->set_fixed_buffers(r.fixed_buffers);
  ring->set_registered_files(r.registered_files);
  ring->set_polled(r.polled);
  ring->set_sqpoll(r.sqpoll);
  ring->set_huge_pages(r.huge_pages);
  ring->set_sq_entries(r.sq_entries);
  ring->set_cq_entries(r.cq_entries);
  ring->set_pieces_per_io(r.pieces_per_io);
  ring->set_buffer_layout(r.buffer_layout);
  ring->set_io_mode(r.io_mode);
  ring->set_wait_bound(r.wait_bound);
  ring->set_clock(r.clock);
}

void PhaseToProto(const PhaseSnapshot& phase, bool with_histogram,
                  v1::Phase* out) {
  out->set_index(static_cast<uint32_t>(phase.index));
  out->set_strategy(phase.strategy);
  DurationToProto(phase.start, out->mutable_start());
  DurationToProto(phase.end, out->mutable_end());
  DurationToProto(phase.elapsed, out->mutable_elapsed());
  ThreadToProto(phase.total, phase.elapsed, with_histogram,
                out->mutable_total());
  out->set_pieces_per_io(phase.PiecesPerIo());
  DeviceCountersToProto(phase.device, out->mutable_device());
}

void AbToProto(const AbStrategyResult& r, v1::AbResult* out) {
  out->set_strategy(r.strategy);
  out->set_slices(static_cast<uint32_t>(r.slices));
  out->set_median_iops(r.median_iops);
  out->set_median_bytes_per_second(r.median_bytes_per_second);
  out->set_ratio_to_first(r.ratio_to_first);
  out->set_note(r.note);
  out->set_paired_ratio(r.paired_ratio);
  out->set_paired_ratio_ci_low(r.paired_ratio_ci_low);
  out->set_paired_ratio_ci_high(r.paired_ratio_ci_high);
  out->set_pairs(static_cast<uint32_t>(r.pairs));
  out->set_verdict(r.verdict);
}

// The errors: the first (or fatal) one and where each errno happened.
void ErrorsToProto(const WorkloadSnapshot& s, v1::Snapshot* proto) {
  if (s.has_error) {
    v1::FirstError* error = proto->mutable_error();
    error->set_errno_value(s.error.errno_value);
    error->set_target(s.error.target);
    error->set_offset(s.error.offset);
    error->set_message(s.error.message);
  }
  for (const ErrorSite& site : s.error_sites) {
    v1::ErrorSite* out = proto->add_error_sites();
    out->set_errno_value(site.errno_value);
    out->set_target(site.target);
    out->set_offset(site.offset);
  }
}

void GroupToProto(const GroupSnapshot& g, absl::Duration elapsed,
                  v1::GroupResult* out) {
  out->set_name(g.name);
  for (int t : g.threads) out->add_threads(static_cast<uint32_t>(t));
  ThreadToProto(g.total, elapsed, /*with_histogram=*/true,
                out->mutable_total());
  out->mutable_total()->set_thread_index(-1);
  out->mutable_total()->set_cpu(-1);
}

}  // namespace

void SnapshotToProto(const WorkloadSnapshot& s,
                     const SnapshotProtoOptions& options, v1::Snapshot* proto) {
  proto->Clear();
  TimeToProto(s.taken, proto->mutable_taken());
  DurationToProto(s.elapsed, proto->mutable_elapsed());
  ThreadToProto(s.total, s.elapsed, /*with_histogram=*/true,
                proto->mutable_total());
  proto->mutable_total()->set_thread_index(-1);
  proto->mutable_total()->set_cpu(-1);
  for (const ThreadSnapshot& t : s.threads) {
    ThreadToProto(t, s.elapsed, options.thread_histograms,
                  proto->add_threads());
  }
  RingToProto(s.ring, proto->mutable_ring());
  for (const std::string& note : s.notes) proto->add_notes(note);
  ErrorsToProto(s, proto);
  proto->set_split_strategy(s.split_strategy);
  DeviceCountersToProto(s.device, proto->mutable_device());
  if (s.buffer_placement.read || !s.buffer_placement.unreadable.empty()) {
    v1::BufferPlacement* placement = proto->mutable_buffer_placement();
    placement->set_read(s.buffer_placement.read);
    placement->set_unreadable(s.buffer_placement.unreadable);
    placement->set_pages_present(s.buffer_placement.pages_present);
    placement->set_adjacent_share(s.buffer_placement.adjacent_share);
  }
  for (const PhaseSnapshot& phase : s.phases) {
    PhaseToProto(phase, options.phase_histograms, proto->add_phases());
  }
  for (const AbStrategyResult& r : s.ab) AbToProto(r, proto->add_ab());
  if (s.verify.enabled) VerifyToProto(s.verify, proto->mutable_verify());
  for (const GroupSnapshot& g : s.groups) {
    GroupToProto(g, s.elapsed, proto->add_groups());
  }
  if (s.slo.enabled) SloToProto(s.slo, proto->mutable_slo());
  EnvironmentToProto(s.environment, proto->mutable_environment());
  SeriesToProto(s.series, proto->mutable_series(), options.series_histograms);
  if (std::isfinite(s.other_cpu_share)) {
    proto->set_other_cpu_share(s.other_cpu_share);
  }
  SteadyStateResultToProto(s.steady_state, proto->mutable_steady_state());
  if (s.precondition.passes != 0) {
    PreconditionToProto(s.precondition, proto->mutable_precondition());
  }
}

void PreconditionToProto(const PreconditionSummary& p,
                         v1::PreconditionResult* proto) {
  proto->set_passes(p.passes);
  proto->set_passes_done(p.passes_done);
  proto->set_bytes_written(p.bytes_written);
  proto->set_bytes_planned(p.bytes_planned);
  DurationToProto(p.time, proto->mutable_time());
  proto->set_complete(p.complete);
  for (const std::string& note : p.notes) proto->add_notes(note);
}

PreconditionSummary PreconditionFromProto(const v1::PreconditionResult& proto) {
  PreconditionSummary p;
  p.passes = proto.passes();
  p.passes_done = proto.passes_done();
  p.bytes_written = proto.bytes_written();
  p.bytes_planned = proto.bytes_planned();
  p.time = DurationFromProto(proto.time());
  p.complete = proto.complete();
  p.notes.assign(proto.notes().begin(), proto.notes().end());
  return p;
}

void DeviceCountersToProto(const DeviceCounters& device,
                           v1::DeviceCounters* proto) {
  proto->set_available(device.available);
  proto->set_requests(device.requests);
  proto->set_merges(device.merges);
  proto->set_sectors(device.sectors);
  proto->set_requests_per_sqe(device.requests_per_sqe);
}

DeviceCounters DeviceCountersFromProto(const v1::DeviceCounters& proto) {
  DeviceCounters device;
  device.available = proto.available();
  device.requests = proto.requests();
  device.merges = proto.merges();
  device.sectors = proto.sectors();
  device.requests_per_sqe = proto.requests_per_sqe();
  return device;
}

absl::StatusOr<ThreadSnapshot> ThreadFromProto(const v1::ThreadStats& proto,
                                               absl::string_view field) {
  ThreadSnapshot t;
  t.thread_index = proto.thread_index();
  t.cpu = proto.cpu();
  t.ios = proto.ios();
  t.bytes = proto.bytes();
  t.read_ios = proto.read_ios();
  t.read_bytes = proto.read_bytes();
  t.write_ios = proto.write_ios();
  t.write_bytes = proto.write_bytes();
  t.sqes = proto.sqes();
  t.enter_calls = proto.enter_calls();
  t.inflight = proto.inflight();
  t.cache_hits = proto.cache_hits();
  t.cache_misses = proto.cache_misses();
  t.user_cpu_seconds = proto.user_cpu_seconds();
  t.system_cpu_seconds = proto.system_cpu_seconds();
  t.io_worker_cpu_seconds = proto.io_worker_cpu_seconds();
  t.late_ios = proto.late_ios();
  t.trim_ios = proto.trim_ios();
  t.trim_bytes = proto.trim_bytes();
  t.sync_ios = proto.sync_ios();
  t.batch_turns = proto.batch_turns();
  for (const v1::ErrorCount& e : proto.errors()) {
    t.errors.push_back(
        {.errno_value = e.errno_value(), .name = e.name(), .count = e.count()});
  }
  const struct {
    bool present;
    const v1::LatencyHistogram& proto;
    LatencyHistogram* out;
  } histograms[] = {
      {proto.has_histogram(), proto.histogram(), &t.latency},
      {proto.has_submit_histogram(), proto.submit_histogram(),
       &t.submit_latency},
      {proto.has_completion_histogram(), proto.completion_histogram(),
       &t.completion_latency},
      {proto.has_batch_wait_histogram(), proto.batch_wait_histogram(),
       &t.submit_latency},
      {proto.has_after_wait_histogram(), proto.after_wait_histogram(),
       &t.completion_latency},
      {proto.has_intended_histogram(), proto.intended_histogram(),
       &t.intended_latency},
      {proto.has_issue_lag_histogram(), proto.issue_lag_histogram(),
       &t.issue_lag},
  };
  for (const auto& h : histograms) {
    if (!h.present) continue;
    absl::StatusOr<LatencyHistogram> parsed = HistogramFromProto(h.proto);
    if (!parsed.ok()) {
      return absl::Status(parsed.status().code(),
                          absl::StrCat(field, ".", parsed.status().message()));
    }
    *h.out = *std::move(parsed);
  }
  return t;
}

namespace {

RingSetup RingFromProto(const v1::RingSetup& ring) {
  RingSetup r;
  r.setup_flags.assign(ring.setup_flags().begin(), ring.setup_flags().end());
  r.registered_ring_fd = ring.registered_ring_fd();
  r.fixed_buffers = ring.fixed_buffers();
  r.registered_files = ring.registered_files();
  r.polled = ring.polled();
  r.sqpoll = ring.sqpoll();
  r.huge_pages = ring.huge_pages();
  r.sq_entries = ring.sq_entries();
  r.cq_entries = ring.cq_entries();
  r.pieces_per_io = ring.pieces_per_io();
  r.buffer_layout = ring.buffer_layout();
  r.io_mode = ring.io_mode();
  r.wait_bound = ring.wait_bound();
  r.clock = ring.clock();
  return r;
}

// The errors: the first (or fatal) one and where each errno happened.
void ErrorsFromProto(const v1::Snapshot& proto, WorkloadSnapshot* s) {
  s->has_error = proto.has_error();
  if (s->has_error) {
    s->error.errno_value = proto.error().errno_value();
    s->error.target = proto.error().target();
    s->error.offset = proto.error().offset();
    s->error.message = proto.error().message();
  }
  for (const v1::ErrorSite& in : proto.error_sites()) {
    s->error_sites.push_back({.errno_value = in.errno_value(),
                              .target = in.target(),
                              .offset = in.offset()});
  }
}

absl::StatusOr<BufferPlacement> PlacementFromProto(
    const v1::BufferPlacement& placement) {
  // A share outside 0-1 (or NaN) would print as a figure it is not.
  if (!(placement.adjacent_share() >= 0 && placement.adjacent_share() <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "snapshot.buffer_placement.adjacent_share: ",
        placement.adjacent_share(), " is not a share between 0 and 1"));
  }
  return BufferPlacement{.read = placement.read(),
                         .unreadable = placement.unreadable(),
                         .pages_present = placement.pages_present(),
                         .adjacent_share = placement.adjacent_share()};
}

absl::StatusOr<PhaseSnapshot> PhaseFromProto(const v1::Phase& in, int i) {
  PhaseSnapshot phase;
  phase.index = static_cast<int>(in.index());
  phase.strategy = in.strategy();
  phase.start = DurationFromProto(in.start());
  phase.end = DurationFromProto(in.end());
  phase.elapsed = DurationFromProto(in.elapsed());
  BLKPERF_ASSIGN_OR_RETURN(
      phase.total,
      ThreadFromProto(in.total(), absl::StrCat("snapshot.phases[", i, "].total")));
  phase.device = DeviceCountersFromProto(in.device());
  return phase;
}

AbStrategyResult AbFromProto(const v1::AbResult& in) {
  return {.strategy = in.strategy(),
          .slices = static_cast<int>(in.slices()),
          .median_iops = in.median_iops(),
          .median_bytes_per_second = in.median_bytes_per_second(),
          .ratio_to_first = in.ratio_to_first(),
          .note = in.note(),
          .paired_ratio = in.paired_ratio(),
          .paired_ratio_ci_low = in.paired_ratio_ci_low(),
          .paired_ratio_ci_high = in.paired_ratio_ci_high(),
          .pairs = static_cast<int>(in.pairs()),
          .verdict = in.verdict()};
}

absl::StatusOr<GroupSnapshot> GroupFromProto(const v1::GroupResult& in, int i) {
  GroupSnapshot g;
  g.name = in.name();
  for (uint32_t t : in.threads()) g.threads.push_back(static_cast<int>(t));
  BLKPERF_ASSIGN_OR_RETURN(
      g.total,
      ThreadFromProto(in.total(), absl::StrCat("snapshot.groups[", i, "].total")));
  return g;
}

// The parts made of thread counters: total, threads, phases and groups.
absl::Status CountersFromProto(const v1::Snapshot& proto, WorkloadSnapshot* s) {
  BLKPERF_ASSIGN_OR_RETURN(s->total,
                           ThreadFromProto(proto.total(), "snapshot.total"));
  for (int i = 0; i < proto.threads_size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(
        ThreadSnapshot thread,
        ThreadFromProto(proto.threads(i),
                        absl::StrCat("snapshot.threads[", i, "]")));
    s->threads.push_back(std::move(thread));
  }
  for (int i = 0; i < proto.phases_size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(PhaseSnapshot phase,
                             PhaseFromProto(proto.phases(i), i));
    s->phases.push_back(std::move(phase));
  }
  for (int i = 0; i < proto.groups_size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(GroupSnapshot g, GroupFromProto(proto.groups(i), i));
    s->groups.push_back(std::move(g));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<WorkloadSnapshot> SnapshotFromProto(const v1::Snapshot& proto) {
  WorkloadSnapshot s;
  s.taken = TimeFromProto(proto.taken());
  s.elapsed = DurationFromProto(proto.elapsed());
  BLKPERF_RETURN_IF_ERROR(CountersFromProto(proto, &s));
  s.ring = RingFromProto(proto.ring());
  s.notes.assign(proto.notes().begin(), proto.notes().end());
  ErrorsFromProto(proto, &s);
  s.split_strategy = proto.split_strategy();
  s.device = DeviceCountersFromProto(proto.device());
  BLKPERF_ASSIGN_OR_RETURN(s.buffer_placement,
                           PlacementFromProto(proto.buffer_placement()));
  for (const v1::AbResult& in : proto.ab()) s.ab.push_back(AbFromProto(in));
  if (proto.has_verify()) s.verify = VerifyFromProto(proto.verify());
  if (proto.has_slo()) {
    absl::StatusOr<SloSummary> slo = SloFromProto(proto.slo());
    if (!slo.ok()) return slo.status();
    s.slo = *std::move(slo);
  }
  s.environment = EnvironmentFromProto(proto.environment());
  s.series = SeriesFromProto(proto.series());
  if (proto.has_other_cpu_share()) s.other_cpu_share = proto.other_cpu_share();
  s.steady_state = SteadyStateResultFromProto(proto.steady_state());
  if (proto.has_precondition()) {
    s.precondition = PreconditionFromProto(proto.precondition());
  }
  return s;
}

ThreadSnapshot IntervalDelta(const ThreadSnapshot& now,
                             const ThreadSnapshot& before) {
  ThreadSnapshot d = now;
  d.ios = Minus(now.ios, before.ios);
  d.bytes = Minus(now.bytes, before.bytes);
  d.read_ios = Minus(now.read_ios, before.read_ios);
  d.read_bytes = Minus(now.read_bytes, before.read_bytes);
  d.write_ios = Minus(now.write_ios, before.write_ios);
  d.write_bytes = Minus(now.write_bytes, before.write_bytes);
  d.sqes = Minus(now.sqes, before.sqes);
  d.enter_calls = Minus(now.enter_calls, before.enter_calls);
  d.cache_hits = Minus(now.cache_hits, before.cache_hits);
  d.cache_misses = Minus(now.cache_misses, before.cache_misses);
  d.late_ios = Minus(now.late_ios, before.late_ios);
  d.trim_ios = Minus(now.trim_ios, before.trim_ios);
  d.trim_bytes = Minus(now.trim_bytes, before.trim_bytes);
  d.sync_ios = Minus(now.sync_ios, before.sync_ios);
  d.user_cpu_seconds =
      std::max(0.0, now.user_cpu_seconds - before.user_cpu_seconds);
  d.system_cpu_seconds =
      std::max(0.0, now.system_cpu_seconds - before.system_cpu_seconds);
  d.io_worker_cpu_seconds =
      std::max(0.0, now.io_worker_cpu_seconds - before.io_worker_cpu_seconds);
  d.errors.clear();
  for (const ErrorCount& e : now.errors) {
    uint64_t earlier = 0;
    for (const ErrorCount& b : before.errors) {
      if (b.errno_value == e.errno_value) earlier = b.count;
    }
    if (e.count > earlier) {
      ErrorCount delta = e;
      delta.count = e.count - earlier;
      d.errors.push_back(std::move(delta));
    }
  }
  d.latency.Subtract(before.latency);
  d.submit_latency.Subtract(before.submit_latency);
  d.completion_latency.Subtract(before.completion_latency);
  d.intended_latency.Subtract(before.intended_latency);
  d.issue_lag.Subtract(before.issue_lag);
  return d;
}

void TargetInfoToProto(const TargetInfo& info, v1::TargetInfo* proto) {
  proto->set_path(info.path);
  proto->set_resolved_path(info.resolved_path);
  proto->set_path_is_symlink(info.path_is_symlink);
  proto->set_kind(info.kind == TargetKind::kBlockDevice ? v1::TARGET_KIND_BLOCK_DEVICE
                  : info.kind == TargetKind::kNop       ? v1::TARGET_KIND_NOP
                                                        : v1::TARGET_KIND_REGULAR_FILE);
  proto->set_size_bytes(info.size_bytes);
  proto->set_logical_block_size(info.logical_block_size);
  proto->set_physical_block_size(info.physical_block_size);
  proto->set_device_name(info.device_name);
  proto->set_partition_name(info.partition_name);
  const QueueLimits& q = info.limits;
  v1::QueueLimits* limits = proto->mutable_limits();
  limits->set_logical_block_size(q.logical_block_size);
  limits->set_physical_block_size(q.physical_block_size);
  limits->set_max_sectors_kb(q.max_sectors_kb);
  limits->set_max_hw_sectors_kb(q.max_hw_sectors_kb);
  limits->set_max_segments(q.max_segments);
  limits->set_max_segment_size(q.max_segment_size);
  limits->set_chunk_sectors(q.chunk_sectors);
  limits->set_optimal_io_size(q.optimal_io_size);
  limits->set_nr_requests(q.nr_requests);
  limits->set_virt_boundary_mask(q.virt_boundary_mask);
  limits->set_discard_max_bytes(q.discard_max_bytes);
  limits->set_io_poll(q.io_poll);
  limits->set_rotational(q.rotational);
  limits->set_scheduler(q.scheduler);
  limits->set_nomerges(q.nomerges);
  limits->set_rq_affinity(q.rq_affinity);
  limits->set_write_cache(q.write_cache);
  limits->set_poll_queues(q.poll_queues);
  proto->set_mounted(info.mounted);
  proto->set_has_holders(info.has_holders);
  proto->set_is_swap(info.is_swap);
  proto->set_backs_loop(info.backs_loop);
  proto->set_can_poll(info.kind == TargetKind::kBlockDevice && q.io_poll);
  proto->set_in_use(info.mounted || info.has_holders || info.is_swap ||
                    !info.backs_loop.empty());
}

TargetInfo TargetInfoFromProto(const v1::TargetInfo& proto) {
  TargetInfo info;
  info.path = proto.path();
  info.resolved_path = proto.resolved_path();
  info.path_is_symlink = proto.path_is_symlink();
  info.kind = proto.kind() == v1::TARGET_KIND_BLOCK_DEVICE ? TargetKind::kBlockDevice
              : proto.kind() == v1::TARGET_KIND_NOP        ? TargetKind::kNop
                                                           : TargetKind::kRegularFile;
  info.size_bytes = proto.size_bytes();
  info.logical_block_size = proto.logical_block_size();
  info.physical_block_size = proto.physical_block_size();
  info.device_name = proto.device_name();
  info.partition_name = proto.partition_name();
  if (!info.device_name.empty()) {
    info.stat_path = absl::StrCat("/sys/block/", info.device_name, "/stat");
  }
  const v1::QueueLimits& q = proto.limits();
  QueueLimits& limits = info.limits;
  limits.logical_block_size = q.logical_block_size();
  limits.physical_block_size = q.physical_block_size();
  limits.max_sectors_kb = q.max_sectors_kb();
  limits.max_hw_sectors_kb = q.max_hw_sectors_kb();
  limits.max_segments = q.max_segments();
  limits.max_segment_size = q.max_segment_size();
  limits.chunk_sectors = q.chunk_sectors();
  limits.optimal_io_size = q.optimal_io_size();
  limits.nr_requests = q.nr_requests();
  limits.virt_boundary_mask = q.virt_boundary_mask();
  limits.discard_max_bytes = q.discard_max_bytes();
  limits.io_poll = q.io_poll();
  limits.rotational = q.rotational();
  limits.scheduler = q.scheduler();
  limits.nomerges = q.nomerges();
  limits.rq_affinity = q.rq_affinity();
  limits.write_cache = q.write_cache();
  limits.poll_queues = q.poll_queues();
  info.mounted = proto.mounted();
  info.has_holders = proto.has_holders();
  info.is_swap = proto.is_swap();
  info.backs_loop = proto.backs_loop();
  return info;
}

}  // namespace blkperf
