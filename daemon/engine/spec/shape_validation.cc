#include "daemon/engine/spec/shape_validation.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace blkperf::internal {
namespace {

constexpr uint32_t kDefaultBatch = 32;
constexpr uint64_t kMaxRateIops = 1'000'000'000;
constexpr uint64_t kMaxRateBytes = uint64_t{1} << 40;  // 1 TiB/s
constexpr size_t kMaxGroupName = 32;
constexpr absl::Duration kMinSloStep = absl::Milliseconds(100);

absl::Status Invalid(absl::string_view field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", reason));
}

bool ValidGroupName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxGroupName) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// The sizes a group's I/Os take: the read mix (or block_size) when it
// reads, the write mix (or block_size) when it writes or trims.
std::vector<uint32_t> GroupSizes(const GroupShape& g) {
  std::vector<uint32_t> sizes;
  auto add = [&](const std::vector<BlockSizeShare>& mix) {
    if (mix.empty()) {
      sizes.push_back(g.block_size);
    } else {
      for (const BlockSizeShare& s : mix) sizes.push_back(s.block_size);
    }
  };
  if (g.read_percent > 0) add(g.read_bssplit);
  if (g.read_percent < 100) add(g.write_bssplit);
  return sizes;
}

// The field naming the size that `size` came from, for messages.
std::string SizeField(const std::string& prefix, const GroupShape& g,
                      uint32_t size) {
  for (const auto* mix : {&g.read_bssplit, &g.write_bssplit}) {
    for (size_t j = 0; j < mix->size(); ++j) {
      if ((*mix)[j].block_size == size) {
        return absl::StrCat(prefix,
                            mix == &g.read_bssplit ? "read_bssplit["
                                                   : "write_bssplit[",
                            j, "]");
      }
    }
  }
  return absl::StrCat(prefix, "block_size");
}

absl::Status ValidateMix(const std::string& field,
                         const std::vector<BlockSizeShare>& mix,
                         const EngineLimits& limits) {
  if (mix.size() > kMaxBlockSizeShares) {
    return Invalid(field, absl::StrCat("has ", mix.size(),
                                       " entries, more than ",
                                       kMaxBlockSizeShares));
  }
  uint64_t total = 0;
  std::set<uint32_t> seen;
  for (size_t j = 0; j < mix.size(); ++j) {
    const std::string entry = absl::StrCat(field, "[", j, "]");
    if (mix[j].block_size == 0) return Invalid(entry, "block_size must be > 0");
    if (mix[j].block_size > limits.max_block_size) {
      return Invalid(entry, absl::StrCat("block_size ", mix[j].block_size,
                                         " exceeds the limit ",
                                         limits.max_block_size));
    }
    if (!seen.insert(mix[j].block_size).second) {
      return Invalid(entry, absl::StrCat("block_size ", mix[j].block_size,
                                         " is listed twice"));
    }
    if (mix[j].percent == 0 || mix[j].percent > 100) {
      return Invalid(entry, absl::StrCat("percent ", mix[j].percent,
                                         " is not in 1..100"));
    }
    total += mix[j].percent;
  }
  if (!mix.empty() && total != 100) {
    return Invalid(field, absl::StrCat("percents add up to ", total,
                                       ", not 100"));
  }
  return absl::OkStatus();
}

// A group's queue depth against the limit and its batches.
absl::Status ValidateGroupDepth(const std::string& p, const GroupShape& g,
                                const EngineLimits& limits) {
  if (g.queue_depth == 0) return Invalid(p + "queue_depth", "must be > 0");
  if (g.queue_depth > limits.max_queue_depth) {
    return Invalid(p + "queue_depth",
                   absl::StrCat(g.queue_depth,
                                " exceeds the limit max_queue_depth ",
                                limits.max_queue_depth));
  }
  if (g.submit_batch > g.queue_depth) {
    return Invalid(p.empty() ? "submit_batch" : p + "queue_depth",
                   absl::StrCat(g.queue_depth, " is below submit_batch ",
                                g.submit_batch));
  }
  if (g.complete_batch > g.queue_depth) {
    return Invalid(p.empty() ? "complete_batch" : p + "queue_depth",
                   absl::StrCat(g.queue_depth, " is below complete_batch ",
                                g.complete_batch));
  }
  return absl::OkStatus();
}

