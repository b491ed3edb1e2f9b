#include "model/workload_spec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace blkperf {
namespace {

template <typename E, size_t N>
absl::string_view NameOf(const std::array<std::pair<E, const char*>, N>& names,
                         E value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

template <typename E, size_t N>
bool Parse(const std::array<std::pair<E, const char*>, N>& names,
           absl::string_view text, E* value) {
  for (const auto& [v, name] : names) {
    if (text == name) {
      *value = v;
      return true;
    }
  }
  return false;
}

constexpr std::array<std::pair<Op, const char*>, 7> kOpNames = {{
    {Op::kRead, "read"},
    {Op::kWrite, "write"},
    {Op::kRandRead, "randread"},
    {Op::kRandWrite, "randwrite"},
    {Op::kRandRW, "randrw"},
    {Op::kTrim, "trim"},
    {Op::kRandTrim, "randtrim"},
}};

constexpr std::array<std::pair<PollMode, const char*>, 3> kPollNames = {{
    {PollMode::kOff, "off"},
    {PollMode::kOn, "on"},
    {PollMode::kAuto, "auto"},
}};

constexpr std::array<std::pair<RequestCacheMode, const char*>, 2>
    kCacheNames = {{
        {RequestCacheMode::kPerCpu, "per_cpu"},
        {RequestCacheMode::kShared, "shared"},
    }};

constexpr std::array<std::pair<LatencyMode, const char*>, 2>
    kLatencyModeNames = {{
        {LatencyMode::kBatch, "batch"},
        {LatencyMode::kPerIo, "per_io"},
    }};

constexpr std::array<std::pair<BufferLayout, const char*>, 3>
    kLayoutNames = {{
        {BufferLayout::kPerSlot, "per_slot"},
        {BufferLayout::kOneRegion, "one_region"},
        {BufferLayout::kAuto, "auto"},
    }};

constexpr std::array<std::pair<HugePageMode, const char*>, 3> kHugeNames = {{
    {HugePageMode::kOff, "off"},
    {HugePageMode::kOn, "on"},
    {HugePageMode::kAuto, "auto"},
}};

}  // namespace

bool IsExperimentArmName(absl::string_view name) {
  constexpr absl::string_view kAllowed =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:=,/+-";
  return !name.empty() && name.size() <= kMaxExperimentArmBytes &&
         name.find_first_not_of(kAllowed) == absl::string_view::npos;
}

absl::string_view LatencyModeName(LatencyMode mode) {
  return NameOf(kLatencyModeNames, mode);
}
bool ParseLatencyMode(absl::string_view text, LatencyMode* mode) {
  return Parse(kLatencyModeNames, text, mode);
}
absl::string_view OpName(Op op) { return NameOf(kOpNames, op); }
bool ParseOp(absl::string_view text, Op* op) {
  return Parse(kOpNames, text, op);
}
absl::string_view PollModeName(PollMode mode) {
  return NameOf(kPollNames, mode);
}
bool ParsePollMode(absl::string_view text, PollMode* mode) {
  return Parse(kPollNames, text, mode);
}
absl::string_view RequestCacheModeName(RequestCacheMode mode) {
  return NameOf(kCacheNames, mode);
}
bool ParseRequestCacheMode(absl::string_view text, RequestCacheMode* mode) {
  return Parse(kCacheNames, text, mode);
}

absl::string_view BufferLayoutName(BufferLayout layout) {
  return NameOf(kLayoutNames, layout);
}
bool ParseBufferLayout(absl::string_view text, BufferLayout* layout) {
  return Parse(kLayoutNames, text, layout);
}
absl::string_view HugePageModeName(HugePageMode mode) {
  return NameOf(kHugeNames, mode);
}
bool ParseHugePageMode(absl::string_view text, HugePageMode* mode) {
  return Parse(kHugeNames, text, mode);
}

bool OpWrites(Op op, uint32_t read_percent) {
  switch (op) {
    case Op::kWrite:
    case Op::kRandWrite:
    case Op::kTrim:
    case Op::kRandTrim:
      return true;
    case Op::kRandRW:
      return read_percent < 100;
    case Op::kRead:
    case Op::kRandRead:
      return false;
  }
  return true;
}

bool OpIsRandom(Op op) {
  return op == Op::kRandRead || op == Op::kRandWrite || op == Op::kRandRW ||
         op == Op::kRandTrim;
}

bool OpTrims(Op op) { return op == Op::kTrim || op == Op::kRandTrim; }

std::vector<int> SpecCpus(const WorkloadSpec& spec) {
  if (spec.groups.empty()) return spec.cpus;
  std::vector<int> cpus;
  for (const JobGroupSpec& g : spec.groups) {
    cpus.insert(cpus.end(), g.cpus.begin(), g.cpus.end());
  }
  return cpus;
}

uint32_t SpecThreads(const WorkloadSpec& spec) {
  if (!spec.groups.empty()) return static_cast<uint32_t>(SpecCpus(spec).size());
  if (spec.threads != 0) return spec.threads;
  return static_cast<uint32_t>(spec.cpus.size());
}

uint32_t TopLevelThreads(const WorkloadSpec& spec) {
  if (spec.threads != 0) return spec.threads;
  return std::max<uint32_t>(1, static_cast<uint32_t>(spec.cpus.size()));
}

int SloSteps(double precision) {
  if (!(precision > 0 && precision < 1)) return 1;
  // The closed-loop step, each bisection step and its repeat when
  // undecided, and the final bracket's two re-tests (slo_search.h).
  const int bisections =
      static_cast<int>(std::ceil(std::log2(1 / precision) - 1e-9));
  return 1 + 2 * bisections + 2;
}

absl::Duration SpecMaxDuration(const WorkloadSpec& spec) {
  if (!spec.slo.enabled) return spec.ramp_time + spec.runtime;
  return spec.ramp_time +
         SloSteps(spec.slo.precision) * (spec.slo.settle + spec.slo.step);
}

bool SpecWrites(const WorkloadSpec& spec) {
  if (spec.precondition.sequential_passes != 0) return true;
  if (spec.groups.empty()) return OpWrites(spec.op, spec.read_percent);
  for (const JobGroupSpec& g : spec.groups) {
    if (OpWrites(g.op.value_or(spec.op),
                 g.read_percent.value_or(spec.read_percent))) {
      return true;
    }
  }
  return false;
}

}  // namespace blkperf
