// The spec flags of the I/O shape (distribution, bssplit, rates, syncs,
// groups, SLO search): part of SpecFromFlags (spec_flags.h), split out to
// keep each file to one concern. fio's option names where fio has one.
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "cli/internal/flag_values.h"
#include "cli/spec_flags.h"
#include "model/io_shape.h"

ABSL_FLAG(std::optional<std::string>, distribution, std::nullopt,
          "distribution: random offsets: uniform, zipf:THETA, pareto:H, "
          "normal:SIGMA (a fraction of the target). Default uniform");
ABSL_FLAG(std::optional<uint32_t>, random_percent, std::nullopt,
          "random_percent: random ops, share of I/Os at a random offset; "
          "the rest continue sequentially (fio percentage_random). "
          "Default 100");
ABSL_FLAG(std::optional<std::string>, bssplit, std::nullopt,
          "read_bssplit/write_bssplit: block-size mix as fio writes it, "
          "SIZE/PERCENT:SIZE/PERCENT..., for reads and writes; READS,WRITES "
          "for separate mixes (either may be empty), e.g. 4k/70:64k/30");
ABSL_FLAG(std::optional<uint64_t>, rate_iops, std::nullopt,
          "rate_iops: open loop at this many I/Os per second (0 = closed "
          "loop); latency also from each I/O's intended time");
ABSL_FLAG(std::optional<std::string>, rate_bw, std::nullopt,
          "rate_bw: open loop at this many bytes per second, k/m/g "
          "suffixes (e.g. 200m)");
ABSL_FLAG(std::optional<std::string>, arrivals, std::nullopt,
          "arrivals: open-loop gaps, uniform or poisson (default uniform)");
ABSL_FLAG(std::optional<uint32_t>, fsync, std::nullopt,
          "fsync_every: fsync the target after every N writes (0 = never)");
ABSL_FLAG(std::optional<uint32_t>, fdatasync, std::nullopt,
          "fdatasync_every: fdatasync the target after every N writes");
ABSL_FLAG(std::optional<std::string>, groups, std::nullopt,
          "groups: job groups separated by ';', each [NAME:] followed by "
          "KEY=VALUE words with the flag names above and op, read_percent, "
          "bs, alignment, qd, cpus, e.g. \"reads: op=randread cpus=0-1 "
          "distribution=zipf:1.2; writes: op=write cpus=2 bs=128k\"");
ABSL_FLAG(std::optional<std::string>, slo, std::nullopt,
          "slo.objective: search the highest open-loop IOPS meeting it, "
          "e.g. p99<1ms or p99.9<=250us");
ABSL_FLAG(std::optional<double>, slo_precision, std::nullopt,
          "slo.precision: stop when the answer is known to this share of "
          "the closed-loop IOPS (default 0.05)");
ABSL_FLAG(std::optional<absl::Duration>, slo_step, std::nullopt,
          "slo.step: measured time of each search step (default 2s)");
ABSL_FLAG(std::optional<absl::Duration>, slo_settle, std::nullopt,
          "slo.settle: unmeasured time at the start of each step (default "
          "250ms)");