// A group's I/O shape: read share, block size, distribution, mixes.
absl::Status ValidateGroupShape(const std::string& p, const GroupShape& g,
                                const EngineLimits& limits) {
  const std::string op = std::string(OpName(g.op));
  if (!p.empty() && g.read_percent > 100) {
    return Invalid(p + "read_percent",
                   absl::StrCat(g.read_percent, " is not in 0..100"));
  }
  if (!p.empty() && (g.block_size == 0 || g.block_size > limits.max_block_size)) {
    return Invalid(p + "block_size",
                   absl::StrCat(g.block_size, " is not in 1..",
                                limits.max_block_size));
  }
  if (g.distribution.kind != OffsetDistribution::Kind::kUniform &&
      !OpIsRandom(g.op)) {
    return Invalid(p + "distribution",
                   absl::StrCat(OffsetDistributionName(g.distribution),
                                " needs a random op (randread, randwrite, "
                                "randrw, randtrim); op ", op,
                                " is sequential"));
  }
  if (g.random_percent > 100) {
    return Invalid(p + "random_percent",
                   absl::StrCat(g.random_percent, " is not in 0..100"));
  }
  BLKPERF_RETURN_IF_ERROR(ValidateMix(p + "read_bssplit", g.read_bssplit, limits));
  BLKPERF_RETURN_IF_ERROR(
      ValidateMix(p + "write_bssplit", g.write_bssplit, limits));
  return absl::OkStatus();
}

// A group's rates, syncs, trims and sequential alignment.
absl::Status ValidateGroupPacing(const std::string& p, const GroupShape& g,
                                 const WorkloadSpec& spec) {
  const std::string op = std::string(OpName(g.op));
  if (g.rate_iops != 0 && g.rate_bw != 0) {
    return Invalid(p + "rate_bw",
                   "and rate_iops are both set: give one rate");
  }
  if (g.rate_iops > kMaxRateIops) {
    return Invalid(p + "rate_iops", absl::StrCat(g.rate_iops,
                                                 " exceeds the limit ",
                                                 kMaxRateIops));
  }
  if (g.rate_bw > kMaxRateBytes) {
    return Invalid(p + "rate_bw", absl::StrCat(g.rate_bw, " exceeds the limit ",
                                               kMaxRateBytes, " bytes/s"));
  }
  if (g.sync_every != 0 && (OpTrims(g.op) || g.read_percent == 100)) {
    return Invalid(p + (g.datasync ? "fdatasync_every" : "fsync_every"),
                   absl::StrCat(g.sync_every, ": op ", op,
                                " writes no data to sync"));
  }
  if (OpTrims(g.op) &&
      (spec.split.kind != SplitStrategy::Kind::kNone ||
       !spec.ab_strategies.empty())) {
    return Invalid(spec.ab_strategies.empty() ? "split" : "ab_strategies",
                   absl::StrCat("trims are issued whole; op ", op,
                                " needs split none and no A/B strategies"));
  }
  if (!OpIsRandom(g.op)) {
    for (uint32_t size : GroupSizes(g)) {
      if (size % g.alignment != 0) {
        return Invalid(p + "alignment",
                       absl::StrCat(g.alignment, " does not divide ",
                                    SizeField(p, g, size), " ", size,
                                    ": sequential ops advance by the block "
                                    "size, so their offsets would not be "
                                    "aligned"));
      }
    }
  }
  return absl::OkStatus();
}

// Checks one resolved group (or the workload's own fields) on its own.
absl::Status ValidateGroup(const std::string& p, const GroupShape& g,
                           const WorkloadSpec& spec,
                           const EngineLimits& limits) {
  BLKPERF_RETURN_IF_ERROR(ValidateGroupDepth(p, g, limits));
  BLKPERF_RETURN_IF_ERROR(ValidateGroupShape(p, g, limits));
  return ValidateGroupPacing(p, g, spec);
}

