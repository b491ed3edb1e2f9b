#include "daemon/engine/spec/spec_validation.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "daemon/engine/spec/shape_validation.h"
#include "daemon/engine/verify/verify_block.h"

namespace blkperf {
namespace {

constexpr uint32_t kDefaultBatch = 32;

absl::Status Invalid(absl::string_view field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", reason));
}

std::string CpuListText(const std::vector<int>& cpus) {
  return absl::StrJoin(cpus, ",");
}

bool Contains(const std::vector<int>& values, int value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// How I/Os address their buffers: vectored, buffer_layout (each thread's
// buffers, ThreadBufferBytes, as one registration).
absl::Status ValidateBufferFields(const WorkloadSpec& spec,
                                  const std::vector<GroupShape>& groups) {
  if (spec.vectored && spec.fixed_buffers) {
    return Invalid("vectored",
                   "needs fixed_buffers off: vectored I/O is READV/WRITEV on "
                   "user addresses (blkperf does not issue READV_FIXED)");
  }
  if (spec.buffer_layout != BufferLayout::kOneRegion) return absl::OkStatus();
  if (!spec.fixed_buffers) {
    return Invalid("buffer_layout",
                   "one_region only applies to registered buffers and "
                   "fixed_buffers is off");
  }
  for (size_t g = 0; g < groups.size() && !spec.nop; ++g) {
    const uint64_t region = ThreadBufferBytes(groups[g]);
    if (region > kMaxRegisteredBufferBytes) {
      return Invalid(
          "buffer_layout",
          absl::StrCat("one_region: ", internal::GroupFieldPrefix(spec, g),
                       "queue_depth x largest block = ", region,
                       " bytes exceeds the kernel's ",
                       kMaxRegisteredBufferBytes,
                       "-byte limit on one registered buffer"));
    }
  }
  return absl::OkStatus();
}

// nop: no device, so nothing that needs one (WorkloadSpec::nop). The
// workload-shape fields are checked on the resolved groups (NopShapeCheck).
absl::Status ValidateNopFields(const WorkloadSpec& spec) {
  if (!spec.targets.empty()) {
    return Invalid("targets", absl::StrCat("has ", spec.targets.size(),
                                           " entries, but nop runs on no "
                                           "target: leave targets empty"));
  }
  if (spec.op != Op::kRead && spec.op != Op::kRandRead) {
    return Invalid("op", absl::StrCat(OpName(spec.op),
                                      " with nop: a NOP moves no data, so "
                                      "only read and randread are accepted"));
  }
  if (spec.verify) return Invalid("verify", "has no data to check with nop");
  if (spec.polled == PollMode::kOn) {
    return Invalid("polled", "on with nop: there is no device to poll");
  }
  if (spec.split.kind != SplitStrategy::Kind::kNone ||
      !spec.ab_strategies.empty()) {
    return Invalid(spec.ab_strategies.empty() ? "split" : "ab_strategies",
                   "needs a device's queue limits; nop has none (split none "
                   "only)");
  }
  if (!spec.groups.empty()) {
    return Invalid("groups", "cannot be used with nop");
  }
  return absl::OkStatus();
}

// The stand-in target of a NOP workload: offsets are still drawn (they are
// part of the engine's cost per I/O), over 1 GiB or one block.
TargetInfo NopTargetInfo(uint32_t block_size) {
  TargetInfo info;
  info.path = "nop";
  info.resolved_path = "nop";
  info.kind = TargetKind::kNop;
  info.size_bytes = std::max<uint64_t>(uint64_t{1} << 30, block_size);
  info.logical_block_size = 512;
  info.physical_block_size = 512;
  return info;
}

absl::Status NopShapeCheck(const std::vector<GroupShape>& groups) {
  for (const GroupShape& g : groups) {
    if (g.shaped) {
      return Invalid("nop",
                     "needs plain I/O shapes: no distribution, "
                     "random_percent, bssplit, rates, syncs, trims or slo");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateVerifyFields(const WorkloadSpec& spec) {
  if (spec.verify_pass && !spec.verify) {
    return Invalid("verify_pass", "needs verify");
  }
  if (spec.verify_dump && !spec.verify) {
    return Invalid("verify_dump", "needs verify");
  }
  if (!spec.verify) return absl::OkStatus();
  if (!spec.groups.empty()) {
    return Invalid("verify", "cannot be used with groups");
  }
  const size_t threads = TopLevelThreads(spec);
  if (spec.verify_pass && spec.op != Op::kRead) {
    return Invalid("verify_pass", absl::StrCat("reads every block in order: op "
                                               "must be read, not ",
                                               OpName(spec.op)));
  }
  if ((spec.verify_pass || OpWrites(spec.op, spec.read_percent)) &&
      threads > 1) {
    return Invalid("threads",
                   absl::StrCat(threads,
                                ": verify with writes (or "
                                "verify_pass) runs one submitter thread, the "
                                "only writer of the generation table"));
  }
  if (spec.block_size % kVerifySectorBytes != 0) {
    return Invalid("block_size",
                   absl::StrCat(spec.block_size, " is not a multiple of ",
                                kVerifySectorBytes, " (required by verify)"));
  }
  if (spec.alignment != 0 && spec.alignment != spec.block_size) {
    return Invalid("alignment",
                   absl::StrCat(spec.alignment, " differs from block_size ",
                                spec.block_size,
                                ": verify checks whole "
                                "blocks at multiples of the block size"));
  }
  return absl::OkStatus();
}

// The target list: non-empty (or none with nop), no path twice, creates
// allowed to write.
absl::Status ValidateTargetList(const WorkloadSpec& spec) {
  if (spec.nop) {
    BLKPERF_RETURN_IF_ERROR(ValidateNopFields(spec));
  } else if (spec.targets.empty()) {
    return Invalid("targets", "is empty: at least one target is required");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    const TargetSpec& t = spec.targets[i];
    const std::string field = absl::StrCat("targets[", i, "].path");
    if (t.path.empty()) return Invalid(field, "is empty");
    if (!seen.insert(t.path).second) {
      return Invalid(field, absl::StrCat(t.path, " is listed twice"));
    }
    if (t.create_size != 0 && !t.allow_write) {
      return absl::PermissionDeniedError(
          absl::StrCat("targets[", i, "].create_size: creating or filling ",
                       t.path, " is a write and needs allow_write"));
    }
  }
  return absl::OkStatus();
}

// Mix, sizes, depth and batches against the limits.
absl::Status ValidateSizeFields(const WorkloadSpec& spec,
                                const EngineLimits& limits) {
  if (spec.read_percent > 100) {
    return Invalid("read_percent",
                   absl::StrCat(spec.read_percent, " is not in 0..100"));
  }
  if (spec.block_size == 0) return Invalid("block_size", "must be > 0");
  if (spec.block_size > limits.max_block_size) {
    return Invalid("block_size",
                   absl::StrCat(spec.block_size, " exceeds the limit ",
                                limits.max_block_size));
  }
  if (spec.queue_depth == 0) return Invalid("queue_depth", "must be > 0");
  if (spec.queue_depth > limits.max_queue_depth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "queue_depth ", spec.queue_depth, " exceeds the limit max_queue_depth ",
        limits.max_queue_depth));
  }
  if (spec.submit_batch > spec.queue_depth) {
    return Invalid("submit_batch",
                   absl::StrCat(spec.submit_batch, " exceeds queue_depth ",
                                spec.queue_depth));
  }
  if (spec.complete_batch > spec.queue_depth) {
    return Invalid("complete_batch",
                   absl::StrCat(spec.complete_batch, " exceeds queue_depth ",
                                spec.queue_depth));
  }
  return absl::OkStatus();
}

// cpus (each once, online) and threads against them and the limit.
absl::Status ValidateCpuFields(const WorkloadSpec& spec,
                               const EngineLimits& limits,
                               const HostCpus& cpus) {
  std::set<int> listed;
  for (size_t i = 0; i < spec.cpus.size(); ++i) {
    if (!listed.insert(spec.cpus[i]).second) {
      return Invalid(absl::StrCat("cpus[", i, "]"),
                     absl::StrCat(spec.cpus[i],
                                  " is listed twice: one submitter thread per "
                                  "CPU"));
    }
    if (!Contains(cpus.online, spec.cpus[i])) {
      return Invalid(absl::StrCat("cpus[", i, "]"),
                     absl::StrCat(spec.cpus[i], " is not online (online: ",
                                  CpuListText(cpus.online), ")"));
    }
  }
  if (spec.threads != 0 && !spec.cpus.empty() &&
      spec.threads != spec.cpus.size()) {
    return Invalid("threads",
                   absl::StrCat(spec.threads, " does not match the ",
                                spec.cpus.size(), " entries of cpus"));
  }
  const uint32_t threads = TopLevelThreads(spec);
  if (threads > limits.max_threads) {
    return Invalid("threads", absl::StrCat(threads, " exceeds the limit ",
                                           limits.max_threads));
  }
  // Threads without cpus go one per CPU of the placement; more would put
  // two on one CPU, which `cpus` refuses ("listed twice") in words the user
  // did not write.
  if (spec.cpus.empty() && spec.groups.empty() &&
      threads > cpus.placement.size()) {
    return Invalid("threads",
                   absl::StrCat(threads, " exceeds the ",
                                cpus.placement.size(),
                                " CPUs this daemon places submitters on (",
                                CpuListText(cpus.placement),
                                "): one submitter thread per CPU; list "
                                "`cpus` to use other online CPUs"));
  }
  return absl::OkStatus();
}

// runtime (the workload must end, within the limit) and ramp_time.
absl::Status ValidateTimeFields(const WorkloadSpec& spec,
                                const EngineLimits& limits) {
  if (spec.runtime < absl::ZeroDuration()) {
    return Invalid("runtime", "must not be negative");
  }
  // An SLO search ends after its steps (SpecMaxDuration): runtime is moot.
  if (spec.runtime == absl::ZeroDuration() && spec.io_count == 0 &&
      !spec.slo.enabled) {
    return Invalid("runtime",
                   "is 0 and io_count is 0: the workload would never end");
  }
  if (spec.runtime > limits.max_runtime) {
    return Invalid("runtime",
                   absl::StrCat(absl::FormatDuration(spec.runtime),
                                " exceeds the limit max_runtime ",
                                absl::FormatDuration(limits.max_runtime)));
  }
  if (spec.ramp_time < absl::ZeroDuration()) {
    return Invalid("ramp_time", "must not be negative");
  }
  if (spec.series_interval < kMinSeriesInterval) {
    return Invalid("series_interval",
                   absl::StrCat(absl::FormatDuration(spec.series_interval),
                                " is shorter than ",
                                absl::FormatDuration(kMinSeriesInterval)));
  }
  return absl::OkStatus();
}

// Polling and the SQ polling thread's CPU.
absl::Status ValidateRingFields(const WorkloadSpec& spec,
                                const HostCpus& cpus) {
  if (spec.polled == PollMode::kOn && !spec.direct) {
    return Invalid("polled", "on needs direct I/O (direct is false)");
  }
  if (spec.sqpoll_cpu >= 0 && !spec.sqpoll) {
    return Invalid("sqpoll_cpu", "is set but sqpoll is off");
  }
  if (spec.sqpoll_cpu >= 0 && !Contains(cpus.online, spec.sqpoll_cpu)) {
    return Invalid("sqpoll_cpu",
                   absl::StrCat(spec.sqpoll_cpu, " is not online (online: ",
                                CpuListText(cpus.online), ")"));
  }
  if (spec.sqpoll_cpu < -1) {
    return Invalid("sqpoll_cpu",
                   absl::StrCat(spec.sqpoll_cpu, " is not a CPU (-1 = any)"));
  }
  return absl::OkStatus();
}

// The job groups resolved, their buffers within the limit, and what nop and
// verify need of their shapes.
absl::Status ValidateGroupResources(const WorkloadSpec& spec,
                                    const EngineLimits& limits,
                                    const HostCpus& cpus,
                                    std::vector<GroupShape>* resolved) {
  BLKPERF_ASSIGN_OR_RETURN(std::vector<GroupShape> groups,
                           internal::ResolveGroups(spec, limits, cpus));
  // A NOP maps one page a thread, whatever its queue depth
  // (SubmitterThread::AllocateBuffers): no buffers to bound.
  const uint64_t buffer_bytes =
      spec.nop ? 0 : internal::GroupBufferBytes(groups);
  if (buffer_bytes > limits.max_buffer_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "threads x queue_depth x block_size = ", buffer_bytes,
        " bytes of I/O buffers",
        spec.groups.empty() && spec.read_bssplit.empty() &&
                spec.write_bssplit.empty()
            ? absl::StrCat(" (", groups[0].threads, " x ",
                           groups[0].queue_depth, " x ",
                           groups[0].max_block_size, ")")
            : " (the largest block of each mix, summed over the groups)",
        " exceeds ",
        LimitText(limits, "max_buffer_bytes", limits.max_buffer_bytes)));
  }
  if (spec.nop) BLKPERF_RETURN_IF_ERROR(NopShapeCheck(groups));
  if (spec.verify) {
    for (const GroupShape& g : groups) {
      if (g.shaped) {
        return Invalid("verify",
                       "needs plain I/O shapes: no distribution, "
                       "random_percent, bssplit, rates, syncs, trims or slo");
      }
    }
  }
  *resolved = std::move(groups);
  return absl::OkStatus();
}

// A/B mode: at least two strategies, slices long enough and few enough.
absl::Status ValidateAbFields(const WorkloadSpec& spec) {
  if (spec.ab_strategies.empty()) return absl::OkStatus();
  if (spec.ab_strategies.size() < 2) {
    return Invalid("ab_strategies", "needs at least two strategies to compare");
  }
  if (spec.ab_slice < kMinAbSlice) {
    return Invalid("ab_slice",
                   absl::StrCat(absl::FormatDuration(spec.ab_slice),
                                " is below the minimum ",
                                absl::FormatDuration(kMinAbSlice),
                                ": shorter slices measure the switch, not "
                                "the strategies"));
  }
  const int64_t switches = spec.runtime / spec.ab_slice;
  if (switches > kMaxAbSwitches) {
    return Invalid(
        "ab_slice",
        absl::StrCat(absl::FormatDuration(spec.ab_slice), " over runtime ",
                     absl::FormatDuration(spec.runtime), " is ", switches,
                     " switches, more than the ", kMaxAbSwitches,
                     " a workload records; lengthen ab_slice"));
  }
  if (spec.runtime <
      spec.ab_slice * static_cast<int64_t>(spec.ab_strategies.size())) {
    return Invalid("ab_slice",
                   absl::StrCat(absl::FormatDuration(spec.ab_slice), " x ",
                                spec.ab_strategies.size(),
                                " strategies does not fit in runtime ",
                                absl::FormatDuration(spec.runtime)));
  }
  return absl::OkStatus();
}

// Steady state: a criterion the series can check, a window and check that
// are whole series intervals and fit in runtime, and nothing else that
// ends or shapes the run on its own schedule.
absl::Status ValidateSteadyStateFields(const WorkloadSpec& spec) {
  const SteadyStateSpec& ss = spec.steady_state;
  if (!ss.enabled) return absl::OkStatus();
  const SteadyStateCriterion& c = ss.criterion;
  if (!(c.limit > 0) || (c.percent && c.limit > 100)) {
    return Invalid("steady_state.criterion",
                   absl::StrCat(SteadyStateCriterionName(c),
                                ": the limit must be above 0 (and a "
                                "percentage at most 100)"));
  }
  if ((c.metric == SteadyMetric::kLatency || c.metric == SteadyMetric::kP99) &&
      !spec.latency_tracking) {
    return Invalid("steady_state.criterion",
                   absl::StrCat(SteadyStateCriterionName(c),
                                " needs latency_tracking"));
  }
  if (spec.io_count != 0 || spec.runtime <= absl::ZeroDuration()) {
    return Invalid("steady_state",
                   "needs runtime and no io_count: it is checked over time "
                   "(gate mode measures from attainment to the end of runtime)");
  }
  if (spec.slo.enabled || !spec.ab_strategies.empty()) {
    return Invalid("steady_state",
                   "cannot be used with an SLO search or A/B strategies: "
                   "they run their own schedule");
  }
  const absl::Duration interval = spec.series_interval;
  const int64_t samples = ss.window / interval;
  if (ss.window != samples * interval || samples < 2) {
    return Invalid("steady_state.window",
                   absl::StrCat(absl::FormatDuration(ss.window),
                                " is not a multiple of series_interval ",
                                absl::FormatDuration(interval),
                                " of at least two intervals"));
  }
  if (samples > static_cast<int64_t>(kMaxSteadyStateSamples)) {
    return Invalid("steady_state.window",
                   absl::StrCat(absl::FormatDuration(ss.window), " is ", samples,
                                " series intervals, more than the ",
                                kMaxSteadyStateSamples,
                                " a window holds: lengthen series_interval"));
  }
  if (ss.window > spec.runtime) {
    return Invalid("steady_state.window",
                   absl::StrCat(absl::FormatDuration(ss.window),
                                " is longer than runtime ",
                                absl::FormatDuration(spec.runtime),
                                ": it would never fill"));
  }
  if (ss.check < absl::ZeroDuration() ||
      ss.check != (ss.check / interval) * interval ||
      ss.check > spec.runtime) {
    return Invalid("steady_state.check",
                   absl::StrCat(absl::FormatDuration(ss.check),
                                " is not a multiple of series_interval ",
                                absl::FormatDuration(interval),
                                " within runtime"));
  }
  return absl::OkStatus();
}

// Sequential alignment and the stall timeout.
absl::Status ValidateAlignmentAndTimeout(const WorkloadSpec& spec) {
  if (spec.alignment != 0 && (spec.op == Op::kRead || spec.op == Op::kWrite) &&
      spec.block_size % spec.alignment != 0) {
    return Invalid("alignment",
                   absl::StrCat(spec.alignment, " does not divide block_size ",
                                spec.block_size,
                                ": sequential ops advance by block_size, so "
                                "their offsets would not be aligned"));
  }
  if (spec.io_timeout < absl::ZeroDuration() ||
      (spec.io_timeout > absl::ZeroDuration() &&
       spec.io_timeout < kMinIoTimeout)) {
    return Invalid("io_timeout",
                   absl::StrCat(absl::FormatDuration(spec.io_timeout),
                                " is neither 0 (off) nor at least ",
                                absl::FormatDuration(kMinIoTimeout)));
  }
  return absl::OkStatus();
}

// Preconditioning (WorkloadSpec::precondition): its pass count, and
// targets it may write: it writes every block of every one.
absl::Status ValidatePreconditionFields(const WorkloadSpec& spec) {
  const uint32_t passes = spec.precondition.sequential_passes;
  if (passes == 0) return absl::OkStatus();
  if (passes > kMaxPreconditionPasses) {
    return Invalid("precondition.sequential_passes",
                   absl::StrCat(passes, " is more than ",
                                kMaxPreconditionPasses, " passes"));
  }
  if (spec.nop) {
    return Invalid("precondition", "needs targets to write; nop has none");
  }
  if (spec.verify) {
    return Invalid("precondition",
                   "cannot be used with verify: it overwrites every block, "
                   "so the generations verify recorded would no longer match");
  }
  for (size_t i = 0; i < spec.targets.size(); ++i) {
    if (spec.targets[i].allow_write) continue;
    return Invalid(
        absl::StrCat("targets[", i, "].allow_write"),
        absl::StrCat("is false, but precondition sequential:", passes,
                     " writes every block of ", spec.targets[i].path,
                     " (allow writing it, or drop precondition)"));
  }
  return absl::OkStatus();
}

// Checks that need no target, step by step: the first failing step's
// error is returned. `groups` gets the resolved job groups (their defaults
// filled in from the spec as given).
absl::Status ValidateFields(const WorkloadSpec& spec,
                            const EngineLimits& limits, const HostCpus& cpus,
                            std::vector<GroupShape>* groups) {
  BLKPERF_RETURN_IF_ERROR(ValidateTargetList(spec));
  BLKPERF_RETURN_IF_ERROR(ValidateSizeFields(spec, limits));
  BLKPERF_RETURN_IF_ERROR(ValidateCpuFields(spec, limits, cpus));
  BLKPERF_RETURN_IF_ERROR(ValidateTimeFields(spec, limits));
  BLKPERF_RETURN_IF_ERROR(ValidateRingFields(spec, cpus));
  BLKPERF_RETURN_IF_ERROR(ValidateGroupResources(spec, limits, cpus, groups));
  BLKPERF_RETURN_IF_ERROR(ValidateBufferFields(spec, *groups));
  BLKPERF_RETURN_IF_ERROR(ValidateAbFields(spec));
  BLKPERF_RETURN_IF_ERROR(ValidateAlignmentAndTimeout(spec));
  BLKPERF_RETURN_IF_ERROR(ValidateSteadyStateFields(spec));
  BLKPERF_RETURN_IF_ERROR(ValidatePreconditionFields(spec));
  return ValidateVerifyFields(spec);
}

absl::Status ValidateAgainstTarget(const WorkloadSpec& spec,
                                   const std::vector<GroupShape>& groups,
                                   size_t index, const TargetInfo& info) {
  BLKPERF_RETURN_IF_ERROR(
      internal::ValidateGroupsAgainstTarget(spec, groups, index, info));
  BLKPERF_RETURN_IF_ERROR(CheckSplitForTarget(spec.split, "split", info));
  for (size_t k = 0; k < spec.ab_strategies.size(); ++k) {
    BLKPERF_RETURN_IF_ERROR(CheckSplitForTarget(
        spec.ab_strategies[k], absl::StrCat("ab_strategies[", k, "]"), info));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSplitForTarget(const SplitStrategy& strategy,
                                 absl::string_view field,
                                 const TargetInfo& target) {
  const uint32_t lbs = std::max<uint32_t>(target.logical_block_size, 1);
  if (strategy.kind == SplitStrategy::Kind::kFixed &&
      (strategy.fixed_bytes == 0 || strategy.fixed_bytes % lbs != 0)) {
    return Invalid(field,
                   absl::StrCat(SplitStrategyName(strategy), ": piece size ",
                                strategy.fixed_bytes, " is not a multiple of ",
                                target.path, "'s logical block size ", lbs));
  }
  return absl::OkStatus();
}

absl::StatusOr<ValidatedSpec> ValidateSpec(const WorkloadSpec& spec,
                                           const EngineLimits& limits) {
  ValidatedSpec validated{
      .spec = spec, .host_cpus = CurrentHostCpus(), .limits = limits};
  // The groups are resolved once, from the spec as given (a group's unset
  // batches follow its own depth), while the fields are validated.
  BLKPERF_RETURN_IF_ERROR(ValidateFields(spec, limits, validated.host_cpus,
                                         &validated.groups));
  return validated;
}

absl::Status ValidateSpecFields(const WorkloadSpec& spec,
                                const EngineLimits& limits) {
  return ValidateSpec(spec, limits).status();
}

void PlaceOnCpus(const std::vector<int>& cpus, ValidatedSpec* validated) {
  if (!validated->spec.groups.empty()) return;
  validated->spec.cpus = cpus;
  // A spec without groups is one group of its own fields.
  for (GroupShape& group : validated->groups) group.cpus = cpus;
}

namespace {

// The spec with its defaults filled in: alignment, batches, threads, CPUs,
// polling without direct I/O, and the groups' CPUs in group order.
WorkloadSpec WithDefaults(const WorkloadSpec& spec, const HostCpus& cpus) {
  WorkloadSpec out = spec;
  if (out.alignment == 0) out.alignment = out.block_size;
  if (out.submit_batch == 0) {
    out.submit_batch = std::min(kDefaultBatch, out.queue_depth);
  }
  if (out.complete_batch == 0) {
    out.complete_batch = std::min(kDefaultBatch, out.queue_depth);
  }
  out.threads = TopLevelThreads(out);
  FillDefaultCpus(cpus.placement, out.threads, &out.cpus);
  if (out.polled == PollMode::kAuto && !out.direct) {
    out.polled = PollMode::kOff;
  }
  if (!out.groups.empty()) {
    out.cpus = SpecCpus(out);
    out.threads = static_cast<uint32_t>(out.cpus.size());
  }
  return out;
}

// What the groups add up to: each thread's group, writes, shaped loops,
// the largest I/O and depth.
void SummarizeGroups(ResolvedSpec* resolved) {
  for (size_t g = 0; g < resolved->groups.size(); ++g) {
    const GroupShape& group = resolved->groups[g];
    resolved->thread_group.insert(resolved->thread_group.end(), group.threads,
                                  static_cast<uint16_t>(g));
    resolved->writes = resolved->writes || group.writes;
    resolved->shaped = resolved->shaped || group.shaped;
    resolved->max_block_size =
        std::max(resolved->max_block_size, group.max_block_size);
    resolved->max_queue_depth =
        std::max(resolved->max_queue_depth, group.queue_depth);
  }
}

// Writing target `i` must be allowed when any group writes.
absl::Status CheckWriteAllowed(const ResolvedSpec& resolved, size_t i) {
  const WorkloadSpec& out = resolved.spec;
  const TargetSpec& t = out.targets[i];
  if (!resolved.writes || t.allow_write) return absl::OkStatus();
  Op writer = out.op;
  for (const GroupShape& g : resolved.groups) {
    if (g.writes) {
      writer = g.op;
      break;
    }
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "targets[", i, "] ", t.path, ": op ", OpName(writer),
      " writes, and writing this target was not allowed (allow_write)"));
}

// Target `i` probed, through its opened descriptor when it has one.
absl::StatusOr<TargetInfo> ProbeSpecTarget(const TargetSpec& t, size_t i) {
  absl::StatusOr<TargetInfo> info =
      t.fd >= 0 ? ProbeTargetFd(t.fd, t.path) : ProbeTarget(t.path);
  if (info.ok()) return info;
  if (absl::IsNotFound(info.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("targets[", i, "].path ", t.path,
                     " does not exist (set create_size to create a file)"));
  }
  return absl::Status(
      info.status().code(),
      absl::StrCat("targets[", i, "].path: ", info.status().message()));
}

// Target `i` as probed, checked: create_size, the spec against its limits,
// and not a second name of an earlier target.
absl::Status CheckProbedTarget(const ResolvedSpec& resolved, size_t i,
                               const TargetInfo& info) {
  const WorkloadSpec& out = resolved.spec;
  const TargetSpec& t = out.targets[i];
  if (t.create_size != 0 && info.kind != TargetKind::kRegularFile) {
    return Invalid(absl::StrCat("targets[", i, "].create_size"),
                   absl::StrCat("applies to regular files only; ", t.path,
                                " is a block device"));
  }
  BLKPERF_RETURN_IF_ERROR(ValidateAgainstTarget(out, resolved.groups, i, info));
  for (size_t k = 0; k < resolved.targets.size(); ++k) {
    if (SameIdentity(resolved.targets[k], info)) {
      return Invalid(
          absl::StrCat("targets[", i, "].path"),
          absl::StrCat(t.path, " is the same ",
                       info.kind == TargetKind::kBlockDevice ? "device"
                                                             : "file (inode)",
                       " as targets[", k, "] ", out.targets[k].path,
                       " (a hard link or a second name)"));
    }
  }
  return absl::OkStatus();
}

// Trims discard on devices and punch holes in files: one kind per run.
absl::Status CheckTrimTargets(const ResolvedSpec& resolved) {
  for (size_t g = 0; g < resolved.groups.size(); ++g) {
    if (!OpTrims(resolved.groups[g].op)) continue;
    for (const TargetInfo& info : resolved.targets) {
      if (info.kind != resolved.targets[0].kind) {
        return Invalid(internal::GroupFieldPrefix(resolved.spec, g) + "op",
                       absl::StrCat(OpName(resolved.groups[g].op),
                                    ": the targets mix block devices and "
                                    "files; trims discard on devices and "
                                    "punch holes in files, so give one kind"));
      }
    }
  }
  return absl::OkStatus();
}

// The smallest target bounds the offsets; verify needs more blocks than
// the depth, and a verify pass reads every block once.
absl::Status ApplyTargetSizes(ResolvedSpec* resolved) {
  WorkloadSpec& out = resolved->spec;
  uint64_t min_size = UINT64_MAX;
  for (const TargetInfo& info : resolved->targets) {
    min_size = std::min(min_size, info.size_bytes);
  }
  resolved->min_target_bytes = min_size;
  const uint64_t min_blocks = min_size / out.block_size;
  if (out.verify && resolved->writes && out.queue_depth >= min_blocks) {
    return Invalid(
        "queue_depth",
        absl::StrCat(out.queue_depth, " is not below the ", min_blocks,
                     " blocks of the smallest target: "
                     "verify never has two I/Os of one block in "
                     "flight"));
  }
  if (out.verify_pass) {
    // Every block once: round-robin over the targets, each from block 0.
    out.io_count = min_blocks * out.targets.size();
    out.runtime = absl::ZeroDuration();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ResolvedSpec> ResolveSpec(ValidatedSpec validated,
                                         std::vector<TargetInfo> probed) {
  ResolvedSpec resolved;
  resolved.groups = std::move(validated.groups);
  resolved.spec = WithDefaults(validated.spec, validated.host_cpus);
  SummarizeGroups(&resolved);
  if (!probed.empty() && probed.size() != resolved.spec.targets.size()) {
    return absl::InternalError(
        absl::StrCat(probed.size(), " probed targets for ",
                     resolved.spec.targets.size(), " targets"));
  }
  const bool given = !probed.empty();
  for (size_t i = 0; i < resolved.spec.targets.size(); ++i) {
    BLKPERF_RETURN_IF_ERROR(CheckWriteAllowed(resolved, i));
    if (!given) {
      BLKPERF_ASSIGN_OR_RETURN(TargetInfo info,
                               ProbeSpecTarget(resolved.spec.targets[i], i));
      probed.push_back(std::move(info));
    }
    BLKPERF_RETURN_IF_ERROR(CheckProbedTarget(resolved, i, probed[i]));
    resolved.targets.push_back(std::move(probed[i]));
  }
  if (resolved.spec.nop) {
    resolved.spec.targets = {TargetSpec{.path = "nop"}};
    resolved.targets = {NopTargetInfo(resolved.spec.block_size)};
  }
  BLKPERF_RETURN_IF_ERROR(CheckTrimTargets(resolved));
  BLKPERF_RETURN_IF_ERROR(ApplyTargetSizes(&resolved));
  return resolved;
}

absl::StatusOr<ResolvedSpec> ResolveSpec(const WorkloadSpec& spec,
                                         const EngineLimits& limits) {
  BLKPERF_ASSIGN_OR_RETURN(ValidatedSpec validated, ValidateSpec(spec, limits));
  return ResolveSpec(std::move(validated));
}

}  // namespace blkperf
