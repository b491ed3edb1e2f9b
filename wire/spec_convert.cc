#include "wire/spec_convert.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "google/protobuf/duration.pb.h"
#include "model/split_strategy.h"
#include "wire/steady_state_convert.h"

namespace blkperf {
namespace {

absl::Status Invalid(absl::string_view field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", reason));
}

// google.protobuf.Duration's own rules: seconds within +-10000 years, nanos
// within +-999,999,999 and of the same sign as seconds; then not negative.
absl::StatusOr<absl::Duration> DurationFromProto(
    const google::protobuf::Duration& d, absl::string_view field) {
  constexpr int64_t kMaxSeconds = 315576000000;
  if (d.seconds() > kMaxSeconds || d.seconds() < -kMaxSeconds ||
      d.nanos() > 999999999 || d.nanos() < -999999999 ||
      (d.seconds() > 0 && d.nanos() < 0) ||
      (d.seconds() < 0 && d.nanos() > 0)) {
    return Invalid(field, absl::StrCat("{seconds: ", d.seconds(), ", nanos: ",
                                       d.nanos(), "} is not a valid duration"));
  }
  const absl::Duration value =
      absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
  if (value < absl::ZeroDuration()) {
    return Invalid(field, absl::StrCat(absl::FormatDuration(value),
                                       " must not be negative"));
  }
  return value;
}

void DurationToProto(absl::Duration value, google::protobuf::Duration* d) {
  const int64_t nanos = absl::ToInt64Nanoseconds(value);
  d->set_seconds(nanos / 1000000000);
  d->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

absl::StatusOr<Op> OpFromProto(v1::Op op, absl::string_view field) {
  switch (op) {
    case v1::OP_UNSPECIFIED:
    case v1::OP_RANDREAD:
      return Op::kRandRead;
    case v1::OP_READ:
      return Op::kRead;
    case v1::OP_WRITE:
      return Op::kWrite;
    case v1::OP_RANDWRITE:
      return Op::kRandWrite;
    case v1::OP_RANDRW:
      return Op::kRandRW;
    case v1::OP_TRIM:
      return Op::kTrim;
    case v1::OP_RANDTRIM:
      return Op::kRandTrim;
    default:
      return Invalid(field,
                     absl::StrCat(static_cast<int>(op),
                                  " is not a known Op (OP_READ, OP_WRITE, "
                                  "OP_RANDREAD, OP_RANDWRITE, OP_RANDRW, "
                                  "OP_TRIM, OP_RANDTRIM)"));
  }
}

absl::StatusOr<Arrivals> ArrivalsFromProto(v1::Arrivals arrivals,
                                           absl::string_view field) {
  switch (arrivals) {
    case v1::ARRIVALS_UNSPECIFIED:
    case v1::ARRIVALS_UNIFORM:
      return Arrivals::kUniform;
    case v1::ARRIVALS_POISSON:
      return Arrivals::kPoisson;
    default:
      return Invalid(field, absl::StrCat(static_cast<int>(arrivals),
                                         " is not a known Arrivals "
                                         "(ARRIVALS_UNIFORM, "
                                         "ARRIVALS_POISSON)"));
  }
}

absl::StatusOr<std::vector<BlockSizeShare>> SharesFromProto(
    const google::protobuf::RepeatedPtrField<v1::BlockSizeShare>& shares,
    absl::string_view field) {
  if (static_cast<size_t>(shares.size()) > kMaxBlockSizeShares) {
    return Invalid(field,
                   absl::StrCat("has ", shares.size(), " entries, more than ",
                                kMaxBlockSizeShares));
  }
  std::vector<BlockSizeShare> out;
  for (int j = 0; j < shares.size(); ++j) {
    const v1::BlockSizeShare& in = shares[j];
    const std::string entry = absl::StrCat(field, "[", j, "]");
    if (in.block_size() == 0) return Invalid(entry, "block_size must be > 0");
    if (in.percent() == 0 || in.percent() > 100) {
      return Invalid(
          entry, absl::StrCat("percent ", in.percent(), " is not in 1..100"));
    }
    out.push_back({.block_size = in.block_size(), .percent = in.percent()});
  }
  return out;
}

void SharesToProto(
    const std::vector<BlockSizeShare>& shares,
    google::protobuf::RepeatedPtrField<v1::BlockSizeShare>* out) {
  for (const BlockSizeShare& s : shares) {
    v1::BlockSizeShare* share = out->Add();
    share->set_block_size(s.block_size);
    share->set_percent(s.percent);
  }
}

absl::Status CheckRandomPercent(uint32_t value, absl::string_view field) {
  if (value > 100) {
    return Invalid(field, absl::StrCat(value, " is not in 0..100"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PollMode> PollModeFromProto(v1::PollMode mode) {
  switch (mode) {
    case v1::POLL_MODE_UNSPECIFIED:
    case v1::POLL_MODE_OFF:
      return PollMode::kOff;
    case v1::POLL_MODE_ON:
      return PollMode::kOn;
    case v1::POLL_MODE_AUTO:
      return PollMode::kAuto;
    default:
      return Invalid("spec.polled",
                     absl::StrCat(static_cast<int>(mode),
                                  " is not a known PollMode (POLL_MODE_OFF, "
                                  "POLL_MODE_ON, POLL_MODE_AUTO)"));
  }
}

absl::StatusOr<RequestCacheMode> RequestCacheModeFromProto(
    v1::RequestCacheMode mode) {
  switch (mode) {
    case v1::REQUEST_CACHE_MODE_UNSPECIFIED:
    case v1::REQUEST_CACHE_MODE_PER_CPU:
      return RequestCacheMode::kPerCpu;
    case v1::REQUEST_CACHE_MODE_SHARED:
      return RequestCacheMode::kShared;
    default:
      return Invalid("spec.request_cache",
                     absl::StrCat(static_cast<int>(mode),
                                  " is not a known RequestCacheMode "
                                  "(REQUEST_CACHE_MODE_PER_CPU, "
                                  "REQUEST_CACHE_MODE_SHARED)"));
  }
}

absl::StatusOr<LatencyMode> LatencyModeFromProto(v1::LatencyMode mode) {
  switch (mode) {
    case v1::LATENCY_MODE_UNSPECIFIED:
    case v1::LATENCY_MODE_BATCH:
      return LatencyMode::kBatch;
    case v1::LATENCY_MODE_PER_IO:
      return LatencyMode::kPerIo;
    default:
      return Invalid("spec.latency_mode",
                     absl::StrCat(static_cast<int>(mode),
                                  " is not a LatencyMode (LATENCY_MODE_BATCH, "
                                  "LATENCY_MODE_PER_IO)"));
  }
}

absl::StatusOr<BufferLayout> BufferLayoutFromProto(v1::BufferLayout layout) {
  switch (layout) {
    case v1::BUFFER_LAYOUT_UNSPECIFIED:
    case v1::BUFFER_LAYOUT_AUTO:
      return BufferLayout::kAuto;
    case v1::BUFFER_LAYOUT_PER_SLOT:
      return BufferLayout::kPerSlot;
    case v1::BUFFER_LAYOUT_ONE_REGION:
      return BufferLayout::kOneRegion;
    default:
      return Invalid("spec.buffer_layout",
                     absl::StrCat(static_cast<int>(layout),
                                  " is not a known BufferLayout "
                                  "(BUFFER_LAYOUT_PER_SLOT, "
                                  "BUFFER_LAYOUT_ONE_REGION, "
                                  "BUFFER_LAYOUT_AUTO)"));
  }
}

absl::StatusOr<HugePageMode> HugePageModeFromProto(v1::HugePageMode mode) {
  switch (mode) {
    case v1::HUGE_PAGE_MODE_UNSPECIFIED:
    case v1::HUGE_PAGE_MODE_AUTO:
      return HugePageMode::kAuto;
    case v1::HUGE_PAGE_MODE_OFF:
      return HugePageMode::kOff;
    case v1::HUGE_PAGE_MODE_ON:
      return HugePageMode::kOn;
    default:
      return Invalid("spec.huge_pages",
                     absl::StrCat(static_cast<int>(mode),
                                  " is not a known HugePageMode "
                                  "(HUGE_PAGE_MODE_OFF, HUGE_PAGE_MODE_ON, "
                                  "HUGE_PAGE_MODE_AUTO)"));
  }
}

}  // namespace

v1::LatencyMode LatencyModeToProto(LatencyMode mode) {
  return mode == LatencyMode::kPerIo ? v1::LATENCY_MODE_PER_IO
                                     : v1::LATENCY_MODE_BATCH;
}

v1::BufferLayout BufferLayoutToProto(BufferLayout layout) {
  switch (layout) {
    case BufferLayout::kPerSlot:
      return v1::BUFFER_LAYOUT_PER_SLOT;
    case BufferLayout::kOneRegion:
      return v1::BUFFER_LAYOUT_ONE_REGION;
    case BufferLayout::kAuto:
      return v1::BUFFER_LAYOUT_AUTO;
  }
  return v1::BUFFER_LAYOUT_UNSPECIFIED;
}

v1::HugePageMode HugePageModeToProto(HugePageMode mode) {
  switch (mode) {
    case HugePageMode::kOff:
      return v1::HUGE_PAGE_MODE_OFF;
    case HugePageMode::kOn:
      return v1::HUGE_PAGE_MODE_ON;
    case HugePageMode::kAuto:
      return v1::HUGE_PAGE_MODE_AUTO;
  }
  return v1::HUGE_PAGE_MODE_UNSPECIFIED;
}

v1::Op OpToProto(Op op) {
  switch (op) {
    case Op::kRead:
      return v1::OP_READ;
    case Op::kWrite:
      return v1::OP_WRITE;
    case Op::kRandRead:
      return v1::OP_RANDREAD;
    case Op::kRandWrite:
      return v1::OP_RANDWRITE;
    case Op::kRandRW:
      return v1::OP_RANDRW;
    case Op::kTrim:
      return v1::OP_TRIM;
    case Op::kRandTrim:
      return v1::OP_RANDTRIM;
  }
  return v1::OP_UNSPECIFIED;
}

v1::Arrivals ArrivalsToProto(Arrivals arrivals) {
  return arrivals == Arrivals::kPoisson ? v1::ARRIVALS_POISSON
                                        : v1::ARRIVALS_UNIFORM;
}

v1::PollMode PollModeToProto(PollMode mode) {
  switch (mode) {
    case PollMode::kOff:
      return v1::POLL_MODE_OFF;
    case PollMode::kOn:
      return v1::POLL_MODE_ON;
    case PollMode::kAuto:
      return v1::POLL_MODE_AUTO;
  }
  return v1::POLL_MODE_UNSPECIFIED;
}

v1::RequestCacheMode RequestCacheModeToProto(RequestCacheMode mode) {
  switch (mode) {
    case RequestCacheMode::kPerCpu:
      return v1::REQUEST_CACHE_MODE_PER_CPU;
    case RequestCacheMode::kShared:
      return v1::REQUEST_CACHE_MODE_SHARED;
  }
  return v1::REQUEST_CACHE_MODE_UNSPECIFIED;
}

namespace {

absl::StatusOr<JobGroupSpec> GroupFromProto(const v1::JobGroup& in,
                                            const std::string& p) {
  JobGroupSpec g;
  g.name = in.name();
  for (int c = 0; c < in.cpus_size(); ++c) {
    if (in.cpus(c) < 0) {
      return Invalid(absl::StrCat(p, "cpus[", c, "]"),
                     absl::StrCat(in.cpus(c), " is not a CPU number"));
    }
    g.cpus.push_back(in.cpus(c));
  }
  if (in.op() != v1::OP_UNSPECIFIED) {
    BLKPERF_ASSIGN_OR_RETURN(g.op, OpFromProto(in.op(), p + "op"));
  }
  if (in.has_read_percent()) {
    if (in.read_percent() > 100) {
      return Invalid(p + "read_percent",
                     absl::StrCat(in.read_percent(), " is not in 0..100"));
    }
    g.read_percent = in.read_percent();
  }
  if (in.has_block_size()) {
    if (in.block_size() == 0) return Invalid(p + "block_size", "must be > 0");
    g.block_size = in.block_size();
  }
  if (in.has_alignment()) g.alignment = in.alignment();
  if (in.has_queue_depth()) {
    if (in.queue_depth() == 0) return Invalid(p + "queue_depth", "must be > 0");
    g.queue_depth = in.queue_depth();
  }
  if (!in.distribution().empty()) {
    BLKPERF_ASSIGN_OR_RETURN(
        g.distribution,
        ParseOffsetDistribution(in.distribution(), p + "distribution"));
  }
  if (in.has_random_percent()) {
    BLKPERF_RETURN_IF_ERROR(
        CheckRandomPercent(in.random_percent(), p + "random_percent"));
    g.random_percent = in.random_percent();
  }
  if (in.has_read_bssplit()) {
    BLKPERF_ASSIGN_OR_RETURN(
        g.read_bssplit,
        SharesFromProto(in.read_bssplit().shares(), p + "read_bssplit"));
  }
  if (in.has_write_bssplit()) {
    BLKPERF_ASSIGN_OR_RETURN(
        g.write_bssplit,
        SharesFromProto(in.write_bssplit().shares(), p + "write_bssplit"));
  }
  if (in.has_rate_iops()) g.rate_iops = in.rate_iops();
  if (in.has_rate_bw()) g.rate_bw = in.rate_bw();
  if (in.arrivals() != v1::ARRIVALS_UNSPECIFIED) {
    BLKPERF_ASSIGN_OR_RETURN(g.arrivals,
                             ArrivalsFromProto(in.arrivals(), p + "arrivals"));
  }
  if (in.has_fsync_every()) g.fsync_every = in.fsync_every();
  if (in.has_fdatasync_every()) g.fdatasync_every = in.fdatasync_every();
  return g;
}

absl::Status SloFromProto(const v1::SloSpec& in, SloSpec* slo) {
  if (in.objective().empty()) {
    return Invalid("spec.slo.objective",
                   "is empty: give PERCENTILE<BOUND, e.g. p99<1ms");
  }
  slo->enabled = true;
  BLKPERF_ASSIGN_OR_RETURN(
      slo->target, ParseSloTarget(in.objective(), "spec.slo.objective"));
  if (in.has_precision()) slo->precision = in.precision();
  if (in.has_step()) {
    BLKPERF_ASSIGN_OR_RETURN(slo->step,
                             DurationFromProto(in.step(), "spec.slo.step"));
  }
  if (in.has_settle()) {
    BLKPERF_ASSIGN_OR_RETURN(slo->settle,
                             DurationFromProto(in.settle(), "spec.slo.settle"));
  }
  return absl::OkStatus();
}

// The workload-shape fields (240-299).
absl::Status ShapeFromProto(const v1::WorkloadSpec& proto, WorkloadSpec* spec) {
  if (!proto.distribution().empty()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->distribution,
        ParseOffsetDistribution(proto.distribution(), "spec.distribution"));
  }
  if (proto.has_random_percent()) {
    BLKPERF_RETURN_IF_ERROR(
        CheckRandomPercent(proto.random_percent(), "spec.random_percent"));
    spec->random_percent = proto.random_percent();
  }
  BLKPERF_ASSIGN_OR_RETURN(
      spec->read_bssplit,
      SharesFromProto(proto.read_bssplit(), "spec.read_bssplit"));
  BLKPERF_ASSIGN_OR_RETURN(
      spec->write_bssplit,
      SharesFromProto(proto.write_bssplit(), "spec.write_bssplit"));
  if (proto.has_rate_iops()) spec->rate_iops = proto.rate_iops();
  if (proto.has_rate_bw()) spec->rate_bw = proto.rate_bw();
  BLKPERF_ASSIGN_OR_RETURN(
      spec->arrivals, ArrivalsFromProto(proto.arrivals(), "spec.arrivals"));
  if (proto.has_fsync_every()) spec->fsync_every = proto.fsync_every();
  if (proto.has_fdatasync_every()) {
    spec->fdatasync_every = proto.fdatasync_every();
  }
  if (static_cast<size_t>(proto.groups_size()) > kMaxJobGroups) {
    return Invalid("spec.groups",
                   absl::StrCat("has ", proto.groups_size(),
                                " entries, more than ", kMaxJobGroups));
  }
  for (int i = 0; i < proto.groups_size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(
        JobGroupSpec group,
        GroupFromProto(proto.groups(i), absl::StrCat("spec.groups[", i, "].")));
    spec->groups.push_back(std::move(group));
  }
  if (proto.has_slo())
    BLKPERF_RETURN_IF_ERROR(SloFromProto(proto.slo(), &spec->slo));
  if (proto.has_steady_state()) {
    BLKPERF_RETURN_IF_ERROR(
        SteadyStateSpecFromProto(proto.steady_state(), &spec->steady_state));
  }
  if (proto.has_precondition()) {
    spec->precondition.sequential_passes =
        proto.precondition().sequential_passes();
  }
  return absl::OkStatus();
}

void GroupToProto(const JobGroupSpec& g, v1::JobGroup* out) {
  out->set_name(g.name);
  for (int cpu : g.cpus) out->add_cpus(cpu);
  if (g.op) out->set_op(OpToProto(*g.op));
  if (g.read_percent) out->set_read_percent(*g.read_percent);
  if (g.block_size) out->set_block_size(*g.block_size);
  if (g.alignment) out->set_alignment(*g.alignment);
  if (g.queue_depth) out->set_queue_depth(*g.queue_depth);
  if (g.distribution) {
    out->set_distribution(OffsetDistributionName(*g.distribution));
  }
  if (g.random_percent) out->set_random_percent(*g.random_percent);
  if (g.read_bssplit) {
    SharesToProto(*g.read_bssplit,
                  out->mutable_read_bssplit()->mutable_shares());
  }
  if (g.write_bssplit) {
    SharesToProto(*g.write_bssplit,
                  out->mutable_write_bssplit()->mutable_shares());
  }
  if (g.rate_iops) out->set_rate_iops(*g.rate_iops);
  if (g.rate_bw) out->set_rate_bw(*g.rate_bw);
  if (g.arrivals) out->set_arrivals(ArrivalsToProto(*g.arrivals));
  if (g.fsync_every) out->set_fsync_every(*g.fsync_every);
  if (g.fdatasync_every) out->set_fdatasync_every(*g.fdatasync_every);
}

void ShapeToProto(const WorkloadSpec& spec, v1::WorkloadSpec* proto) {
  proto->set_distribution(OffsetDistributionName(spec.distribution));
  proto->set_random_percent(spec.random_percent);
  SharesToProto(spec.read_bssplit, proto->mutable_read_bssplit());
  SharesToProto(spec.write_bssplit, proto->mutable_write_bssplit());
  proto->set_rate_iops(spec.rate_iops);
  proto->set_rate_bw(spec.rate_bw);
  proto->set_arrivals(ArrivalsToProto(spec.arrivals));
  proto->set_fsync_every(spec.fsync_every);
  proto->set_fdatasync_every(spec.fdatasync_every);
  for (const JobGroupSpec& g : spec.groups)
    GroupToProto(g, proto->add_groups());
  if (spec.slo.enabled) {
    v1::SloSpec* slo = proto->mutable_slo();
    slo->set_objective(SloTargetName(spec.slo.target));
    slo->set_precision(spec.slo.precision);
    DurationToProto(spec.slo.step, slo->mutable_step());
    DurationToProto(spec.slo.settle, slo->mutable_settle());
  }
  if (spec.steady_state.enabled) {
    SteadyStateSpecToProto(spec.steady_state, proto->mutable_steady_state());
  }
  if (spec.precondition.sequential_passes != 0) {
    proto->mutable_precondition()->set_sequential_passes(
        spec.precondition.sequential_passes);
  }
}

}  // namespace

namespace {

// targets[]: non-empty, absolute paths without NUL bytes.
absl::Status TargetsFromProto(const v1::WorkloadSpec& proto, SpecOrigin origin,
                              WorkloadSpec* spec) {
  const bool user_input = origin == SpecOrigin::kRequest;
  for (int i = 0; i < proto.targets_size(); ++i) {
    const v1::TargetSpec& t = proto.targets(i);
    const std::string field = absl::StrCat("spec.targets[", i, "].path");
    if (user_input && t.path().empty()) return Invalid(field, "is empty");
    if (user_input && t.path().find('\0') != std::string::npos) {
      return Invalid(field, absl::StrCat("\"", absl::CHexEscape(t.path()),
                                         "\" contains a NUL byte"));
    }
    if (user_input && t.path()[0] != '/') {
      return Invalid(
          field, absl::StrCat("\"", t.path(), "\" is not an absolute path"));
    }
    spec->targets.push_back({.path = t.path(),
                             .create_size = t.create_size(),
                             .allow_write = t.allow_write()});
  }
  return absl::OkStatus();
}

// op, mix, sizes, depth, batches, threads and CPUs.
absl::Status SizesFromProto(const v1::WorkloadSpec& proto, SpecOrigin origin,
                            WorkloadSpec* spec) {
  const bool user_input = origin == SpecOrigin::kRequest;
  BLKPERF_ASSIGN_OR_RETURN(spec->op, OpFromProto(proto.op(), "spec.op"));
  if (proto.has_read_percent()) {
    if (user_input && proto.read_percent() > 100) {
      return Invalid("spec.read_percent",
                     absl::StrCat(proto.read_percent(), " is not in 0..100"));
    }
    spec->read_percent = proto.read_percent();
  }
  if (proto.has_block_size()) {
    if (user_input && proto.block_size() == 0) {
      return Invalid("spec.block_size", "must be > 0");
    }
    spec->block_size = proto.block_size();
  }
  if (proto.has_alignment()) spec->alignment = proto.alignment();
  if (proto.has_queue_depth()) {
    if (user_input && proto.queue_depth() == 0) {
      return Invalid("spec.queue_depth", "must be > 0");
    }
    spec->queue_depth = proto.queue_depth();
  }
  if (proto.has_submit_batch()) spec->submit_batch = proto.submit_batch();
  if (proto.has_complete_batch()) spec->complete_batch = proto.complete_batch();
  if (proto.has_threads()) spec->threads = proto.threads();
  for (int i = 0; i < proto.cpus_size(); ++i) {
    if (user_input && proto.cpus(i) < 0) {
      return Invalid(absl::StrCat("spec.cpus[", i, "]"),
                     absl::StrCat(proto.cpus(i), " is not a CPU number"));
    }
    spec->cpus.push_back(proto.cpus(i));
  }
  return absl::OkStatus();
}

// runtime, io_count (the workload must end) and ramp_time.
absl::Status TimesFromProto(const v1::WorkloadSpec& proto, SpecOrigin origin,
                            WorkloadSpec* spec) {
  const bool user_input = origin == SpecOrigin::kRequest;
  if (proto.has_runtime()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->runtime, DurationFromProto(proto.runtime(), "spec.runtime"));
  }
  if (proto.has_io_count()) spec->io_count = proto.io_count();
  // An I/O count without a runtime runs until the count, as on the command
  // line; --max_runtime still bounds it.
  if (!proto.has_runtime() && spec->io_count != 0) {
    spec->runtime = absl::ZeroDuration();
  }
  // An SLO search ends after its steps, whatever the runtime.
  if (user_input && proto.has_runtime() &&
      spec->runtime == absl::ZeroDuration() && spec->io_count == 0 &&
      !proto.has_slo()) {
    return Invalid("spec.runtime",
                   "is 0 and spec.io_count is 0: the workload would never end");
  }
  if (proto.has_ramp_time()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->ramp_time,
        DurationFromProto(proto.ramp_time(), "spec.ramp_time"));
  }
  if (proto.has_series_interval()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->series_interval,
        DurationFromProto(proto.series_interval(), "spec.series_interval"));
  }
  return absl::OkStatus();
}

// Buffers, files, polling, the request cache and latency options.
absl::Status RingFromProto(const v1::WorkloadSpec& proto, SpecOrigin origin,
                           WorkloadSpec* spec) {
  const bool user_input = origin == SpecOrigin::kRequest;
  if (proto.has_direct()) spec->direct = proto.direct();
  if (proto.has_seed()) spec->seed = proto.seed();
  if (proto.has_fixed_buffers()) spec->fixed_buffers = proto.fixed_buffers();
  if (proto.has_registered_files()) {
    spec->registered_files = proto.registered_files();
  }
  if (proto.has_vectored()) spec->vectored = proto.vectored();
  if (proto.has_nop()) spec->nop = proto.nop();
  BLKPERF_ASSIGN_OR_RETURN(spec->buffer_layout,
                           BufferLayoutFromProto(proto.buffer_layout()));
  BLKPERF_ASSIGN_OR_RETURN(spec->huge_pages,
                           HugePageModeFromProto(proto.huge_pages()));
  BLKPERF_ASSIGN_OR_RETURN(spec->polled, PollModeFromProto(proto.polled()));
  if (proto.has_sqpoll()) spec->sqpoll = proto.sqpoll();
  if (proto.has_sqpoll_cpu()) {
    if (user_input && proto.sqpoll_cpu() < -1) {
      return Invalid(
          "spec.sqpoll_cpu",
          absl::StrCat(proto.sqpoll_cpu(), " is not a CPU number (-1 = any)"));
    }
    spec->sqpoll_cpu = proto.sqpoll_cpu();
  }
  BLKPERF_ASSIGN_OR_RETURN(spec->request_cache,
                           RequestCacheModeFromProto(proto.request_cache()));
  if (proto.has_latency_tracking()) {
    spec->latency_tracking = proto.latency_tracking();
  }
  BLKPERF_ASSIGN_OR_RETURN(spec->latency_mode,
                           LatencyModeFromProto(proto.latency_mode()));
  if (proto.has_io_timeout()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->io_timeout,
        DurationFromProto(proto.io_timeout(), "spec.io_timeout"));
  }
  return absl::OkStatus();
}

// verify, errors, io_timeout's neighbours, the split strategy and A/B.
absl::Status VerifyAndSplitFromProto(const v1::WorkloadSpec& proto,
                                     SpecOrigin origin, WorkloadSpec* spec) {
  const bool user_input = origin == SpecOrigin::kRequest;
  if (proto.has_verify()) spec->verify = proto.verify();
  if (proto.has_verify_pass()) spec->verify_pass = proto.verify_pass();
  if (proto.has_verify_dump()) spec->verify_dump = proto.verify_dump();
  if (proto.has_continue_on_error()) {
    spec->continue_on_error = proto.continue_on_error();
  }
  if (proto.has_force_async()) spec->force_async = proto.force_async();
  if (!proto.split().empty()) {
    BLKPERF_ASSIGN_OR_RETURN(spec->split,
                             ParseSplitStrategy(proto.split(), "spec.split"));
  }
  for (int i = 0; i < proto.ab_strategies_size(); ++i) {
    BLKPERF_ASSIGN_OR_RETURN(
        SplitStrategy strategy,
        ParseSplitStrategy(proto.ab_strategies(i),
                           absl::StrCat("spec.ab_strategies[", i, "]")));
    spec->ab_strategies.push_back(strategy);
  }
  if (proto.has_ab_slice()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->ab_slice, DurationFromProto(proto.ab_slice(), "spec.ab_slice"));
    if (user_input && spec->ab_slice == absl::ZeroDuration() &&
        !spec->ab_strategies.empty()) {
      return Invalid("spec.ab_slice", "is 0: A/B slices must be longer than 0");
    }
  }
  // A metrics label: bounded and of a plain charset (never echoed here).
  if (user_input && !proto.experiment_arm().empty() &&
      !IsExperimentArmName(proto.experiment_arm())) {
    return Invalid("spec.experiment_arm",
                   absl::StrCat("is not 1 to ", kMaxExperimentArmBytes,
                                " characters of [A-Za-z0-9_.:=,/+-] (",
                                proto.experiment_arm().size(), " bytes)"));
  }
  spec->experiment_arm = proto.experiment_arm();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<WorkloadSpec> SpecFromProto(const v1::WorkloadSpec& proto,
                                           SpecOrigin origin) {
  WorkloadSpec spec;
  BLKPERF_RETURN_IF_ERROR(TargetsFromProto(proto, origin, &spec));
  BLKPERF_RETURN_IF_ERROR(SizesFromProto(proto, origin, &spec));
  BLKPERF_RETURN_IF_ERROR(TimesFromProto(proto, origin, &spec));
  BLKPERF_RETURN_IF_ERROR(RingFromProto(proto, origin, &spec));
  BLKPERF_RETURN_IF_ERROR(VerifyAndSplitFromProto(proto, origin, &spec));
  BLKPERF_RETURN_IF_ERROR(ShapeFromProto(proto, &spec));
  return spec;
}

void SpecToProto(const WorkloadSpec& spec, v1::WorkloadSpec* proto) {
  proto->Clear();
  for (const TargetSpec& t : spec.targets) {
    v1::TargetSpec* out = proto->add_targets();
    out->set_path(t.path);
    out->set_create_size(t.create_size);
    out->set_allow_write(t.allow_write);
  }
  proto->set_op(OpToProto(spec.op));
  proto->set_read_percent(spec.read_percent);
  proto->set_block_size(spec.block_size);
  proto->set_alignment(spec.alignment);
  proto->set_queue_depth(spec.queue_depth);
  proto->set_submit_batch(spec.submit_batch);
  proto->set_complete_batch(spec.complete_batch);
  proto->set_threads(spec.threads);
  for (int cpu : spec.cpus) proto->add_cpus(cpu);
  DurationToProto(spec.runtime, proto->mutable_runtime());
  proto->set_io_count(spec.io_count);
  DurationToProto(spec.ramp_time, proto->mutable_ramp_time());
  DurationToProto(spec.series_interval, proto->mutable_series_interval());
  proto->set_direct(spec.direct);
  proto->set_seed(spec.seed);
  proto->set_fixed_buffers(spec.fixed_buffers);
  proto->set_registered_files(spec.registered_files);
  proto->set_vectored(spec.vectored);
  proto->set_nop(spec.nop);
  proto->set_buffer_layout(BufferLayoutToProto(spec.buffer_layout));
  proto->set_huge_pages(HugePageModeToProto(spec.huge_pages));
  proto->set_polled(PollModeToProto(spec.polled));
  proto->set_sqpoll(spec.sqpoll);
  proto->set_sqpoll_cpu(spec.sqpoll_cpu);
  proto->set_request_cache(RequestCacheModeToProto(spec.request_cache));
  proto->set_latency_tracking(spec.latency_tracking);
  proto->set_verify(spec.verify);
  proto->set_verify_pass(spec.verify_pass);
  proto->set_verify_dump(spec.verify_dump);
  proto->set_continue_on_error(spec.continue_on_error);
  proto->set_split(SplitStrategyName(spec.split));
  proto->set_force_async(spec.force_async);
  for (const SplitStrategy& strategy : spec.ab_strategies) {
    proto->add_ab_strategies(SplitStrategyName(strategy));
  }
  DurationToProto(spec.ab_slice, proto->mutable_ab_slice());
  proto->set_experiment_arm(spec.experiment_arm);
  proto->set_latency_mode(LatencyModeToProto(spec.latency_mode));
  DurationToProto(spec.io_timeout, proto->mutable_io_timeout());
  ShapeToProto(spec, proto);
}

}  // namespace blkperf