// One group's fields, resolved against the workload's.
GroupShape ResolveOne(const WorkloadSpec& spec, const JobGroupSpec* group) {
  GroupShape g;
  auto pick = [group](const auto& member, const auto& fallback) {
    return group != nullptr && (group->*member).has_value()
               ? *(group->*member)
               : fallback;
  };
  g.op = pick(&JobGroupSpec::op, spec.op);
  g.read_percent = pick(&JobGroupSpec::read_percent, spec.read_percent);
  g.block_size = pick(&JobGroupSpec::block_size, spec.block_size);
  g.alignment = pick(&JobGroupSpec::alignment, spec.alignment);
  g.queue_depth = pick(&JobGroupSpec::queue_depth, spec.queue_depth);
  g.distribution = pick(&JobGroupSpec::distribution, spec.distribution);
  g.random_percent = pick(&JobGroupSpec::random_percent, spec.random_percent);
  g.read_bssplit = pick(&JobGroupSpec::read_bssplit, spec.read_bssplit);
  g.write_bssplit = pick(&JobGroupSpec::write_bssplit, spec.write_bssplit);
  g.rate_iops = pick(&JobGroupSpec::rate_iops, spec.rate_iops);
  g.rate_bw = pick(&JobGroupSpec::rate_bw, spec.rate_bw);
  g.arrivals = pick(&JobGroupSpec::arrivals, spec.arrivals);
  const uint32_t fsync = pick(&JobGroupSpec::fsync_every, spec.fsync_every);
  const uint32_t fdatasync =
      pick(&JobGroupSpec::fdatasync_every, spec.fdatasync_every);
  g.sync_every = fsync != 0 ? fsync : fdatasync;
  g.datasync = fsync == 0 && fdatasync != 0;
  // The share of reads the loop draws against.
  if (g.op != Op::kRandRW) {
    g.read_percent = OpWrites(g.op, 100) ? 0 : 100;
  }
  g.submit_batch = spec.submit_batch != 0
                       ? spec.submit_batch
                       : std::min(kDefaultBatch, g.queue_depth);
  g.complete_batch = spec.complete_batch != 0
                         ? spec.complete_batch
                         : std::min(kDefaultBatch, g.queue_depth);
  const std::vector<uint32_t> sizes = GroupSizes(g);
  g.max_block_size = *std::max_element(sizes.begin(), sizes.end());
  g.min_block_size = *std::min_element(sizes.begin(), sizes.end());
  if (g.alignment == 0) g.alignment = g.min_block_size;
  if (!OpIsRandom(g.op)) g.random_percent = 0;
  g.writes = OpWrites(g.op, g.read_percent);
  g.shaped = g.distribution.kind != OffsetDistribution::Kind::kUniform ||
             (OpIsRandom(g.op) && g.random_percent != 100) ||
             !g.read_bssplit.empty() || !g.write_bssplit.empty() ||
             g.rate_iops != 0 || g.rate_bw != 0 || g.sync_every != 0 ||
             OpTrims(g.op) || spec.slo.enabled;
  return g;
}

// What resolution would otherwise drop without a word: a random share for
// a sequential op, and both syncs at once.
absl::Status ValidateAsGiven(const WorkloadSpec& spec) {
  auto check = [&](const std::string& p, Op op, uint32_t random_percent,
                   uint32_t fsync, uint32_t fdatasync) -> absl::Status {
    if (!OpIsRandom(op) && random_percent != 100) {
      return Invalid(p + "random_percent",
                     absl::StrCat(random_percent, " applies to random ops; op ",
                                  OpName(op), " is sequential (use ",
                                  "rand", OpName(op), ")"));
    }
    if (fsync != 0 && fdatasync != 0) {
      return Invalid(p + "fdatasync_every",
                     absl::StrCat(fdatasync, " and fsync_every ", fsync,
                                  " are both set: give one"));
    }
    return absl::OkStatus();
  };
  if (spec.groups.empty()) {
    return check("", spec.op, spec.random_percent, spec.fsync_every,
                 spec.fdatasync_every);
  }
  for (size_t i = 0; i < spec.groups.size(); ++i) {
    const JobGroupSpec& g = spec.groups[i];
    BLKPERF_RETURN_IF_ERROR(
        check(absl::StrCat("groups[", i, "]."), g.op.value_or(spec.op),
              g.random_percent.value_or(spec.random_percent),
              g.fsync_every.value_or(spec.fsync_every),
              g.fdatasync_every.value_or(spec.fdatasync_every)));
  }
  return absl::OkStatus();
}

// The groups' own list: how many, what the top level may not set beside
// them.
absl::Status ValidateGroupList(const WorkloadSpec& spec) {
  if (spec.groups.size() > kMaxJobGroups) {
    return Invalid("groups", absl::StrCat("has ", spec.groups.size(),
                                          " entries, more than ",
                                          kMaxJobGroups));
  }
  if (!spec.groups.empty()) {
    if (!spec.cpus.empty() || spec.threads != 0) {
      return Invalid(spec.cpus.empty() ? "threads" : "cpus",
                     "is set with groups: each group lists its own "
                     "(groups[i].cpus)");
    }
    if (spec.rate_iops != 0 || spec.rate_bw != 0) {
      return Invalid(spec.rate_iops != 0 ? "rate_iops" : "rate_bw",
                     "is set with groups: set each group's rate "
                     "(groups[i].rate_iops or rate_bw)");
    }
  }
  return absl::OkStatus();
}