namespace blkperf {
namespace {

using internal::BadFlag;
using internal::OpFromText;
using internal::ParseEnumFlag;
using internal::SetDuration;

absl::Status AddShares(absl::string_view flag, absl::string_view text,
                       google::protobuf::RepeatedPtrField<v1::BlockSizeShare>* out) {
  out->Clear();
  if (text.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<BlockSizeShare>> shares =
      ParseBlockSizeSplit(text, absl::StrCat("--", flag));
  if (!shares.ok()) return shares.status();
  for (const BlockSizeShare& s : *shares) {
    v1::BlockSizeShare* share = out->Add();
    share->set_block_size(s.block_size);
    share->set_percent(s.percent);
  }
  return absl::OkStatus();
}

// The mixes of one --bssplit value: "R" sets both directions, "R,W" each,
// ",W" or "R," one (the other is left unset).
struct Bssplit {
  std::optional<v1::BlockSizeSplit> reads;
  std::optional<v1::BlockSizeSplit> writes;
};

absl::StatusOr<Bssplit> ParseBssplit(absl::string_view flag,
                                     absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (parts.size() > 2) {
    return BadFlag(flag, text, "give READS or READS,WRITES (one comma)");
  }
  const absl::string_view write_text = parts.size() == 2 ? parts[1] : parts[0];
  Bssplit mixes;
  if (parts.size() == 1 || !parts[0].empty()) {
    mixes.reads.emplace();
    BLKPERF_RETURN_IF_ERROR(
        AddShares(flag, parts[0], mixes.reads->mutable_shares()));
  }
  if (parts.size() == 1 || !write_text.empty()) {
    mixes.writes.emplace();
    BLKPERF_RETURN_IF_ERROR(
        AddShares(flag, write_text, mixes.writes->mutable_shares()));
  }
  return mixes;
}

absl::StatusOr<v1::Arrivals> ArrivalsFromText(absl::string_view flag,
                                              absl::string_view text) {
  return ParseEnumFlag(flag, text, "ARRIVALS_", &v1::Arrivals_Parse,
                       "uniform, poisson");
}

template <typename T>
absl::StatusOr<T> Number(absl::string_view flag, absl::string_view text) {
  T value{};
  if (!absl::SimpleAtoi(text, &value)) {
    return BadFlag(flag, text, "not a whole number");
  }
  return value;
}

// One "KEY=VALUE" word of a --groups entry.
absl::Status SetGroupField(absl::string_view key, absl::string_view value,
                           v1::JobGroup* g) {
  const std::string flag = absl::StrCat("groups ", key);
  if (key == "op") {
    BLKPERF_ASSIGN_OR_RETURN(v1::Op op, OpFromText(flag, value));
    g->set_op(op);
  } else if (key == "cpus") {
    BLKPERF_ASSIGN_OR_RETURN(std::vector<int> cpus,
                                 ParseCpuList(value, flag));
    g->clear_cpus();
    for (int cpu : cpus) g->add_cpus(cpu);
  } else if (key == "read_percent") {
    BLKPERF_ASSIGN_OR_RETURN(uint32_t v, Number<uint32_t>(flag, value));
    g->set_read_percent(v);
  } else if (key == "bs" || key == "alignment") {
    BLKPERF_ASSIGN_OR_RETURN(uint64_t v, ParseSizeFlag(value, flag));
    if (v > UINT32_MAX) return BadFlag(flag, value, "too large");
    key == "bs" ? g->set_block_size(static_cast<uint32_t>(v))
                : g->set_alignment(static_cast<uint32_t>(v));
  } else if (key == "qd") {
    BLKPERF_ASSIGN_OR_RETURN(uint32_t v, Number<uint32_t>(flag, value));
    g->set_queue_depth(v);
  } else if (key == "distribution") {
    g->set_distribution(std::string(value));
  } else if (key == "random_percent") {
    BLKPERF_ASSIGN_OR_RETURN(uint32_t v, Number<uint32_t>(flag, value));
    g->set_random_percent(v);
  } else if (key == "bssplit") {
    BLKPERF_ASSIGN_OR_RETURN(Bssplit mixes, ParseBssplit(flag, value));
    if (mixes.reads) *g->mutable_read_bssplit() = *mixes.reads;
    if (mixes.writes) *g->mutable_write_bssplit() = *mixes.writes;
  } else if (key == "rate_iops") {
    BLKPERF_ASSIGN_OR_RETURN(uint64_t v, Number<uint64_t>(flag, value));
    g->set_rate_iops(v);
  } else if (key == "rate_bw") {
    BLKPERF_ASSIGN_OR_RETURN(uint64_t v, ParseSizeFlag(value, flag));
    g->set_rate_bw(v);
  } else if (key == "arrivals") {
    BLKPERF_ASSIGN_OR_RETURN(v1::Arrivals a, ArrivalsFromText(flag, value));
    g->set_arrivals(a);
  } else if (key == "fsync" || key == "fdatasync") {
    BLKPERF_ASSIGN_OR_RETURN(uint32_t v, Number<uint32_t>(flag, value));
    key == "fsync" ? g->set_fsync_every(v) : g->set_fdatasync_every(v);
  } else {
    return BadFlag("groups", key,
                   "not a group key (op, cpus, read_percent, bs, alignment, "
                   "qd, distribution, random_percent, bssplit, rate_iops, "
                   "rate_bw, arrivals, fsync, fdatasync)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseGroupsFlag(absl::string_view text, v1::WorkloadSpec* spec) {
  spec->clear_groups();
  for (absl::string_view entry :
       absl::StrSplit(text, ';', absl::SkipWhitespace())) {
    v1::JobGroup* group = spec->add_groups();
    entry = absl::StripAsciiWhitespace(entry);
    const size_t colon = entry.find(':');
    const size_t equals = entry.find('=');
    // "NAME:" comes before any KEY=VALUE (a distribution's ':' comes after
    // its '=').
    if (colon != absl::string_view::npos &&
        (equals == absl::string_view::npos || colon < equals)) {
      group->set_name(std::string(absl::StripAsciiWhitespace(entry.substr(0, colon))));
      entry = entry.substr(colon + 1);
    }
    for (absl::string_view word :
         absl::StrSplit(entry, ' ', absl::SkipWhitespace())) {
      const size_t eq = word.find('=');
      if (eq == absl::string_view::npos) {
        return BadFlag("groups", word, "not KEY=VALUE");
      }
      BLKPERF_RETURN_IF_ERROR(
          SetGroupField(word.substr(0, eq), word.substr(eq + 1), group));
    }
  }
  if (spec->groups_size() == 0) {
    return BadFlag("groups", text, "no group given");
  }
  return absl::OkStatus();
}

absl::Status ShapeFromFlags(v1::WorkloadSpec* spec) {
  if (auto v = absl::GetFlag(FLAGS_distribution)) spec->set_distribution(*v);
  if (auto v = absl::GetFlag(FLAGS_random_percent)) {
    spec->set_random_percent(*v);
  }
  if (auto v = absl::GetFlag(FLAGS_bssplit)) {
    BLKPERF_ASSIGN_OR_RETURN(Bssplit mixes, ParseBssplit("bssplit", *v));
    if (mixes.reads) *spec->mutable_read_bssplit() = mixes.reads->shares();
    if (mixes.writes) *spec->mutable_write_bssplit() = mixes.writes->shares();
  }
  if (auto v = absl::GetFlag(FLAGS_rate_iops)) spec->set_rate_iops(*v);
  if (auto v = absl::GetFlag(FLAGS_rate_bw)) {
    BLKPERF_ASSIGN_OR_RETURN(uint64_t bytes, ParseSizeFlag(*v, "rate_bw"));
    spec->set_rate_bw(bytes);
  }
  if (auto v = absl::GetFlag(FLAGS_arrivals)) {
    BLKPERF_ASSIGN_OR_RETURN(v1::Arrivals a, ArrivalsFromText("arrivals", *v));
    spec->set_arrivals(a);
  }
  if (auto v = absl::GetFlag(FLAGS_fsync)) spec->set_fsync_every(*v);
  if (auto v = absl::GetFlag(FLAGS_fdatasync)) spec->set_fdatasync_every(*v);
  if (auto v = absl::GetFlag(FLAGS_groups)) {
    BLKPERF_RETURN_IF_ERROR(ParseGroupsFlag(*v, spec));
  }
  if (auto v = absl::GetFlag(FLAGS_slo)) spec->mutable_slo()->set_objective(*v);
  if (auto v = absl::GetFlag(FLAGS_slo_precision)) {
    spec->mutable_slo()->set_precision(*v);
  }
  if (auto v = absl::GetFlag(FLAGS_slo_step)) {
    if (*v < absl::ZeroDuration()) {
      return BadFlag("slo_step", absl::FormatDuration(*v), "must not be negative");
    }
    SetDuration(*v, spec->mutable_slo()->mutable_step());
  }
  if (auto v = absl::GetFlag(FLAGS_slo_settle)) {
    if (*v < absl::ZeroDuration()) {
      return BadFlag("slo_settle", absl::FormatDuration(*v),
                     "must not be negative");
    }
    SetDuration(*v, spec->mutable_slo()->mutable_settle());
  }
  return absl::OkStatus();
}

}  // namespace blkperf