// Each group's name (valid, unique) and CPUs (online, each once over all
// groups).
absl::Status ValidateGroupNamesAndCpus(const WorkloadSpec& spec,
                                       const std::vector<int>& online) {
  std::set<std::string> names;
  std::set<int> cpus;
  for (size_t i = 0; i < spec.groups.size(); ++i) {
    const JobGroupSpec& g = spec.groups[i];
    const std::string p = absl::StrCat("groups[", i, "].");
    const std::string name = g.name.empty() ? absl::StrCat("g", i) : g.name;
    if (!ValidGroupName(name)) {
      return Invalid(p + "name",
                     absl::StrCat("\"", name.substr(0, kMaxGroupName),
                                  "\" is not 1-32 characters of "
                                  "[A-Za-z0-9._-]"));
    }
    if (!names.insert(name).second) {
      return Invalid(p + "name", absl::StrCat(name, " is used twice"));
    }
    if (g.cpus.empty()) {
      return Invalid(p + "cpus", "is empty: a group runs one thread per CPU");
    }
    for (size_t c = 0; c < g.cpus.size(); ++c) {
      const std::string field = absl::StrCat(p, "cpus[", c, "]");
      if (std::find(online.begin(), online.end(), g.cpus[c]) == online.end()) {
        return Invalid(field, absl::StrCat(g.cpus[c], " is not online (online: ",
                                           absl::StrJoin(online, ","), ")"));
      }
      if (!cpus.insert(g.cpus[c]).second) {
        return Invalid(field, absl::StrCat(g.cpus[c],
                                           " is listed twice: one submitter "
                                           "thread per CPU"));
      }
    }
  }
  return absl::OkStatus();
}

// The SLO search: what it excludes, its precision, step and settle, and
// its steps within max_runtime.
absl::Status ValidateSlo(const WorkloadSpec& spec, const EngineLimits& limits) {
  if (!spec.slo.enabled) return absl::OkStatus();
  const SloSpec& slo = spec.slo;
  if (!spec.groups.empty()) {
    return Invalid("slo", "searches one workload's rate: it cannot be used "
                          "with groups");
  }
  if (spec.rate_iops != 0 || spec.rate_bw != 0) {
    return Invalid(spec.rate_iops != 0 ? "rate_iops" : "rate_bw",
                   "is set with slo: the search chooses the rates");
  }
  if (spec.io_count != 0) {
    return Invalid("io_count", "is set with slo: the search decides how "
                               "long it runs");
  }
  if (!spec.ab_strategies.empty()) {
    return Invalid("ab_strategies", "cannot be used with slo");
  }
  if (!(slo.precision > 0 && slo.precision <= 0.5)) {
    return Invalid("slo.precision",
                   absl::StrCat(slo.precision, " is not in (0, 0.5]"));
  }
  if (slo.step < kMinSloStep || slo.step > absl::Hours(1)) {
    return Invalid("slo.step", absl::StrCat(absl::FormatDuration(slo.step),
                                            " is not in [100ms, 1h]"));
  }
  if (slo.settle < absl::ZeroDuration() || slo.settle > absl::Minutes(1)) {
    return Invalid("slo.settle",
                   absl::StrCat(absl::FormatDuration(slo.settle),
                                " is not in [0, 1m]"));
  }
  if (SpecMaxDuration(spec) > limits.max_runtime) {
    return Invalid("slo.step",
                   absl::StrCat(SloSteps(slo.precision), " steps of ",
                                absl::FormatDuration(slo.settle + slo.step),
                                " exceed the limit max_runtime ",
                                absl::FormatDuration(limits.max_runtime)));
  }
  return absl::OkStatus();
}


absl::Status ValidateGroupsAndSlo(const WorkloadSpec& spec,
                                  const EngineLimits& limits,
                                  const std::vector<int>& online) {
  BLKPERF_RETURN_IF_ERROR(ValidateAsGiven(spec));
  BLKPERF_RETURN_IF_ERROR(ValidateGroupList(spec));
  BLKPERF_RETURN_IF_ERROR(ValidateGroupNamesAndCpus(spec, online));
  return ValidateSlo(spec, limits);
}

}  // namespace

std::string GroupFieldPrefix(const WorkloadSpec& spec, size_t group) {
  return spec.groups.empty() ? "" : absl::StrCat("groups[", group, "].");
}

absl::StatusOr<std::vector<GroupShape>> ResolveGroups(
    const WorkloadSpec& spec, const EngineLimits& limits,
    const HostCpus& cpus) {
  BLKPERF_RETURN_IF_ERROR(ValidateGroupsAndSlo(spec, limits, cpus.online));
  std::vector<GroupShape> groups;
  if (spec.groups.empty()) {
    GroupShape g = ResolveOne(spec, nullptr);
    g.threads = TopLevelThreads(spec);
    g.cpus = spec.cpus;
    FillDefaultCpus(cpus.placement, g.threads, &g.cpus);
    groups.push_back(std::move(g));
  } else {
    uint32_t first = 0;
    for (size_t i = 0; i < spec.groups.size(); ++i) {
      const JobGroupSpec& in = spec.groups[i];
      GroupShape g = ResolveOne(spec, &in);
      g.name = in.name.empty() ? absl::StrCat("g", i) : in.name;
      g.cpus = in.cpus;
      g.threads = static_cast<uint32_t>(in.cpus.size());
      g.first_thread = first;
      first += g.threads;
      groups.push_back(std::move(g));
    }
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    BLKPERF_RETURN_IF_ERROR(
        ValidateGroup(GroupFieldPrefix(spec, i), groups[i], spec, limits));
  }
  return groups;
}

absl::Status ValidateGroupsAgainstTarget(const WorkloadSpec& spec,
                                         const std::vector<GroupShape>& groups,
                                         size_t index, const TargetInfo& info) {
  const std::string& name = spec.targets[index].path;
  const uint32_t lbs = std::max<uint32_t>(info.logical_block_size, 1);
  for (size_t i = 0; i < groups.size(); ++i) {
    const GroupShape& g = groups[i];
    const std::string p = GroupFieldPrefix(spec, i);
    // Discards of a block device need logical-block multiples even when
    // buffered.
    const bool aligned =
        spec.direct || (OpTrims(g.op) && info.kind == TargetKind::kBlockDevice);
    for (uint32_t size : GroupSizes(g)) {
      if (aligned && size % lbs != 0) {
        return Invalid(SizeField(p, g, size),
                       absl::StrCat(size, " is not a multiple of ", name,
                                    "'s logical block size ", lbs,
                                    spec.direct ? " (required for direct I/O)"
                                                : " (required for discards)"));
      }
    }
    if (aligned && g.alignment % lbs != 0) {
      return Invalid(p + "alignment",
                     absl::StrCat(g.alignment, " is not a multiple of ", name,
                                  "'s logical block size ", lbs));
    }
    if (info.size_bytes < g.max_block_size) {
      return Invalid(SizeField(p, g, g.max_block_size),
                     absl::StrCat(g.max_block_size, " is larger than ", name,
                                  " (", info.size_bytes, " bytes)"));
    }
    if (info.size_bytes < g.alignment) {
      return Invalid(p + "alignment",
                     absl::StrCat(g.alignment, " is larger than ", name, " (",
                                  info.size_bytes, " bytes)"));
    }
    if (!OpIsRandom(g.op) && info.size_bytes / g.threads < g.max_block_size) {
      return Invalid(p.empty() ? "threads" : p + "cpus",
                     absl::StrCat(g.threads, " sequential threads each get "
                                  "their own range of ", name, " (",
                                  info.size_bytes, " bytes): a range would be "
                                  "smaller than the ", g.max_block_size,
                                  "-byte block"));
    }
    if (OpTrims(g.op)) {
      if (info.kind == TargetKind::kBlockDevice &&
          info.limits.discard_max_bytes == 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            p, "op ", OpName(g.op), ": ", name,
            " does not support discard (its queue's discard_max_bytes is 0)"));
      }
    }
  }
  return absl::OkStatus();
}

uint64_t GroupBufferBytes(const std::vector<GroupShape>& groups) {
  uint64_t bytes = 0;
  for (const GroupShape& g : groups) {
    bytes += g.threads * ThreadBufferBytes(g);
  }
  return bytes;
}

}  // namespace blkperf::internal
